//! The reference's distributions of one episode on disk: `divergence/reference/<hash>.topk`,
//! written whole or not at all.
//!
//! Little-endian: the magic `SQKLD01\n`, then `n_vocab`, `k` and the token count as u32; then per
//! generated token its id, turn and place (u32, u32, u8), the number of top entries (u32) and
//! that many (id u32, log-probability f32). At `k` = 32 a token takes 269 bytes, so an episode
//! of 3,000 generated tokens is about 0.8 MB, and 300 questions about 240 MB: far less than
//! llama.cpp's KLD file, which keeps the whole vocabulary per token (about 0.5 MB per token for
//! Qwen3.5's 248k-token vocabulary).

use std::path::Path;

use super::measure::RefToken;
use super::segment::Place;

const MAGIC: &[u8; 8] = b"SQKLD01\n";

/// One episode's reference distributions.
#[derive(Debug, Clone, PartialEq)]
pub struct RefEpisode {
    /// The reference's vocabulary size.
    pub n_vocab: u32,
    /// Top entries kept per token.
    pub k: u32,
    /// One entry per generated token, in order.
    pub tokens: Vec<RefToken>,
}

/// Why a reference file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a reference file or is cut short.
    #[error("{0} is not a whole sqale reference file (cut short or another format); delete it and run the same command again to recompute it")]
    Corrupt(std::path::PathBuf),
}

impl RefEpisode {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(20 + self.tokens.len() * (13 + 8 * self.k as usize));
        b.extend_from_slice(MAGIC);
        for v in [self.n_vocab, self.k, self.tokens.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for t in &self.tokens {
            b.extend_from_slice(&t.token.to_le_bytes());
            b.extend_from_slice(&t.turn.to_le_bytes());
            b.push(t.place.code());
            b.extend_from_slice(&(t.top.len() as u32).to_le_bytes());
            for &(id, lp) in &t.top {
                b.extend_from_slice(&id.to_le_bytes());
                b.extend_from_slice(&lp.to_le_bytes());
            }
        }
        b
    }

    /// Reads the bytes [`Self::to_bytes`] wrote; `None` when they are not such a file.
    pub fn from_bytes(b: &[u8]) -> Option<RefEpisode> {
        let mut r = Reader { b, at: 0 };
        if r.take(8)? != MAGIC {
            return None;
        }
        let (n_vocab, k, n) = (r.u32()?, r.u32()?, r.u32()?);
        let mut tokens = Vec::with_capacity((n as usize).min(b.len() / 13));
        for _ in 0..n {
            let (token, turn) = (r.u32()?, r.u32()?);
            let place = Place::from_code(r.take(1)?[0])?;
            let m = r.u32()? as usize;
            if m > b.len() / 8 {
                return None;
            }
            let mut top = Vec::with_capacity(m);
            for _ in 0..m {
                top.push((r.u32()?, f32::from_le_bytes(r.take(4)?.try_into().ok()?)));
            }
            tokens.push(RefToken { token, turn, place, top });
        }
        (r.at == b.len()).then_some(RefEpisode { n_vocab, k, tokens })
    }

    /// Writes the file at `path` (a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<(), StoreError> {
        crate::atomic::write(path, self.to_bytes())
            .map_err(|source| StoreError::Io { path: path.to_path_buf(), source })
    }

    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<RefEpisode, StoreError> {
        let b = crate::regular_file::read_at_most(path, MAX_FILE_BYTES)
            .map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
        RefEpisode::from_bytes(&b).ok_or_else(|| StoreError::Corrupt(path.to_path_buf()))
    }
}

/// The largest reference file read: an episode of 16,384 tokens at top 64 is about 8 MiB.
pub(crate) const MAX_FILE_BYTES: u64 = 1 << 30;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_written_and_a_cut_one_is_refused() {
        let e = RefEpisode {
            n_vocab: 10,
            k: 2,
            tokens: vec![
                RefToken { token: 3, turn: 0, place: Place::Thinking, top: vec![(3, -0.1), (4, -2.5)] },
                RefToken { token: 9, turn: 1, place: Place::Sql, top: vec![(1, -0.7), (9, -0.9)] },
            ],
        };
        let b = e.to_bytes();
        assert_eq!(RefEpisode::from_bytes(&b), Some(e.clone()));
        for cut in [0, 7, 8, 20, b.len() - 1] {
            assert_eq!(RefEpisode::from_bytes(&b[..cut]), None, "cut at {cut}");
        }
        let mut longer = b.clone();
        longer.push(0);
        assert_eq!(RefEpisode::from_bytes(&longer), None);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.topk");
        e.write(&path).unwrap();
        assert_eq!(RefEpisode::read(&path).unwrap(), e);
        std::fs::write(&path, &b[..30]).unwrap();
        assert!(matches!(RefEpisode::read(&path), Err(StoreError::Corrupt(_))));
    }
}
