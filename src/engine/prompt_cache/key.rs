//! What a saved prompt state depends on: the model file, the prompt, the context's settings and
//! the build. Two keys that differ anywhere name two different files; a file whose key differs
//! from the one asked for is refused, naming the first field that differs.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::hash::hex;

/// Bytes hashed at each end of a model file for its identity.
pub const SAMPLE_BYTES: u64 = 8 << 20;

/// Which model file: its size, its modification time and a SHA-256 of its first and last
/// [`SAMPLE_BYTES`] (the GGUF header and metadata, and the last tensors). Hashing a whole
/// 1.3 GB file takes seconds on a small board, far more than restoring a prompt; these change
/// whenever the file is replaced, re-converted or re-quantised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelIdentity {
    /// The file's size in bytes.
    pub bytes: u64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub modified_ns: u64,
    /// SHA-256 (hex) of its first and last [`SAMPLE_BYTES`].
    pub sample_sha256: String,
}

impl ModelIdentity {
    /// The identity of the file at `path`.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let mut file = crate::regular_file::open(path)?;
        let meta = file.metadata()?;
        let bytes = meta.len();
        let modified = meta.modified()?.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let mut hasher = Sha256::new();
        let head = bytes.min(SAMPLE_BYTES);
        hash_range(&mut file, 0, head, &mut hasher)?;
        let tail_start = bytes.saturating_sub(SAMPLE_BYTES).max(head);
        hash_range(&mut file, tail_start, bytes - tail_start, &mut hasher)?;
        Ok(ModelIdentity {
            bytes,
            modified_ns: u64::try_from(modified.as_nanos()).unwrap_or(u64::MAX),
            sample_sha256: hex(&hasher.finalize()),
        })
    }
}

/// Hashes `len` bytes of `file` from `start`.
fn hash_range(file: &mut std::fs::File, start: u64, len: u64, hasher: &mut Sha256) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(start))?;
    let mut part = file.take(len);
    std::io::copy(&mut part, hasher)?;
    Ok(())
}

/// Everything a saved prompt state depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    /// The model file's path, made absolute.
    pub model_path: String,
    /// The model file's identity.
    pub model: ModelIdentity,
    /// SHA-256 (hex) of the prompt text whose state is saved.
    pub prompt_sha256: String,
    /// Tokens of context per sequence.
    pub ctx: u32,
    /// Tokens decoded per batch (the prefix's rounding depends on its batches).
    pub batch: u32,
    /// The KV cache's type (`f16` by default, `f32` on asking).
    pub kv_type: String,
    /// Layers on a GPU.
    pub gpu_layers: u32,
    /// Whether the model's MTP head was loaded.
    pub mtp_head: bool,
    /// Whether the head drafts on the context: its draft context's state and carried hidden row
    /// are then saved too (the file's head parts); false in files that predate them.
    #[serde(default)]
    pub mtp_drafting: bool,
    /// Recurrent-state snapshots per sequence (for rolling back drafts on hybrid models).
    pub recurrent_snapshots: u32,
    /// Threads that decoded it: how llama.cpp splits work may round differently with another
    /// count, and a restored state must be the one this process would decode.
    pub threads: u32,
    /// Whether llama.cpp's tiled K-quant kernel runs.
    pub tiled_kernel: bool,
    /// Whether the weights were repacked for llama.cpp's CPU kernels (prefill then takes the
    /// repacked GEMM); false in files that predate it.
    #[serde(default)]
    pub repacked: bool,
    /// The llama.cpp sqale is built with.
    pub llama_cpp: String,
    /// llama.cpp's CPU kernels in use.
    pub cpu_kernels: String,
    /// sqale's version.
    pub sqale: String,
    /// The model in words (architecture, name, parameters), to tell "another model" from "the
    /// same model, changed" when the identity differs; empty in files that predate it.
    #[serde(default)]
    pub model_description: String,
}

impl CacheKey {
    /// The file name of the state saved under this key: a hash of what the state is for (the
    /// model's path, the prompt, the context's settings), not of the model file's identity or
    /// the build, so that a file left by an older model file or build is found, refused as
    /// stale and replaced rather than left beside the new one.
    pub fn file_name(&self) -> String {
        let mut slot = serde_json::json!([
            self.model_path,
            self.prompt_sha256,
            self.ctx,
            self.batch,
            self.kv_type,
            self.gpu_layers,
            self.mtp_head,
            self.recurrent_snapshots,
            self.threads
        ]);
        // A context where the head drafts keeps its own file (a plain context with the same
        // settings would otherwise replace it at every other run); other names are unchanged.
        if self.mtp_drafting {
            if let Some(a) = slot.as_array_mut() {
                a.push("mtp-drafting".into());
            }
        }
        let digest = Sha256::digest(slot.to_string());
        format!("{}.bin", hex(&digest[..16]))
    }

    /// The key as the bytes stored in a file's header (JSON, fields in declaration order).
    pub(crate) fn canonical(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The first field (as the JSON names it, e.g. `model` or `ctx`) where `other` differs.
    pub fn first_difference(&self, other: &CacheKey) -> Option<String> {
        let (a, b) = (serde_json::to_value(self).ok()?, serde_json::to_value(other).ok()?);
        let (a, b) = (a.as_object()?, b.as_object()?);
        a.iter().find(|(k, v)| b.get(*k) != Some(v)).map(|(k, _)| k.clone())
    }
}

/// A key for tests.
#[cfg(test)]
pub(super) fn sample() -> CacheKey {
    CacheKey {
        model_path: "/m.gguf".into(),
        model: ModelIdentity { bytes: 10, modified_ns: 1, sample_sha256: "ab".into() },
        prompt_sha256: "cd".into(),
        ctx: 4096,
        batch: 512,
        kv_type: "f32".into(),
        gpu_layers: 0,
        mtp_head: false,
        mtp_drafting: false,
        recurrent_snapshots: 0,
        threads: 2,
        tiled_kernel: true,
        repacked: false,
        llama_cpp: "llama-cpp-sys-2 0".into(),
        cpu_kernels: "AVX2".into(),
        sqale: "0".into(),
        model_description: "llama, Sample, 1.0M parameters".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_differ_name_different_files_and_the_field() {
        let a = sample();
        let b = CacheKey { batch: 256, ..sample() };
        assert_ne!(a.file_name(), b.file_name());
        assert_eq!(a.file_name(), sample().file_name());
        assert_eq!(a.first_difference(&b).as_deref(), Some("batch"));
        assert_eq!(a.first_difference(&a), None);
        let drafting = CacheKey { mtp_drafting: true, ..sample() };
        assert_ne!(a.file_name(), drafting.file_name(), "the head's context keeps its own file");
        let rebuilt = CacheKey { sqale: "1".into(), ..sample() };
        assert_eq!(a.file_name(), rebuilt.file_name(), "another build replaces the file");
        assert_eq!(a.first_difference(&rebuilt).as_deref(), Some("sqale"));
    }

    #[test]
    fn identity_follows_the_bytes_at_either_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gguf");
        let mut data = vec![7u8; (2 * SAMPLE_BYTES + 100) as usize];
        std::fs::write(&path, &data).unwrap();
        let first = ModelIdentity::of(&path).unwrap();
        assert_eq!(first.bytes, data.len() as u64);
        let last = data.len() - 1;
        data[last] = 8;
        std::fs::write(&path, &data).unwrap();
        assert_ne!(ModelIdentity::of(&path).unwrap().sample_sha256, first.sample_sha256);
    }
}
