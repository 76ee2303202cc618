//! The prompt cache as a decode core uses it: the state saved for a prompt, looked up, checked
//! and handed over, or written after the prompt was decoded; whatever goes wrong kept as a note.

use std::path::{Path, PathBuf};

use super::{file, CacheKey, ModelIdentity, PromptCacheError, Refusal};
use crate::atomic::AtomicFile;
use crate::engine::{cpu_kernels, tiled_kernel_on, Model};

/// A core's prompt cache: the folder, the key less the prompt, and the notes so far.
pub(crate) struct DiskCache {
    dir: PathBuf,
    /// The key with an empty prompt hash.
    base: CacheKey,
    notes: Vec<PromptCacheError>,
}

/// A state read from a file and checked.
pub(crate) struct Loaded {
    /// The file.
    pub(crate) path: PathBuf,
    /// The file's bytes.
    bytes: Vec<u8>,
    /// Where the state lies in them.
    state: std::ops::Range<usize>,
}

impl Loaded {
    /// llama.cpp's sequence state.
    pub(crate) fn state(&self) -> &[u8] {
        &self.bytes[self.state.clone()]
    }
}

/// `path` made absolute (as given when that fails), as a string.
pub(super) fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

impl DiskCache {
    /// The cache in `dir` for a context over `model` that decodes `batch` tokens at a time,
    /// `ctx` per sequence, with `recurrent_snapshots` snapshots of recurrent state, on
    /// `threads` threads, with a KV cache of `kv_type`. An unreadable model file gives no cache.
    pub(crate) fn new(
        dir: PathBuf,
        model: &Model,
        ctx: u32,
        batch: u32,
        recurrent_snapshots: u32,
        threads: u32,
        kv_type: &str,
    ) -> Option<Self> {
        let identity = ModelIdentity::of(model.path()).ok()?;
        let base = CacheKey {
            model_path: absolute(model.path()),
            model: identity,
            prompt_sha256: String::new(),
            ctx,
            batch,
            kv_type: kv_type.into(),
            gpu_layers: model.gpu_layers(),
            mtp_head: model.has_mtp_head(),
            recurrent_snapshots,
            threads,
            tiled_kernel: tiled_kernel_on(),
            llama_cpp: env!("SQALE_LLAMA_CPP").into(),
            cpu_kernels: cpu_kernels().join(","),
            sqale: env!("CARGO_PKG_VERSION").into(),
        };
        Some(DiskCache { dir, base, notes: Vec::new() })
    }

    fn key(&self, prompt: &str) -> CacheKey {
        CacheKey { prompt_sha256: crate::hash::sha256_hex(prompt), ..self.base.clone() }
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// The state saved for `prompt`, whose tokens are `tokens`, when a file holds it and passes
    /// every check; `None` otherwise (a refusal is noted).
    pub(crate) fn load(&mut self, prompt: &str, tokens: &[i32]) -> Option<Loaded> {
        let key = self.key(prompt);
        let path = self.path(&key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(source) => {
                self.notes.push(PromptCacheError::Read { path, source });
                return None;
            }
        };
        match check(&bytes, &key, tokens) {
            Ok(state) => Some(Loaded { path, bytes, state }),
            Err(reason) => {
                self.notes.push(PromptCacheError::Refused { path, reason });
                None
            }
        }
    }

    /// Notes that llama.cpp did not take the state read from `path`.
    pub(crate) fn rejected(&mut self, path: PathBuf) {
        self.notes.push(PromptCacheError::Refused { path, reason: Refusal::Rejected });
    }

    /// Saves `state` as `prompt`'s, whose tokens are `tokens` (a failure is noted).
    pub(crate) fn save(&mut self, prompt: &str, tokens: &[i32], state: &[u8]) {
        let key = self.key(prompt);
        let path = self.path(&key);
        let written = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let mut out = AtomicFile::create(&path)?;
            file::write(&mut out, &key, tokens, state)?;
            out.commit()
        });
        if let Err(source) = written {
            self.notes.push(PromptCacheError::Write { path, source });
        }
    }

    /// Notes that the state after `prompt` could not be taken from llama.cpp, for `why`.
    pub(crate) fn unsaved(&mut self, prompt: &str, why: String) {
        let path = self.path(&self.key(prompt));
        self.notes.push(PromptCacheError::Write { path, source: std::io::Error::other(why) });
    }

    /// The notes so far, handed over.
    pub(crate) fn take_notes(&mut self) -> Vec<PromptCacheError> {
        std::mem::take(&mut self.notes)
    }
}

/// Where the state lies in a file's `bytes`, when they pass every check for `key` and `tokens`.
fn check(bytes: &[u8], key: &CacheKey, tokens: &[i32]) -> Result<std::ops::Range<usize>, Refusal> {
    let saved = file::read(bytes)?;
    if let Some(field) = key.first_difference(&saved.key) {
        return Err(Refusal::OtherKey { field });
    }
    if saved.tokens != tokens {
        return Err(Refusal::OtherTokens);
    }
    Ok(saved.state)
}
