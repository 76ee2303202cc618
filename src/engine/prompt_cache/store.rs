//! The prompt cache as a decode core uses it: the state saved for a prompt, looked up, checked
//! and handed over, or written after the prompt was decoded; whatever goes wrong kept as a note.

use std::path::{Path, PathBuf};

use super::{file, CacheKey, ModelIdentity, PromptCacheError, Refusal};
use crate::atomic::AtomicFile;
use crate::engine::{cpu_kernels, tiled_kernel_on, Model};
use crate::generate::Markup;

/// A core's prompt cache: the folder, the key less the prompt, and the notes so far.
pub(crate) struct DiskCache {
    dir: PathBuf,
    /// The key with an empty prompt hash.
    base: CacheKey,
    /// The largest file that can hold a state of this context ([`max_file_bytes`]).
    max_bytes: u64,
    notes: Vec<PromptCacheError>,
}

/// The largest prompt cache file a context of `ctx` tokens per sequence over `model` can have
/// written, generously: twice the KV cache of a full sequence at four bytes a value, twice the
/// recurrent state of every snapshot, 64 MiB for llama.cpp's own headers, and the file's
/// header. A larger file is refused before it is read.
pub(crate) fn max_file_bytes(model: &Model, ctx: u32, recurrent_snapshots: u32) -> u64 {
    let shape = crate::memory::Shape::of(model);
    let kv = crate::memory::Shape { kv_value_bytes: 4, ..shape.clone() }.kv_cache_bytes(u64::from(ctx));
    let recurrent = shape.recurrent_state_bytes().saturating_mul(u64::from(recurrent_snapshots) + 1);
    let header = file::MAX_KEY as u64 + 4 * u64::from(ctx) + 1024;
    kv.saturating_mul(2).saturating_add(recurrent.saturating_mul(2)).saturating_add(64 << 20).saturating_add(header)
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
            repacked: model.repacked(),
            llama_cpp: env!("SQALE_LLAMA_CPP").into(),
            cpu_kernels: cpu_kernels().join(","),
            sqale: env!("CARGO_PKG_VERSION").into(),
            model_description: describe(model),
        };
        let max_bytes = max_file_bytes(model, ctx, recurrent_snapshots);
        Some(DiskCache { dir, base, max_bytes, notes: Vec::new() })
    }

    fn key(&self, prompt: &Markup) -> CacheKey {
        CacheKey { prompt_sha256: prompt.digest(), ..self.base.clone() }
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// The state saved for `prompt`, whose tokens are `tokens`, when a file holds it and passes
    /// every check; `None` otherwise (a refusal is noted).
    pub(crate) fn load(&mut self, prompt: &Markup, tokens: &[i32]) -> Option<Loaded> {
        let key = self.key(prompt);
        let path = self.path(&key);
        // A regular file only (a FIFO would block, a link to a device read forever), and no
        // larger than a state of this context can be.
        let bytes = match crate::regular_file::read_at_most(&path, self.max_bytes) {
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
    pub(crate) fn save(&mut self, prompt: &Markup, tokens: &[i32], state: &[u8]) {
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
    pub(crate) fn unsaved(&mut self, prompt: &Markup, why: String) {
        let path = self.path(&self.key(prompt));
        self.notes.push(PromptCacheError::Write { path, source: std::io::Error::other(why) });
    }

    /// The notes so far, handed over.
    pub(crate) fn take_notes(&mut self) -> Vec<PromptCacheError> {
        std::mem::take(&mut self.notes)
    }
}

/// The model in words, for [`CacheKey::model_description`]: architecture, name, parameters.
fn describe(model: &Model) -> String {
    let arch = model.meta("general.architecture").unwrap_or_default();
    let name = model.meta("general.name").unwrap_or_else(|| "unnamed".into());
    format!("{arch}, {name}, {:.1}M parameters", model.n_params() as f64 / 1e6)
}

/// Where the state lies in a file's `bytes`, when they pass every check for `key` and `tokens`.
fn check(bytes: &[u8], key: &CacheKey, tokens: &[i32]) -> Result<std::ops::Range<usize>, Refusal> {
    let saved = file::read(bytes)?;
    if let Some(field) = key.first_difference(&saved.key) {
        let (was, now) = (&saved.key.model_description, &key.model_description);
        if field == "model" && !was.is_empty() && was != now {
            return Err(Refusal::OtherModel { written_for: was.clone(), now: now.clone() });
        }
        return Err(Refusal::OtherKey { field });
    }
    if saved.tokens != tokens {
        return Err(Refusal::OtherTokens);
    }
    Ok(saved.state)
}

#[cfg(test)]
mod tests {
    use super::super::key::sample;
    use super::*;

    fn saved(key: &CacheKey) -> Vec<u8> {
        let mut out = Vec::new();
        file::write(&mut out, key, &[1, 2], b"state").unwrap();
        out
    }

    #[test]
    fn another_model_at_the_same_path_is_named_as_such_and_a_changed_one_as_stale() {
        let asked = sample();
        let other = CacheKey {
            model: ModelIdentity { bytes: 99, ..asked.model.clone() },
            model_description: "qwen35, Qwen3.5 2B, 1880.0M parameters".into(),
            ..sample()
        };
        let why = check(&saved(&other), &asked, &[1, 2]).unwrap_err();
        assert!(matches!(&why, Refusal::OtherModel { .. }), "{why:?}");
        let text = why.to_string();
        assert!(text.contains("Qwen3.5 2B") && text.contains(&asked.model_description), "{text}");
        let touched = CacheKey { model: ModelIdentity { modified_ns: 5, ..asked.model.clone() }, ..sample() };
        let why = check(&saved(&touched), &asked, &[1, 2]).unwrap_err().to_string();
        assert!(why.contains("stale: the model file changed"), "{why}");
        // A file from before descriptions were kept reads, and is called stale.
        let old = CacheKey { model_description: String::new(), ..touched };
        assert!(check(&saved(&old), &asked, &[1, 2]).unwrap_err().to_string().contains("stale"));
        assert!(check(&saved(&asked), &asked, &[1, 2]).is_ok());
    }
}
