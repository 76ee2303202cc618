//! A streaming GGUF v3 writer.
//!
//! GGUF puts every tensor's name, shape, type and offset before the data, so the writer takes a
//! plan (all tensor descriptions, computed up front from the checkpoint's headers), writes the
//! header, then asks for each tensor's bytes in order. Only one tensor is in memory at a time.
//! The file is written to a temporary file beside the destination and renamed into place when
//! complete: an interrupted or failed write leaves nothing behind.
//!
//! [`read_header`] is the matching reader: it reads and validates a GGUF file's header
//! (metadata of every GGUF type, tensor descriptions) with the checks llama.cpp makes, without
//! reading the tensor data, so a runtime can refuse a damaged file with a clear message before
//! handing it to llama.cpp, and read metadata (vocabularies, hyperparameters) from it.

use std::collections::HashSet;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

/// Alignment of the data section and of each tensor (GGUF's default).
pub const ALIGNMENT: u64 = 32;

/// The ggml tensor types this writer produces directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
}

impl GgmlType {
    /// The `ggml_type` id.
    pub fn id(self) -> u32 {
        match self {
            GgmlType::F32 => 0,
            GgmlType::F16 => 1,
            GgmlType::Bf16 => 30,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            GgmlType::F32 => 4,
            GgmlType::F16 | GgmlType::Bf16 => 2,
        }
    }
}

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
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
    /// Array of `GGUF_TYPE_STRING`.
    StrArray(Vec<String>),
    /// Array of `GGUF_TYPE_INT32`.
    I32Array(Vec<i32>),
    /// Array of `GGUF_TYPE_UINT32`.
    U32Array(Vec<u32>),
    /// Array of `GGUF_TYPE_FLOAT32`.
    F32Array(Vec<f32>),
    /// Array of `GGUF_TYPE_BOOL`.
    BoolArray(Vec<bool>),
}

const T_U32: u32 = 4;
const T_I32: u32 = 5;
const T_F32: u32 = 6;
const T_BOOL: u32 = 7;
const T_STR: u32 = 8;
const T_ARRAY: u32 = 9;

/// A tensor as planned: name, shape in ggml order (`ne[0]` is the fastest-moving dimension,
/// i.e. the reverse of the PyTorch shape), type.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    /// GGUF tensor name.
    pub name: String,
    /// Dimensions, ggml order.
    pub ne: Vec<u64>,
    /// Storage type.
    pub ty: GgmlType,
}

impl TensorInfo {
    /// Elements in the tensor.
    pub fn elements(&self) -> u64 {
        self.ne.iter().product()
    }

    /// Bytes of data.
    pub fn bytes(&self) -> u64 {
        self.elements() * self.ty.size()
    }
}

fn pad(n: u64) -> u64 {
    (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT
}

fn w_str(w: &mut impl Write, s: &str) -> std::io::Result<()> {
    w.write_all(&(s.len() as u64).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

fn w_value(w: &mut impl Write, v: &Value) -> std::io::Result<()> {
    fn arr_head(w: &mut impl Write, ty: u32, n: usize) -> std::io::Result<()> {
        w.write_all(&T_ARRAY.to_le_bytes())?;
        w.write_all(&ty.to_le_bytes())?;
        w.write_all(&(n as u64).to_le_bytes())
    }
    match v {
        Value::U32(x) => {
            w.write_all(&T_U32.to_le_bytes())?;
            w.write_all(&x.to_le_bytes())
        }
        Value::I32(x) => {
            w.write_all(&T_I32.to_le_bytes())?;
            w.write_all(&x.to_le_bytes())
        }
        Value::F32(x) => {
            w.write_all(&T_F32.to_le_bytes())?;
            w.write_all(&x.to_le_bytes())
        }
        Value::Bool(x) => {
            w.write_all(&T_BOOL.to_le_bytes())?;
            w.write_all(&[*x as u8])
        }
        Value::Str(s) => {
            w.write_all(&T_STR.to_le_bytes())?;
            w_str(w, s)
        }
        Value::StrArray(xs) => {
            arr_head(w, T_STR, xs.len())?;
            xs.iter().try_for_each(|s| w_str(w, s))
        }
        Value::I32Array(xs) => {
            arr_head(w, T_I32, xs.len())?;
            xs.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
        }
        Value::U32Array(xs) => {
            arr_head(w, T_U32, xs.len())?;
            xs.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
        }
        Value::F32Array(xs) => {
            arr_head(w, T_F32, xs.len())?;
            xs.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
        }
        Value::BoolArray(xs) => {
            arr_head(w, T_BOOL, xs.len())?;
            xs.iter().try_for_each(|x| w.write_all(&[*x as u8]))
        }
    }
}

/// Counts the bytes written through it.
struct Counting<'w, W: Write> {
    inner: &'w mut W,
    count: u64,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes a GGUF file: `metadata` in order, then `tensors`, whose bytes `data(i, out)` writes
/// for tensor `i` (exactly [`TensorInfo::bytes`] of them, little-endian), streaming. `on_tensor(i)`
/// is called after each tensor is written, for progress.
pub fn write<E>(
    path: &Path,
    metadata: &[(String, Value)],
    tensors: &[TensorInfo],
    mut data: impl FnMut(usize, &mut dyn Write) -> Result<(), E>,
    mut on_tensor: impl FnMut(usize),
) -> Result<u64, WriteError<E>> {
    check_plan(metadata, tensors).map_err(WriteError::Invalid)?;
    let tmp = crate::atomic::AtomicFile::create(path).map_err(WriteError::Io)?;
    let mut w = BufWriter::with_capacity(8 << 20, tmp);
    let io = WriteError::Io;
    w.write_all(b"GGUF").map_err(io)?;
    w.write_all(&3u32.to_le_bytes()).map_err(io)?;
    w.write_all(&(tensors.len() as u64).to_le_bytes()).map_err(io)?;
    w.write_all(&(metadata.len() as u64).to_le_bytes()).map_err(io)?;
    for (k, v) in metadata {
        w_str(&mut w, k).map_err(io)?;
        w_value(&mut w, v).map_err(io)?;
    }
    let mut offset = 0u64;
    for t in tensors {
        w_str(&mut w, &t.name).map_err(io)?;
        w.write_all(&(t.ne.len() as u32).to_le_bytes()).map_err(io)?;
        for d in &t.ne {
            w.write_all(&d.to_le_bytes()).map_err(io)?;
        }
        w.write_all(&t.ty.id().to_le_bytes()).map_err(io)?;
        w.write_all(&offset.to_le_bytes()).map_err(io)?;
        offset += t.bytes() + pad(t.bytes());
    }
    let pos = w.stream_position().map_err(io)?;
    w.write_all(&vec![0u8; pad(pos) as usize]).map_err(io)?;
    for (i, t) in tensors.iter().enumerate() {
        let mut counting = Counting { inner: &mut w, count: 0 };
        data(i, &mut counting).map_err(WriteError::Data)?;
        if counting.count != t.bytes() {
            return Err(WriteError::Size { name: t.name.clone(), expected: t.bytes(), actual: counting.count });
        }
        w.write_all(&vec![0u8; pad(t.bytes()) as usize]).map_err(io)?;
        on_tensor(i);
    }
    let tmp = w.into_inner().map_err(|e| WriteError::Io(e.into_error()))?;
    tmp.commit().map_err(io)
}

/// What llama.cpp's reader (and [`read_header`]) refuses, checked before anything is written.
fn check_plan(metadata: &[(String, Value)], tensors: &[TensorInfo]) -> Result<(), String> {
    let mut keys = HashSet::new();
    for (k, _) in metadata {
        if k.is_empty() {
            return Err("a metadata key is empty".into());
        }
        if !keys.insert(k.as_str()) {
            return Err(format!("metadata key {k:?} appears twice"));
        }
        if k.contains('\0') {
            return Err(format!("metadata key {k:?} contains a NUL byte"));
        }
    }
    let mut names = HashSet::new();
    for t in tensors {
        if t.name.len() >= MAX_NAME {
            return Err(format!(
                "tensor name {:?} is {} bytes; GGUF allows at most {}",
                t.name,
                t.name.len(),
                MAX_NAME - 1
            ));
        }
        if !names.insert(t.name.as_str()) {
            return Err(format!("tensor name {:?} appears twice", t.name));
        }
        if t.name.contains('\0') {
            return Err(format!("tensor name {:?} contains a NUL byte", t.name));
        }
        if t.ne.len() > MAX_DIMS {
            return Err(format!("tensor {:?} has {} dimensions; GGUF allows at most {MAX_DIMS}", t.name, t.ne.len()));
        }
        let elements = t.ne.iter().try_fold(1u64, |a, &d| a.checked_mul(d)).filter(|&n| n <= i64::MAX as u64);
        if elements.and_then(|n| n.checked_mul(t.ty.size())).is_none() {
            return Err(format!("tensor {:?} with dimensions {:?} is too large", t.name, t.ne));
        }
    }
    Ok(())
}

/// Why a GGUF file could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError<E> {
    /// The plan is one llama.cpp could not read (a bug in the caller, never user input).
    #[error("the GGUF plan is invalid: {0}")]
    Invalid(String),
    /// Writing failed.
    #[error("writing the GGUF file failed: {0}")]
    Io(#[source] std::io::Error),
    /// The data source failed.
    #[error(transparent)]
    Data(E),
    /// The data source produced the wrong number of bytes (a bug, never user input).
    #[error("tensor {name}: {actual} bytes produced, {expected} planned")]
    Size {
        /// The tensor.
        name: String,
        /// Bytes planned.
        expected: u64,
        /// Bytes produced.
        actual: u64,
    },
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Longest tensor name plus one (ggml's `GGML_MAX_NAME`): names must be shorter.
pub const MAX_NAME: usize = 64;
/// Most dimensions a tensor may have (ggml's `GGML_MAX_DIMS`).
pub const MAX_DIMS: usize = 4;
/// The metadata key that overrides [`ALIGNMENT`] (a `u32`, a power of two).
pub const ALIGNMENT_KEY: &str = "general.alignment";

/// A ggml tensor type's storage: `block_elems` elements take `block_bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeLayout {
    /// ggml's name for the type (`"q4_K"`, `"bf16"`, ...).
    pub name: &'static str,
    /// Elements per block (1 for the plain types).
    pub block_elems: u64,
    /// Bytes per block.
    pub block_bytes: u64,
}

/// The storage of ggml type `id`, as ggml's `type_traits` table has it; `None` for ids ggml does
/// not know or no longer supports in files (4, 5, 31–33, 36–38, ids past the last).
pub fn type_layout(id: u32) -> Option<TypeLayout> {
    let (name, block_elems, block_bytes) = match id {
        0 => ("f32", 1, 4),
        1 => ("f16", 1, 2),
        2 => ("q4_0", 32, 18),
        3 => ("q4_1", 32, 20),
        6 => ("q5_0", 32, 22),
        7 => ("q5_1", 32, 24),
        8 => ("q8_0", 32, 34),
        9 => ("q8_1", 32, 36),
        10 => ("q2_K", 256, 84),
        11 => ("q3_K", 256, 110),
        12 => ("q4_K", 256, 144),
        13 => ("q5_K", 256, 176),
        14 => ("q6_K", 256, 210),
        15 => ("q8_K", 256, 292),
        16 => ("iq2_xxs", 256, 66),
        17 => ("iq2_xs", 256, 74),
        18 => ("iq3_xxs", 256, 98),
        19 => ("iq1_s", 256, 50),
        20 => ("iq4_nl", 32, 18),
        21 => ("iq3_s", 256, 110),
        22 => ("iq2_s", 256, 82),
        23 => ("iq4_xs", 256, 136),
        24 => ("i8", 1, 1),
        25 => ("i16", 1, 2),
        26 => ("i32", 1, 4),
        27 => ("i64", 1, 8),
        28 => ("f64", 1, 8),
        29 => ("iq1_m", 256, 56),
        30 => ("bf16", 1, 2),
        34 => ("tq1_0", 256, 54),
        35 => ("tq2_0", 256, 66),
        39 => ("mxfp4", 32, 17),
        40 => ("nvfp4", 64, 36),
        41 => ("q1_0", 128, 18),
        42 => ("q2_0", 64, 18),
        _ => return None,
    };
    Some(TypeLayout { name, block_elems, block_bytes })
}

/// A metadata value as read: every GGUF value type.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
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
    Array(MetaArray),
}

/// A metadata array, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaArray {
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

impl MetaArray {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            MetaArray::U8(v) => v.len(),
            MetaArray::I8(v) => v.len(),
            MetaArray::U16(v) => v.len(),
            MetaArray::I16(v) => v.len(),
            MetaArray::U32(v) => v.len(),
            MetaArray::I32(v) => v.len(),
            MetaArray::F32(v) => v.len(),
            MetaArray::Bool(v) => v.len(),
            MetaArray::Str(v) => v.len(),
            MetaArray::U64(v) => v.len(),
            MetaArray::I64(v) => v.len(),
            MetaArray::F64(v) => v.len(),
        }
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MetaValue {
    /// The string, for a `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Any integer value that fits a `u64` (negative values and non-integers give `None`).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::U8(x) => Some(x.into()),
            MetaValue::U16(x) => Some(x.into()),
            MetaValue::U32(x) => Some(x.into()),
            MetaValue::U64(x) => Some(x),
            MetaValue::I8(x) => u64::try_from(x).ok(),
            MetaValue::I16(x) => u64::try_from(x).ok(),
            MetaValue::I32(x) => u64::try_from(x).ok(),
            MetaValue::I64(x) => u64::try_from(x).ok(),
            _ => None,
        }
    }

    /// The array, for an `Array`.
    pub fn as_array(&self) -> Option<&MetaArray> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl From<&Value> for MetaValue {
    /// What the writer's value reads back as.
    fn from(v: &Value) -> Self {
        match v {
            Value::U32(x) => MetaValue::U32(*x),
            Value::I32(x) => MetaValue::I32(*x),
            Value::F32(x) => MetaValue::F32(*x),
            Value::Bool(x) => MetaValue::Bool(*x),
            Value::Str(s) => MetaValue::Str(s.clone()),
            Value::StrArray(xs) => MetaValue::Array(MetaArray::Str(xs.clone())),
            Value::I32Array(xs) => MetaValue::Array(MetaArray::I32(xs.clone())),
            Value::U32Array(xs) => MetaValue::Array(MetaArray::U32(xs.clone())),
            Value::F32Array(xs) => MetaValue::Array(MetaArray::F32(xs.clone())),
            Value::BoolArray(xs) => MetaValue::Array(MetaArray::Bool(xs.clone())),
        }
    }
}

/// A tensor's description in a GGUF header.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorHeader {
    /// Name.
    pub name: String,
    /// Dimensions, ggml order (`ne[0]` moves fastest); at most [`MAX_DIMS`].
    pub ne: Vec<u64>,
    /// The `ggml_type` id (see [`type_layout`]).
    pub ty: u32,
    /// Offset of its data from the start of the data section.
    pub offset: u64,
    /// Bytes of data.
    pub size: u64,
}

impl TensorHeader {
    /// Elements in the tensor.
    pub fn elements(&self) -> u64 {
        // Checked at reading: the product fits an i64.
        self.ne.iter().product()
    }

    /// ggml's name for its type.
    pub fn type_name(&self) -> &'static str {
        type_layout(self.ty).map_or("?", |l| l.name)
    }
}

/// A GGUF file's header, read and validated by [`read_header`].
#[derive(Debug, Clone, PartialEq)]
pub struct GgufHeader {
    /// Format version (2 or 3: same layout).
    pub version: u32,
    /// Metadata, in file order (keys are unique).
    pub metadata: Vec<(String, MetaValue)>,
    /// Tensor descriptions, in file order (names are unique).
    pub tensors: Vec<TensorHeader>,
    /// Alignment of the data section and of each tensor ([`ALIGNMENT_KEY`], else 32).
    pub alignment: u64,
    /// Absolute offset of the data section in the file.
    pub data_offset: u64,
    /// Size of the file.
    pub file_size: u64,
}

impl GgufHeader {
    /// A metadata value by key.
    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A tensor by name.
    pub fn tensor(&self, name: &str) -> Option<&TensorHeader> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// `general.architecture`, if present and a string.
    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture").and_then(MetaValue::as_str)
    }
}

/// Why a GGUF header could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid GGUF file (damaged, truncated, or not GGUF at all).
    #[error("{path} is not a valid GGUF file: at byte {offset}: {reason}")]
    Invalid {
        /// The file (empty when read from a stream).
        path: std::path::PathBuf,
        /// Where the problem was found.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
}

impl ReadError {
    /// The message without the path.
    pub fn reason(&self) -> String {
        match self {
            ReadError::Io { source, .. } => source.to_string(),
            ReadError::Invalid { offset, reason, .. } => format!("at byte {offset}: {reason}"),
        }
    }
}

/// Reads and validates the header of the GGUF file at `path`; the tensor data is not read.
///
/// Checks what llama.cpp checks before loading: the magic and version (2 or 3; a byte-swapped
/// version is reported as a big-endian file), unique non-empty keys, value types (nested arrays
/// are refused, bools must be 0 or 1, strings must be UTF-8), `general.alignment` (a `u32` power
/// of two), unique tensor names shorter than [`MAX_NAME`] bytes (keys and names without NUL
/// bytes, which llama.cpp's C strings would cut), at most [`MAX_DIMS`] dimensions,
/// known tensor types with `ne[0]` a multiple of the block size, sizes that fit an `i64`, offsets
/// laid out in order each padded to the alignment, and every tensor's data inside the file.
///
/// Memory use is bounded by the file's size: every count and length is checked against the
/// bytes left in the file before anything is allocated for it, so a hostile count such as 2^60
/// is an error, not an allocation.
pub fn read_header(path: &Path) -> Result<GgufHeader, ReadError> {
    let io = |source| ReadError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    read_header_from(BufReader::with_capacity(1 << 20, file), len).map_err(|e| match e {
        ReadError::Io { source, .. } => ReadError::Io { path: path.to_path_buf(), source },
        ReadError::Invalid { offset, reason, .. } => ReadError::Invalid { path: path.to_path_buf(), offset, reason },
    })
}

/// [`read_header`] on a stream positioned at the start of a GGUF file of `file_size` bytes.
pub fn read_header_from(r: impl Read, file_size: u64) -> Result<GgufHeader, ReadError> {
    let mut r = Reader { inner: r, pos: 0, len: file_size };
    r.header()
}

/// Smallest encodings, for bounding counts by the bytes left: a key/value pair is a length (8),
/// at least one key byte, a type (4) and at least one value byte; a tensor description is a
/// name length (8), a dimension count (4), a type (4) and an offset (8).
const MIN_KV_BYTES: u64 = 8 + 1 + 4 + 1;
const MIN_TENSOR_BYTES: u64 = 8 + 4 + 4 + 8;

struct Reader<R> {
    inner: R,
    pos: u64,
    len: u64,
}

impl<R: Read> Reader<R> {
    fn invalid<T>(&self, reason: impl Into<String>) -> Result<T, ReadError> {
        self.invalid_at(self.pos, reason)
    }

    fn invalid_at<T>(&self, offset: u64, reason: impl Into<String>) -> Result<T, ReadError> {
        Err(ReadError::Invalid { path: Default::default(), offset, reason: reason.into() })
    }

    fn remaining(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    /// Fills `buf`; a short file is `Invalid` (truncated), a read failure is `Io`.
    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<(), ReadError> {
        if (buf.len() as u64) > self.remaining() {
            return self.invalid(format!("the file ends inside {what} (truncated?)"));
        }
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.pos += buf.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.invalid(format!("the file ends inside {what} (truncated?)"))
            }
            Err(source) => Err(ReadError::Io { path: Default::default(), source }),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ReadError> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn u32(&mut self, what: &str) -> Result<u32, ReadError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64, ReadError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A count of items of at least `min_bytes` each, checked against the bytes left.
    fn count(&mut self, what: &str, min_bytes: u64) -> Result<u64, ReadError> {
        let at = self.pos;
        let n = self.u64(what)?;
        if n > self.remaining() / min_bytes {
            return self.invalid_at(
                at,
                format!(
                    "{what} is {n}, more than the {} bytes left in the file can hold (truncated?)",
                    self.remaining()
                ),
            );
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, ReadError> {
        let at = self.pos;
        let n = self.u64(what)?;
        if n > self.remaining() {
            return self.invalid_at(
                at,
                format!("{what} is {n} bytes long, but only {} bytes are left in the file", self.remaining()),
            );
        }
        // Read as it arrives rather than allocated up front: a stream shorter than its stated
        // size cannot make a large allocation either.
        let mut buf = Vec::new();
        match (&mut self.inner).take(n).read_to_end(&mut buf) {
            Ok(got) if got as u64 == n => self.pos += n,
            Ok(_) => return self.invalid(format!("the file ends inside {what} (truncated?)")),
            Err(source) => return Err(ReadError::Io { path: Default::default(), source }),
        }
        String::from_utf8(buf).or_else(|_| self.invalid_at(at, format!("{what} is not UTF-8")))
    }

    fn bool(&mut self, what: &str) -> Result<bool, ReadError> {
        let at = self.pos;
        match self.array::<1>(what)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            b => self.invalid_at(at, format!("{what} is a bool of value {b} (must be 0 or 1)")),
        }
    }

    fn scalar(&mut self, ty: u32, what: &str) -> Result<MetaValue, ReadError> {
        Ok(match ty {
            0 => MetaValue::U8(self.array::<1>(what)?[0]),
            1 => MetaValue::I8(self.array::<1>(what)?[0] as i8),
            2 => MetaValue::U16(u16::from_le_bytes(self.array(what)?)),
            3 => MetaValue::I16(i16::from_le_bytes(self.array(what)?)),
            4 => MetaValue::U32(u32::from_le_bytes(self.array(what)?)),
            5 => MetaValue::I32(i32::from_le_bytes(self.array(what)?)),
            6 => MetaValue::F32(f32::from_le_bytes(self.array(what)?)),
            7 => MetaValue::Bool(self.bool(what)?),
            8 => MetaValue::Str(self.string(what)?),
            10 => MetaValue::U64(u64::from_le_bytes(self.array(what)?)),
            11 => MetaValue::I64(i64::from_le_bytes(self.array(what)?)),
            12 => MetaValue::F64(f64::from_le_bytes(self.array(what)?)),
            _ => return self.invalid(format!("{what} has unknown GGUF type {ty}")),
        })
    }

    fn array_value(&mut self, what: &str) -> Result<MetaArray, ReadError> {
        let ty_at = self.pos;
        let ty = self.u32(what)?;
        let elem_bytes = match ty {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            8 | 10..=12 => 8,
            T_ARRAY => {
                return self.invalid_at(ty_at, format!("{what} is an array of arrays (not supported by llama.cpp)"))
            }
            _ => return self.invalid_at(ty_at, format!("{what} is an array of unknown GGUF type {ty}")),
        };
        let n = self.count(&format!("the element count of {what}"), elem_bytes)?;
        // Bounded by the bytes left (checked above); grown as elements are read, so a count that
        // only just fits cannot make one large allocation up front either.
        let cap = n.min(1 << 10) as usize;
        macro_rules! read_all {
            ($variant:ident, $read:expr) => {{
                let mut v = Vec::with_capacity(cap);
                for _ in 0..n {
                    v.push($read);
                }
                MetaArray::$variant(v)
            }};
        }
        Ok(match ty {
            0 => read_all!(U8, self.array::<1>(what)?[0]),
            1 => read_all!(I8, self.array::<1>(what)?[0] as i8),
            2 => read_all!(U16, u16::from_le_bytes(self.array(what)?)),
            3 => read_all!(I16, i16::from_le_bytes(self.array(what)?)),
            4 => read_all!(U32, u32::from_le_bytes(self.array(what)?)),
            5 => read_all!(I32, i32::from_le_bytes(self.array(what)?)),
            6 => read_all!(F32, f32::from_le_bytes(self.array(what)?)),
            7 => read_all!(Bool, self.bool(what)?),
            8 => read_all!(Str, self.string(what)?),
            10 => read_all!(U64, u64::from_le_bytes(self.array(what)?)),
            11 => read_all!(I64, i64::from_le_bytes(self.array(what)?)),
            _ => read_all!(F64, f64::from_le_bytes(self.array(what)?)),
        })
    }

    fn header(&mut self) -> Result<GgufHeader, ReadError> {
        let magic: [u8; 4] = self.array("the magic")?;
        if &magic != b"GGUF" {
            return self.invalid_at(0, format!("the file starts with {magic:02x?}, not the GGUF magic \"GGUF\""));
        }
        let version = self.u32("the version")?;
        match version {
            2 | 3 => {}
            1 => return self.invalid_at(4, "GGUF version 1 is no longer supported by llama.cpp"),
            v if v & 0xFFFF == 0 => {
                return self
                    .invalid_at(4, format!("version {v:#x}: a big-endian GGUF file, which this machine cannot read"))
            }
            v => return self.invalid_at(4, format!("GGUF version {v} is not supported (2 and 3 are)")),
        }
        let n_tensors = self.count("the tensor count", MIN_TENSOR_BYTES)?;
        let n_kv = self.count("the metadata count", MIN_KV_BYTES)?;

        let mut metadata: Vec<(String, MetaValue)> = Vec::new();
        let mut keys = HashSet::new();
        for i in 0..n_kv {
            let at = self.pos;
            let key = self.string(&format!("metadata key {i}"))?;
            if key.is_empty() {
                return self.invalid_at(at, format!("metadata key {i} is empty"));
            }
            if !keys.insert(key.clone()) {
                return self.invalid_at(at, format!("metadata key {key:?} appears twice"));
            }
            if key.contains('\0') {
                // llama.cpp looks keys up as C strings: it could never find this one.
                return self.invalid_at(at, format!("metadata key {key:?} contains a NUL byte"));
            }
            let what = format!("metadata {key:?}");
            let ty = self.u32(&what)?;
            let value =
                if ty == T_ARRAY { MetaValue::Array(self.array_value(&what)?) } else { self.scalar(ty, &what)? };
            metadata.push((key, value));
        }

        let alignment = match metadata.iter().find(|(k, _)| k == ALIGNMENT_KEY) {
            None => ALIGNMENT,
            Some((_, MetaValue::U32(a))) if a.is_power_of_two() => u64::from(*a),
            Some((_, MetaValue::U32(a))) => return self.invalid(format!("{ALIGNMENT_KEY} is {a}, not a power of two")),
            Some((_, v)) => return self.invalid(format!("{ALIGNMENT_KEY} must be a u32, found {v:?}")),
        };

        let mut tensors: Vec<TensorHeader> = Vec::new();
        let mut names = HashSet::new();
        for i in 0..n_tensors {
            let at = self.pos;
            let name = self.string(&format!("the name of tensor {i}"))?;
            if name.len() >= MAX_NAME {
                return self.invalid_at(
                    at,
                    format!("tensor name {name:?} is {} bytes; at most {} are allowed", name.len(), MAX_NAME - 1),
                );
            }
            if name.contains('\0') {
                // llama.cpp copies names as C strings: it would read another name.
                return self.invalid_at(at, format!("tensor name {name:?} contains a NUL byte"));
            }
            if !names.insert(name.clone()) {
                return self.invalid_at(at, format!("tensor name {name:?} appears twice"));
            }
            let what = format!("tensor {name:?}");
            let dims_at = self.pos;
            let n_dims = self.u32(&what)?;
            if n_dims as usize > MAX_DIMS {
                return self
                    .invalid_at(dims_at, format!("{what} has {n_dims} dimensions; at most {MAX_DIMS} are allowed"));
            }
            let mut ne = Vec::with_capacity(n_dims as usize);
            let mut elements: u64 = 1;
            for _ in 0..n_dims {
                let d = self.u64(&what)?;
                if d > i64::MAX as u64 {
                    return self.invalid_at(dims_at, format!("{what} has a negative dimension ({})", d as i64));
                }
                elements = match elements.checked_mul(d).filter(|&n| n <= i64::MAX as u64) {
                    Some(n) => n,
                    None => return self.invalid_at(dims_at, format!("{what} has too many elements")),
                };
                ne.push(d);
            }
            let ty_at = self.pos;
            let ty = self.u32(&what)?;
            let Some(layout) = type_layout(ty) else {
                return self.invalid_at(ty_at, format!("{what} has unknown or unsupported ggml type {ty}"));
            };
            let ne0 = ne.first().copied().unwrap_or(1);
            if ne0 % layout.block_elems != 0 {
                return self.invalid_at(
                    ty_at,
                    format!(
                        "{what}: its first dimension {ne0} is not a multiple of {}'s block size {}",
                        layout.name, layout.block_elems
                    ),
                );
            }
            let Some(size) = (elements / layout.block_elems).checked_mul(layout.block_bytes) else {
                return self.invalid_at(ty_at, format!("{what} is too large"));
            };
            let offset = self.u64(&what)?;
            tensors.push(TensorHeader { name, ne, ty, offset, size });
        }

        let header_end = self.pos;
        let data_offset =
            if tensors.is_empty() { Some(header_end) } else { header_end.div_ceil(alignment).checked_mul(alignment) };
        let Some(data_offset) = data_offset.filter(|&d| d <= self.len) else {
            return self.invalid_at(header_end, "the file ends before its data section");
        };
        let mut expected = 0u64;
        for t in &tensors {
            if t.offset != expected {
                return self.invalid_at(
                    header_end,
                    format!(
                        "tensor {:?} has data offset {}, but llama.cpp expects {expected} (tensors are stored in order, each padded to {alignment} bytes)",
                        t.name, t.offset
                    ),
                );
            }
            let end = data_offset.checked_add(t.offset).and_then(|s| s.checked_add(t.size));
            if end.is_none_or(|e| e > self.len) {
                return self.invalid_at(
                    header_end,
                    format!(
                        "the data of tensor {:?} ({} bytes at offset {}) lies past the end of the file ({} bytes): truncated?",
                        t.name, t.size, t.offset, self.len
                    ),
                );
            }
            expected = t.offset.saturating_add(t.size.div_ceil(alignment).saturating_mul(alignment));
        }
        Ok(GgufHeader { version, metadata, tensors, alignment, data_offset, file_size: self.len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use llama_cpp_sys_2 as sys;

    /// The table agrees with the linked ggml's `type_traits` for every id it knows, and has
    /// no entry where ggml has a removed type (block size 0).
    #[test]
    fn type_layouts_match_ggml() {
        for id in 0..sys::GGML_TYPE_COUNT {
            // SAFETY: ids below GGML_TYPE_COUNT index ggml's table.
            let (blck, size) = unsafe { (sys::ggml_blck_size(id), sys::ggml_type_size(id)) };
            match type_layout(id) {
                Some(l) => {
                    assert_eq!((l.block_elems as i64, l.block_bytes as usize), (blck, size), "type {id} ({})", l.name);
                    // SAFETY: as above; ggml returns a static C string.
                    let name = unsafe { std::ffi::CStr::from_ptr(sys::ggml_type_name(id)) };
                    assert_eq!(name.to_str().unwrap(), l.name, "type {id}");
                }
                None => assert_eq!(blck, 0, "type {id} is missing from the table"),
            }
        }
        assert_eq!(type_layout(sys::GGML_TYPE_COUNT), None);
    }
}
