//! The prompt cache's file format, version [`VERSION`]; every number little-endian:
//!
//! ```text
//! magic        8 bytes  "sqalepc\n"
//! version      u32
//! key          u32 length, then the key as JSON (CacheKey)
//! tokens       u32 count, then each token id as i32
//! state        u64 length, then llama.cpp's sequence state
//! head state   u64 length, then the MTP head's draft context's sequence state (0: no head)
//! head carry   u64 length, then the head's drafter's carried hidden row (0: no head)
//! checksum     32 bytes, SHA-256 of everything before it
//! ```
//!
//! The two head parts are written when the MTP head drafts on the context that decoded the
//! prompt ([`CacheKey::mtp_drafting`]), and must be empty otherwise.
//!
//! A file is read whole and checked in that order: the magic, the version, the checksum (which
//! catches truncation and damage anywhere), then the lengths. Nothing of a file that fails a
//! check reaches llama.cpp.

use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{CacheKey, Refusal};

/// The first bytes of every prompt cache file.
pub(crate) const MAGIC: &[u8; 8] = b"sqalepc\n";

/// The format version this build writes and reads.
pub const VERSION: u32 = 2;

/// Bytes of the checksum at the end.
const CHECKSUM: usize = 32;

/// The longest key a header may hold.
pub(crate) const MAX_KEY: usize = 64 << 10;

/// What a checked file holds.
pub(crate) struct Saved {
    /// The key it was written under.
    pub(crate) key: CacheKey,
    /// The prefix's token ids.
    pub(crate) tokens: Vec<i32>,
    /// Where llama.cpp's sequence state after them lies in the file's bytes.
    pub(crate) state: std::ops::Range<usize>,
    /// Where the MTP head's draft context state lies (empty without the head).
    pub(crate) head_state: std::ops::Range<usize>,
    /// Where the head's drafter's carried state lies (empty without the head).
    pub(crate) head_carry: std::ops::Range<usize>,
}

/// The states a file holds after its header: the target context's, and the MTP head's two
/// parts (empty when the head does not draft).
#[derive(Clone, Copy)]
pub(crate) struct Parts<'a> {
    /// llama.cpp's sequence state of the target context.
    pub(crate) state: &'a [u8],
    /// The head's draft context's sequence state.
    pub(crate) head_state: &'a [u8],
    /// The head's drafter's carried state.
    pub(crate) head_carry: &'a [u8],
}

impl<'a> Parts<'a> {
    /// The target's state alone (no MTP head).
    #[cfg(test)]
    pub(crate) fn plain(state: &'a [u8]) -> Self {
        Parts { state, head_state: &[], head_carry: &[] }
    }
}

/// Writes a file's bytes to `out`: the header, the states and the checksum.
pub(crate) fn write(out: &mut impl Write, key: &CacheKey, tokens: &[i32], parts: Parts<'_>) -> std::io::Result<()> {
    let header = header(key, tokens, parts.state.len());
    let mut hasher = Sha256::new();
    hasher.update(&header);
    out.write_all(&header)?;
    let head_state_len = (parts.head_state.len() as u64).to_le_bytes();
    let head_carry_len = (parts.head_carry.len() as u64).to_le_bytes();
    let pieces: [&[u8]; 5] = [parts.state, &head_state_len, parts.head_state, &head_carry_len, parts.head_carry];
    for piece in pieces {
        hasher.update(piece);
        out.write_all(piece)?;
    }
    out.write_all(&hasher.finalize())
}

/// Everything before the state.
fn header(key: &CacheKey, tokens: &[i32], state_len: usize) -> Vec<u8> {
    let key = key.canonical();
    let mut h = Vec::with_capacity(32 + key.len() + 4 * tokens.len());
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&(key.len() as u32).to_le_bytes());
    h.extend_from_slice(&key);
    h.extend_from_slice(&(tokens.len() as u32).to_le_bytes());
    for t in tokens {
        h.extend_from_slice(&t.to_le_bytes());
    }
    h.extend_from_slice(&(state_len as u64).to_le_bytes());
    h
}

/// Checks a whole file's `bytes` and reads what it holds.
pub(crate) fn read(bytes: &[u8]) -> Result<Saved, Refusal> {
    let mut r = Reader { bytes, at: 0 };
    check_start(&mut r)?;
    let body = bytes.len().checked_sub(CHECKSUM).ok_or(Refusal::Damaged)?;
    if Sha256::digest(&bytes[..body])[..] != bytes[body..] {
        return Err(Refusal::Damaged);
    }
    let key = r.key()?;
    let n = r.u32()? as usize;
    let tokens =
        (0..n).map(|_| r.take(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))).collect::<Result<_, _>>()?;
    let state = r.part()?;
    let head_state = r.part()?;
    let head_carry = r.part()?;
    if r.at != body {
        return Err(Refusal::Damaged);
    }
    Ok(Saved { key, tokens, state, head_state, head_carry })
}

/// The key and token count of the file at `path`, from its header alone (for listing; the rest
/// is checked when it is used).
pub(crate) fn read_key(path: &Path) -> Result<(CacheKey, usize), Refusal> {
    let mut file = crate::regular_file::open(path).map_err(|e| Refusal::Unreadable(e.to_string()))?;
    let mut start = vec![0u8; 16];
    file.read_exact(&mut start).map_err(|_| Refusal::NotACacheFile)?;
    check_start(&mut Reader { bytes: &start, at: 0 })?;
    let key_len = u32::from_le_bytes([start[12], start[13], start[14], start[15]]) as usize;
    let mut rest = vec![0u8; key_len.min(MAX_KEY) + 4];
    file.read_exact(&mut rest).map_err(|_| Refusal::Damaged)?;
    start.extend_from_slice(&rest);
    let mut r = Reader { bytes: &start, at: 12 };
    let key = r.key()?;
    Ok((key, r.u32()? as usize))
}

/// Checks the magic and the version.
fn check_start(r: &mut Reader<'_>) -> Result<(), Refusal> {
    if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err(Refusal::NotACacheFile);
    }
    match r.u32().map_err(|_| Refusal::NotACacheFile)? {
        VERSION => Ok(()),
        found => Err(Refusal::Version { found }),
    }
}

/// Reads a file's bytes in order, every length checked against what is there.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Refusal> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(Refusal::Damaged)?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, Refusal> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, Refusal> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// A u64 length, then that many bytes: where they lie.
    fn part(&mut self) -> Result<std::ops::Range<usize>, Refusal> {
        let len = usize::try_from(self.u64()?).map_err(|_| Refusal::Damaged)?;
        let start = self.at;
        self.take(len)?;
        Ok(start..self.at)
    }

    fn key(&mut self) -> Result<CacheKey, Refusal> {
        let len = self.u32()? as usize;
        if len > MAX_KEY {
            return Err(Refusal::Damaged);
        }
        serde_json::from_slice(self.take(len)?).map_err(|_| Refusal::Damaged)
    }
}

#[cfg(test)]
mod tests {
    use super::super::key::sample;
    use super::*;

    fn file() -> Vec<u8> {
        let mut out = Vec::new();
        let parts = Parts { state: b"state bytes", head_state: b"head", head_carry: b"carry" };
        write(&mut out, &sample(), &[1, 2, 3], parts).unwrap();
        out
    }

    #[test]
    fn a_file_reads_back_whole() {
        let bytes = file();
        let saved = read(&bytes).unwrap();
        assert_eq!(saved.key, sample());
        assert_eq!(saved.tokens, [1, 2, 3]);
        assert_eq!(&bytes[saved.state], b"state bytes");
        assert_eq!(&bytes[saved.head_state], b"head");
        assert_eq!(&bytes[saved.head_carry], b"carry");
        let mut plain = Vec::new();
        write(&mut plain, &sample(), &[1], Parts::plain(b"s")).unwrap();
        let saved = read(&plain).unwrap();
        assert_eq!((&plain[saved.state], saved.head_state.len(), saved.head_carry.len()), (&b"s"[..], 0, 0));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.bin");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_key(&path).unwrap(), (sample(), 3));
    }

    #[test]
    fn damage_anywhere_is_refused() {
        let bytes = file();
        for at in [20, bytes.len() - 40, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(matches!(read(&bad), Err(Refusal::Damaged)), "byte {at}");
        }
        for len in [0, 5, 12, 40, bytes.len() - 1] {
            assert!(read(&bytes[..len]).is_err(), "cut at {len}");
        }
    }

    #[test]
    fn other_files_and_versions_are_named() {
        assert!(matches!(read(b"GGUF and more bytes than a header"), Err(Refusal::NotACacheFile)));
        let mut other = file();
        other[8..12].copy_from_slice(&7u32.to_le_bytes());
        assert!(matches!(read(&other), Err(Refusal::Version { found: 7 })));
    }
}
