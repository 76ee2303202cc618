//! A streaming GGUF v3 writer.
//!
//! GGUF puts every tensor's name, shape, type and offset before the data, so the writer takes a
//! plan (all tensor descriptions, computed up front from the checkpoint's headers), writes the
//! header, then asks for each tensor's bytes in order. Only one tensor is in memory at a time.
//! The file is written to a temporary file beside the destination and renamed into place when
//! complete: an interrupted or failed write leaves nothing behind.

use std::io::{BufWriter, Seek, Write};
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
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".sqale-convert-")
        .suffix(".gguf.part")
        .tempfile_in(dir)
        .map_err(WriteError::Io)?;
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
            return Err(WriteError::Size {
                name: t.name.clone(),
                expected: t.bytes(),
                actual: counting.count,
            });
        }
        w.write_all(&vec![0u8; pad(t.bytes()) as usize]).map_err(io)?;
        on_tensor(i);
    }
    let tmp = w.into_inner().map_err(|e| WriteError::Io(e.into_error()))?;
    let total = tmp.as_file().metadata().map_err(io)?.len();
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| WriteError::Io(e.error))?;
    Ok(total)
}

/// Why a GGUF file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError<E> {
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
