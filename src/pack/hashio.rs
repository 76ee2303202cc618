//! Readers and writers that hash and count what passes through them.

use std::io::{Read, Write};

use sha2::{Digest, Sha256};

use super::FileSum;

/// Progress is reported at most once per this many bytes.
pub(super) const TICK: u64 = 8 << 20;

/// Hashes and counts what is read from or written to `inner`.
pub(super) struct Hashing<T> {
    inner: T,
    hasher: Sha256,
    bytes: u64,
}

impl<T> Hashing<T> {
    /// Starts hashing `inner`.
    pub(super) fn new(inner: T) -> Self {
        Hashing { inner, hasher: Sha256::new(), bytes: 0 }
    }

    /// Bytes so far.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The wrapped reader or writer.
    pub(super) fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The wrapped value and the size and SHA-256 of what passed.
    pub(super) fn finish(self) -> (T, FileSum) {
        let sum = FileSum { bytes: self.bytes, sha256: crate::hash::hex(&self.hasher.finalize()) };
        (self.inner, sum)
    }

    fn take(&mut self, data: &[u8]) {
        self.hasher.update(data);
        self.bytes += data.len() as u64;
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.take(&buf[..n]);
        Ok(n)
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.take(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Calls `tick` with the bytes read so far, every [`TICK`] bytes and at the end.
pub(super) struct Ticking<'a, R> {
    inner: R,
    bytes: u64,
    last: u64,
    tick: &'a mut dyn FnMut(u64),
}

impl<'a, R> Ticking<'a, R> {
    /// Starts counting `inner`.
    pub(super) fn new(inner: R, tick: &'a mut dyn FnMut(u64)) -> Self {
        Ticking { inner, bytes: 0, last: 0, tick }
    }
}

impl<R: Read> Read for Ticking<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        if n == 0 || self.bytes - self.last >= TICK {
            self.last = self.bytes;
            (self.tick)(self.bytes);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_what_passes() {
        let mut r = Hashing::new(&b"abc"[..]);
        let mut out = Vec::new();
        std::io::copy(&mut r, &mut out).unwrap();
        let (_, sum) = r.finish();
        assert_eq!(sum, FileSum { bytes: 3, sha256: crate::hash::sha256_hex(b"abc") });
        let mut w = Hashing::new(Vec::new());
        w.write_all(b"abc").unwrap();
        assert_eq!(w.finish().1.sha256, crate::hash::sha256_hex(b"abc"));
    }
}
