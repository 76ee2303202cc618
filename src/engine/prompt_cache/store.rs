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
    /// Where the target's state, the head's state and its carried row lie in them.
    parts: [std::ops::Range<usize>; 3],
}

impl Loaded {
    /// llama.cpp's sequence state of the target context.
    pub(crate) fn state(&self) -> &[u8] {
        &self.bytes[self.parts[0].clone()]
    }

    /// The MTP head's draft context's sequence state (empty without the head).
    pub(crate) fn head_state(&self) -> &[u8] {
        &self.bytes[self.parts[1].clone()]
    }

    /// The head's drafter's carried state (empty without the head).
    pub(crate) fn head_carry(&self) -> &[u8] {
        &self.bytes[self.parts[2].clone()]
    }
}

/// `path` made absolute (as given when that fails), as a string.
pub(super) fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

impl DiskCache {
    /// The cache in `dir` for a context over `model` that decodes `batch` tokens at a time,
    /// `ctx` per sequence, with `recurrent_snapshots` snapshots of recurrent state, on
    /// `threads` threads, with a KV cache of `kv_type`, with the MTP head drafting or not
    /// (`mtp_drafting`). An unreadable model file gives no cache.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        dir: PathBuf,
        model: &Model,
        ctx: u32,
        batch: u32,
        recurrent_snapshots: u32,
        threads: u32,
        kv_type: &str,
        mtp_drafting: bool,
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
            mtp_drafting,
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
            Ok(parts) => Some(Loaded { path, bytes, parts }),
            Err(reason) => {
                self.notes.push(PromptCacheError::Refused { path, reason });
                None
            }
        }
    }

    /// Notes that llama.cpp did not take the state read from `path`.
    pub(crate) fn rejected(&mut self, path: PathBuf) {
        self.refused(path, Refusal::Rejected);
    }

    /// Notes that the file at `path` was refused for `reason` after it was read.
    pub(crate) fn refused(&mut self, path: PathBuf, reason: Refusal) {
        self.notes.push(PromptCacheError::Refused { path, reason });
    }

    /// Saves `parts` as `prompt`'s state, whose tokens are `tokens` (a failure is noted).
    pub(crate) fn save(&mut self, prompt: &Markup, tokens: &[i32], parts: file::Parts<'_>) {
        let key = self.key(prompt);
        let path = self.path(&key);
        let written = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let mut out = AtomicFile::create(&path)?;
            file::write(&mut out, &key, tokens, parts)?;
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

/// Where the states lie in a file's `bytes` (the target's, the head's, its carried row), when
/// they pass every check for `key` and `tokens`.
fn check(bytes: &[u8], key: &CacheKey, tokens: &[i32]) -> Result<[std::ops::Range<usize>; 3], Refusal> {
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
    // The head's parts are there exactly when the head drafted (the key says so).
    let head = !saved.head_state.is_empty() && !saved.head_carry.is_empty();
    let none = saved.head_state.is_empty() && saved.head_carry.is_empty();
    if (key.mtp_drafting && !head) || (!key.mtp_drafting && !none) {
        return Err(Refusal::Damaged);
    }
    Ok([saved.state, saved.head_state, saved.head_carry])
}

#[cfg(test)]
mod tests {
    use super::super::key::sample;
    use super::*;

    fn saved(key: &CacheKey) -> Vec<u8> {
        let mut out = Vec::new();
        let parts = if key.mtp_drafting {
            file::Parts { state: b"state", head_state: b"head", head_carry: b"carry" }
        } else {
            file::Parts::plain(b"state")
        };
        file::write(&mut out, key, &[1, 2], parts).unwrap();
        out
    }

    #[test]
    fn the_head_parts_are_there_exactly_when_the_head_drafted() {
        let drafting = CacheKey { mtp_drafting: true, ..sample() };
        let parts = check(&saved(&drafting), &drafting, &[1, 2]).unwrap();
        assert_eq!(parts.iter().map(|r| r.len()).collect::<Vec<_>>(), [5, 4, 5]);
        assert!(check(&saved(&sample()), &sample(), &[1, 2]).unwrap()[1].is_empty());
        // A file whose key says the head drafted but holds no head part, and the reverse.
        let mut out = Vec::new();
        file::write(&mut out, &drafting, &[1, 2], file::Parts::plain(b"state")).unwrap();
        assert!(matches!(check(&out, &drafting, &[1, 2]), Err(Refusal::Damaged)));
        let mut out = Vec::new();
        let parts = file::Parts { state: b"state", head_state: b"head", head_carry: &[] };
        file::write(&mut out, &sample(), &[1, 2], parts).unwrap();
        assert!(matches!(check(&out, &sample(), &[1, 2]), Err(Refusal::Damaged)));
        // A plain context's key does not take a drafting context's file.
        let why = check(&saved(&drafting), &sample(), &[1, 2]).unwrap_err();
        assert!(matches!(&why, Refusal::OtherKey { field } if field == "mtp_drafting"), "{why:?}");
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
