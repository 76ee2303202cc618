//! The streaming writer: a plan of every tensor up front, the header, then each tensor's bytes
//! in order, into a file that appears whole or not at all.

use std::collections::HashSet;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use super::{Array, GgmlType, Value, ALIGNMENT, MAX_DIMS, MAX_NAME};

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
    write_header(&mut w, metadata, tensors).map_err(WriteError::Io)?;
    for (i, t) in tensors.iter().enumerate() {
        let mut counting = Counting { inner: &mut w, count: 0 };
        data(i, &mut counting).map_err(WriteError::Data)?;
        if counting.count != t.bytes() {
            return Err(WriteError::Size { name: t.name.clone(), expected: t.bytes(), actual: counting.count });
        }
        w.write_all(&vec![0u8; pad(t.bytes()) as usize]).map_err(WriteError::Io)?;
        on_tensor(i);
    }
    let tmp = w.into_inner().map_err(|e| WriteError::Io(e.into_error()))?;
    tmp.commit().map_err(WriteError::Io)
}

/// The header: magic, version 3, counts, metadata, tensor descriptions (offsets laid out in
/// order, each padded to [`ALIGNMENT`]), and the padding up to the data section.
fn write_header(
    w: &mut (impl Write + Seek),
    metadata: &[(String, Value)],
    tensors: &[TensorInfo],
) -> std::io::Result<()> {
    w.write_all(b"GGUF")?;
    w.write_all(&3u32.to_le_bytes())?;
    w.write_all(&(tensors.len() as u64).to_le_bytes())?;
    w.write_all(&(metadata.len() as u64).to_le_bytes())?;
    for (k, v) in metadata {
        write_str(w, k)?;
        write_value(w, v)?;
    }
    let mut offset = 0u64;
    for t in tensors {
        write_str(w, &t.name)?;
        w.write_all(&(t.ne.len() as u32).to_le_bytes())?;
        for d in &t.ne {
            w.write_all(&d.to_le_bytes())?;
        }
        w.write_all(&t.ty.id().to_le_bytes())?;
        w.write_all(&offset.to_le_bytes())?;
        offset += t.bytes() + pad(t.bytes());
    }
    let pos = w.stream_position()?;
    w.write_all(&vec![0u8; pad(pos) as usize])
}

/// Bytes of padding after `n` bytes, up to the next multiple of [`ALIGNMENT`].
fn pad(n: u64) -> u64 {
    (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT
}

fn write_str(w: &mut impl Write, s: &str) -> std::io::Result<()> {
    w.write_all(&(s.len() as u64).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

/// A value as a file stores it: its type id, then its bytes (an array: the elements' type id,
/// the count, the elements).
fn write_value(w: &mut impl Write, v: &Value) -> std::io::Result<()> {
    w.write_all(&v.tag().to_le_bytes())?;
    match v {
        Value::U8(x) => w.write_all(&[*x]),
        Value::I8(x) => w.write_all(&x.to_le_bytes()),
        Value::U16(x) => w.write_all(&x.to_le_bytes()),
        Value::I16(x) => w.write_all(&x.to_le_bytes()),
        Value::U32(x) => w.write_all(&x.to_le_bytes()),
        Value::I32(x) => w.write_all(&x.to_le_bytes()),
        Value::F32(x) => w.write_all(&x.to_le_bytes()),
        Value::Bool(x) => w.write_all(&[u8::from(*x)]),
        Value::Str(s) => write_str(w, s),
        Value::U64(x) => w.write_all(&x.to_le_bytes()),
        Value::I64(x) => w.write_all(&x.to_le_bytes()),
        Value::F64(x) => w.write_all(&x.to_le_bytes()),
        Value::Array(a) => {
            w.write_all(&a.tag().to_le_bytes())?;
            w.write_all(&(a.len() as u64).to_le_bytes())?;
            write_elements(w, a)
        }
    }
}

fn write_elements(w: &mut impl Write, a: &Array) -> std::io::Result<()> {
    fn each<T: Copy, const N: usize>(
        w: &mut impl Write,
        xs: &[T],
        bytes: impl Fn(T) -> [u8; N],
    ) -> std::io::Result<()> {
        xs.iter().try_for_each(|&x| w.write_all(&bytes(x)))
    }
    match a {
        Array::U8(xs) => w.write_all(xs),
        Array::I8(xs) => each(w, xs, i8::to_le_bytes),
        Array::U16(xs) => each(w, xs, u16::to_le_bytes),
        Array::I16(xs) => each(w, xs, i16::to_le_bytes),
        Array::U32(xs) => each(w, xs, u32::to_le_bytes),
        Array::I32(xs) => each(w, xs, i32::to_le_bytes),
        Array::F32(xs) => each(w, xs, f32::to_le_bytes),
        Array::Bool(xs) => each(w, xs, |b| [u8::from(b)]),
        Array::Str(xs) => xs.iter().try_for_each(|s| write_str(w, s)),
        Array::U64(xs) => each(w, xs, u64::to_le_bytes),
        Array::I64(xs) => each(w, xs, i64::to_le_bytes),
        Array::F64(xs) => each(w, xs, f64::to_le_bytes),
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

/// What llama.cpp's reader (and [`super::read_header`]) refuses, checked before anything is
/// written.
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
