//! The metadata value: one type for what the writer writes and the reader reads, every GGUF
//! value type, with the type ids a file stores it under.

/// GGUF's value type ids (`enum gguf_type`), as a file stores them before each value.
pub(super) mod tag {
    pub const U8: u32 = 0;
    pub const I8: u32 = 1;
    pub const U16: u32 = 2;
    pub const I16: u32 = 3;
    pub const U32: u32 = 4;
    pub const I32: u32 = 5;
    pub const F32: u32 = 6;
    pub const BOOL: u32 = 7;
    pub const STR: u32 = 8;
    pub const ARRAY: u32 = 9;
    pub const U64: u32 = 10;
    pub const I64: u32 = 11;
    pub const F64: u32 = 12;
}

/// A metadata value: every GGUF value type, as written and as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `GGUF_TYPE_UINT8`.
    U8(u8),
    /// `GGUF_TYPE_INT8`.
    I8(i8),
    /// `GGUF_TYPE_UINT16`.
    U16(u16),
    /// `GGUF_TYPE_INT16`.
    I16(i16),
    /// `GGUF_TYPE_UINT32`.
    U32(u32),
    /// `GGUF_TYPE_INT32`.
    I32(i32),
    /// `GGUF_TYPE_FLOAT32`.
    F32(f32),
    /// `GGUF_TYPE_BOOL`.
    Bool(bool),
    /// `GGUF_TYPE_STRING`.
    Str(String),
    /// `GGUF_TYPE_UINT64`.
    U64(u64),
    /// `GGUF_TYPE_INT64`.
    I64(i64),
    /// `GGUF_TYPE_FLOAT64`.
    F64(f64),
    /// `GGUF_TYPE_ARRAY` (of any type but arrays, as llama.cpp reads them).
    Array(Array),
}

/// A metadata array, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Array {
    /// Of `u8`.
    U8(Vec<u8>),
    /// Of `i8`.
    I8(Vec<i8>),
    /// Of `u16`.
    U16(Vec<u16>),
    /// Of `i16`.
    I16(Vec<i16>),
    /// Of `u32`.
    U32(Vec<u32>),
    /// Of `i32`.
    I32(Vec<i32>),
    /// Of `f32`.
    F32(Vec<f32>),
    /// Of `bool`.
    Bool(Vec<bool>),
    /// Of strings (a vocabulary, typically).
    Str(Vec<String>),
    /// Of `u64`.
    U64(Vec<u64>),
    /// Of `i64`.
    I64(Vec<i64>),
    /// Of `f64`.
    F64(Vec<f64>),
}

impl Value {
    /// The string, for a `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Any integer value that fits a `u64` (negative values and non-integers give `None`).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(x) => Some(x.into()),
            Value::U16(x) => Some(x.into()),
            Value::U32(x) => Some(x.into()),
            Value::U64(x) => Some(x),
            Value::I8(x) => u64::try_from(x).ok(),
            Value::I16(x) => u64::try_from(x).ok(),
            Value::I32(x) => u64::try_from(x).ok(),
            Value::I64(x) => u64::try_from(x).ok(),
            _ => None,
        }
    }

    /// The array, for an `Array`.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The type id a file stores before this value.
    pub(super) fn tag(&self) -> u32 {
        match self {
            Value::U8(_) => tag::U8,
            Value::I8(_) => tag::I8,
            Value::U16(_) => tag::U16,
            Value::I16(_) => tag::I16,
            Value::U32(_) => tag::U32,
            Value::I32(_) => tag::I32,
            Value::F32(_) => tag::F32,
            Value::Bool(_) => tag::BOOL,
            Value::Str(_) => tag::STR,
            Value::U64(_) => tag::U64,
            Value::I64(_) => tag::I64,
            Value::F64(_) => tag::F64,
            Value::Array(_) => tag::ARRAY,
        }
    }
}

impl Array {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Array::U8(v) => v.len(),
            Array::I8(v) => v.len(),
            Array::U16(v) => v.len(),
            Array::I16(v) => v.len(),
            Array::U32(v) => v.len(),
            Array::I32(v) => v.len(),
            Array::F32(v) => v.len(),
            Array::Bool(v) => v.len(),
            Array::Str(v) => v.len(),
            Array::U64(v) => v.len(),
            Array::I64(v) => v.len(),
            Array::F64(v) => v.len(),
        }
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type id a file stores for the elements.
    pub(super) fn tag(&self) -> u32 {
        match self {
            Array::U8(_) => tag::U8,
            Array::I8(_) => tag::I8,
            Array::U16(_) => tag::U16,
            Array::I16(_) => tag::I16,
            Array::U32(_) => tag::U32,
            Array::I32(_) => tag::I32,
            Array::F32(_) => tag::F32,
            Array::Bool(_) => tag::BOOL,
            Array::Str(_) => tag::STR,
            Array::U64(_) => tag::U64,
            Array::I64(_) => tag::I64,
            Array::F64(_) => tag::F64,
        }
    }
}
