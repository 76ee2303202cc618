//! The header reader: a GGUF file's metadata and tensor descriptions, validated with the checks
//! llama.cpp makes, without reading the tensor data.

use std::collections::HashSet;
use std::io::{BufReader, Read};
use std::path::Path;

use super::value::tag;
use super::{type_layout, Array, Value, ALIGNMENT, ALIGNMENT_KEY, MAX_DIMS, MAX_NAME};

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
    pub metadata: Vec<(String, Value)>,
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
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A tensor by name.
    pub fn tensor(&self, name: &str) -> Option<&TensorHeader> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// `general.architecture`, if present and a string.
    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture").and_then(Value::as_str)
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
    let file = crate::regular_file::open(path).map_err(io)?;
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

/// A stream that knows its position and the file's length, so that every count and length can
/// be checked against the bytes left and every error can name its byte.
struct Reader<R> {
    inner: R,
    pos: u64,
    len: u64,
}

/// Reading the parts of a file: integers, strings, values.
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

    /// A value: its type id, then its bytes.
    fn value(&mut self, what: &str) -> Result<Value, ReadError> {
        let ty = self.u32(what)?;
        if ty == tag::ARRAY {
            return Ok(Value::Array(self.array_value(what)?));
        }
        Ok(match ty {
            tag::U8 => Value::U8(self.array::<1>(what)?[0]),
            tag::I8 => Value::I8(self.array::<1>(what)?[0] as i8),
            tag::U16 => Value::U16(u16::from_le_bytes(self.array(what)?)),
            tag::I16 => Value::I16(i16::from_le_bytes(self.array(what)?)),
            tag::U32 => Value::U32(u32::from_le_bytes(self.array(what)?)),
            tag::I32 => Value::I32(i32::from_le_bytes(self.array(what)?)),
            tag::F32 => Value::F32(f32::from_le_bytes(self.array(what)?)),
            tag::BOOL => Value::Bool(self.bool(what)?),
            tag::STR => Value::Str(self.string(what)?),
            tag::U64 => Value::U64(u64::from_le_bytes(self.array(what)?)),
            tag::I64 => Value::I64(i64::from_le_bytes(self.array(what)?)),
            tag::F64 => Value::F64(f64::from_le_bytes(self.array(what)?)),
            _ => return self.invalid(format!("{what} has unknown GGUF type {ty}")),
        })
    }

    /// An array's elements' type id, count and elements.
    fn array_value(&mut self, what: &str) -> Result<Array, ReadError> {
        let ty_at = self.pos;
        let ty = self.u32(what)?;
        let elem_bytes = match ty {
            tag::U8 | tag::I8 | tag::BOOL => 1,
            tag::U16 | tag::I16 => 2,
            tag::U32 | tag::I32 | tag::F32 => 4,
            tag::STR | tag::U64 | tag::I64 | tag::F64 => 8,
            tag::ARRAY => {
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
                Array::$variant(v)
            }};
        }
        Ok(match ty {
            tag::U8 => read_all!(U8, self.array::<1>(what)?[0]),
            tag::I8 => read_all!(I8, self.array::<1>(what)?[0] as i8),
            tag::U16 => read_all!(U16, u16::from_le_bytes(self.array(what)?)),
            tag::I16 => read_all!(I16, i16::from_le_bytes(self.array(what)?)),
            tag::U32 => read_all!(U32, u32::from_le_bytes(self.array(what)?)),
            tag::I32 => read_all!(I32, i32::from_le_bytes(self.array(what)?)),
            tag::F32 => read_all!(F32, f32::from_le_bytes(self.array(what)?)),
            tag::BOOL => read_all!(Bool, self.bool(what)?),
            tag::STR => read_all!(Str, self.string(what)?),
            tag::U64 => read_all!(U64, u64::from_le_bytes(self.array(what)?)),
            tag::I64 => read_all!(I64, i64::from_le_bytes(self.array(what)?)),
            _ => read_all!(F64, f64::from_le_bytes(self.array(what)?)),
        })
    }
}

/// Reading and checking the header's sections.
impl<R: Read> Reader<R> {
    fn header(&mut self) -> Result<GgufHeader, ReadError> {
        let version = self.magic_and_version()?;
        let n_tensors = self.count("the tensor count", MIN_TENSOR_BYTES)?;
        let n_kv = self.count("the metadata count", MIN_KV_BYTES)?;
        let metadata = self.metadata(n_kv)?;
        let alignment = self.alignment(&metadata)?;
        let mut tensors: Vec<TensorHeader> = Vec::new();
        let mut names = HashSet::new();
        for i in 0..n_tensors {
            tensors.push(self.tensor(i, &mut names)?);
        }
        let data_offset = self.data_section(&tensors, alignment)?;
        Ok(GgufHeader { version, metadata, tensors, alignment, data_offset, file_size: self.len })
    }

    fn magic_and_version(&mut self) -> Result<u32, ReadError> {
        let magic: [u8; 4] = self.array("the magic")?;
        if &magic != b"GGUF" {
            return self.invalid_at(0, format!("the file starts with {magic:02x?}, not the GGUF magic \"GGUF\""));
        }
        match self.u32("the version")? {
            v @ (2 | 3) => Ok(v),
            1 => self.invalid_at(4, "GGUF version 1 is no longer supported by llama.cpp"),
            v if v & 0xFFFF == 0 => {
                self.invalid_at(4, format!("version {v:#x}: a big-endian GGUF file, which this machine cannot read"))
            }
            v => self.invalid_at(4, format!("GGUF version {v} is not supported (2 and 3 are)")),
        }
    }

    /// `n_kv` key/value pairs: keys unique, non-empty and without NUL bytes.
    fn metadata(&mut self, n_kv: u64) -> Result<Vec<(String, Value)>, ReadError> {
        let mut metadata: Vec<(String, Value)> = Vec::new();
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
            let value = self.value(&format!("metadata {key:?}"))?;
            metadata.push((key, value));
        }
        Ok(metadata)
    }

    /// [`ALIGNMENT_KEY`] when set (a `u32` power of two), else [`ALIGNMENT`].
    fn alignment(&self, metadata: &[(String, Value)]) -> Result<u64, ReadError> {
        match metadata.iter().find(|(k, _)| k == ALIGNMENT_KEY) {
            None => Ok(ALIGNMENT),
            Some((_, Value::U32(a))) if a.is_power_of_two() => Ok(u64::from(*a)),
            Some((_, Value::U32(a))) => self.invalid(format!("{ALIGNMENT_KEY} is {a}, not a power of two")),
            Some((_, v)) => self.invalid(format!("{ALIGNMENT_KEY} must be a u32, found {v:?}")),
        }
    }

    /// Tensor description `i`: a name not among `names` (which it joins), its dimensions, a known
    /// type whose blocks its first dimension fills, and an offset.
    fn tensor(&mut self, i: u64, names: &mut HashSet<String>) -> Result<TensorHeader, ReadError> {
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
        let (ne, elements) = self.dimensions(&what)?;
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
        Ok(TensorHeader { name, ne, ty, offset, size })
    }

    /// A tensor's dimension count and dimensions (at most [`MAX_DIMS`], none negative as an
    /// `i64`, their product within an `i64`); returns them and their product.
    fn dimensions(&mut self, what: &str) -> Result<(Vec<u64>, u64), ReadError> {
        let dims_at = self.pos;
        let n_dims = self.u32(what)?;
        if n_dims as usize > MAX_DIMS {
            return self.invalid_at(dims_at, format!("{what} has {n_dims} dimensions; at most {MAX_DIMS} are allowed"));
        }
        let mut ne = Vec::with_capacity(n_dims as usize);
        let mut elements: u64 = 1;
        for _ in 0..n_dims {
            let d = self.u64(what)?;
            if d > i64::MAX as u64 {
                return self.invalid_at(dims_at, format!("{what} has a negative dimension ({})", d as i64));
            }
            elements = match elements.checked_mul(d).filter(|&n| n <= i64::MAX as u64) {
                Some(n) => n,
                None => return self.invalid_at(dims_at, format!("{what} has too many elements")),
            };
            ne.push(d);
        }
        Ok((ne, elements))
    }

    /// The data section's offset (the header's end, aligned), checking that the tensors lie in
    /// order, each padded to `alignment`, and inside the file.
    fn data_section(&self, tensors: &[TensorHeader], alignment: u64) -> Result<u64, ReadError> {
        let header_end = self.pos;
        let data_offset =
            if tensors.is_empty() { Some(header_end) } else { header_end.div_ceil(alignment).checked_mul(alignment) };
        let Some(data_offset) = data_offset.filter(|&d| d <= self.len) else {
            return self.invalid_at(header_end, "the file ends before its data section");
        };
        let mut expected = 0u64;
        for t in tensors {
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
        Ok(data_offset)
    }
}
