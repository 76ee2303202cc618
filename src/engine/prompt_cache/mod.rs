//! The prompt cache on disk: the system turn's decoded state (llama.cpp's sequence state: the KV
//! cells and, on hybrid models, the recurrent state), saved by the first process that decodes it
//! and restored by later ones instead of decoded.
//!
//! One file per model, prompt and context settings, in [`default_dir`] unless told otherwise,
//! named by [`CacheKey::file_name`]. Its header holds the whole [`CacheKey`] and the prefix's
//! tokens, and a SHA-256 checksum covers it all ([`VERSION`] of the format is in `file.rs`). A
//! file is written under a temporary name and renamed into place. A file that is damaged, of
//! another format version, another build or another model file, or that llama.cpp does not
//! take, is refused with a [`PromptCacheError::Refused`] note and the prompt decoded instead;
//! the file is then written again.
//!
//! With the MTP head drafting, the file holds the head's part too: its draft context's sequence
//! state (the head's own KV cells) and the hidden row its drafter carries to the next token, so
//! that a restored prompt drafts as a decoded one does. Such a context keeps a file of its own
//! ([`CacheKey::mtp_drafting`]); a damaged or mismatched head part refuses the whole file.

mod file;
mod key;
mod store;

use std::path::{Path, PathBuf};

pub(crate) use file::Parts;
pub use file::VERSION;
pub use key::{CacheKey, ModelIdentity, SAMPLE_BYTES};
pub(crate) use store::DiskCache;

/// The folder the prompt cache lives in by default: `prompt-cache` under [`crate::cache::root`].
pub fn default_dir() -> PathBuf {
    crate::cache::root().join("prompt-cache")
}

/// Why a prompt cache file was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The file does not start as a prompt cache file does.
    #[error("it is not a sqale prompt cache file")]
    NotACacheFile,
    /// Another version of the format.
    #[error("it is of prompt cache format {found}, and this sqale reads format {}", VERSION)]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The checksum does not match, or a length points past the end: damaged or truncated.
    #[error("it is damaged or truncated (its checksum does not match its contents)")]
    Damaged,
    /// Its key differs from the one asked for in `field`.
    #[error("{}", other_key(field))]
    OtherKey {
        /// The first field of [`CacheKey`] that differs.
        field: String,
    },
    /// Its tokens are not the prompt's.
    #[error("its tokens are not this prompt's")]
    OtherTokens,
    /// llama.cpp did not take the saved state.
    #[error("llama.cpp did not take the saved state")]
    Rejected,
    /// The file could not be opened as a regular file (a FIFO, a device, a folder, no access).
    #[error("it cannot be read as a file: {0}")]
    Unreadable(String),
    /// The file was written for another model than the one now at its path.
    #[error("it was written for another model ({written_for}), not the one this model path holds now ({now}): a file copied from another model's cache, or a model file replaced since")]
    OtherModel {
        /// The model it was written for.
        written_for: String,
        /// The model at the path now.
        now: String,
    },
}

/// What a key that differs in `field` means.
fn other_key(field: &str) -> String {
    match field {
        "model" => "it is stale: the model file changed since it was written".into(),
        "llama_cpp" | "sqale" | "cpu_kernels" | "tiled_kernel" => {
            format!("it is stale: it was written by another build ({field} differs)")
        }
        _ => format!("it was written for another {field} (a file renamed or copied in)"),
    }
}

/// Something the prompt cache could not do. None of these stops an episode: the prompt is
/// decoded instead, and the engine keeps them as notes for its caller.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptCacheError {
    /// A file was found and not used.
    #[error("prompt cache {path} not used: {reason}; the prompt was decoded instead and the file written again")]
    Refused {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: Refusal,
    },
    /// A file could not be read.
    #[error("could not read the prompt cache {path} ({source}); the prompt was decoded instead")]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (the prompt is decoded again next time).
    #[error("could not write the prompt cache {path} ({source}); later runs decode the prompt again (check that its folder is writable and the disk has room)")]
    Write {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The folder could not be listed or emptied.
    #[error("could not {what} the prompt cache folder {dir} ({source})")]
    Folder {
        /// `list` or `clear`.
        what: &'static str,
        /// The folder.
        dir: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// One file of the prompt cache.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CacheFile {
    /// Its path.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its key, when its header reads.
    pub key: Option<CacheKey>,
    /// Tokens of the saved prefix.
    pub tokens: usize,
    /// Why it would not be used, when its header does not read.
    pub problem: Option<String>,
}

/// Every file of the prompt cache in `dir` (none when the folder does not exist).
pub fn list(dir: &Path) -> Result<Vec<CacheFile>, PromptCacheError> {
    let folder = |source| PromptCacheError::Folder { what: "list", dir: dir.to_path_buf(), source };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(folder(e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(folder)?.path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let (key, tokens, problem) = match file::read_key(&path) {
            Ok((key, tokens)) => (Some(key), tokens, None),
            Err(r) => (None, 0, Some(r.to_string())),
        };
        files.push(CacheFile { path, bytes, key, tokens, problem });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The files in `dir` saved for the model file at `model` (by its path), each with whether it
/// is stale (the file changed since).
pub fn for_model(dir: &Path, model: &Path) -> Result<Vec<(CacheFile, bool)>, PromptCacheError> {
    let path = store::absolute(model);
    let identity = ModelIdentity::of(model).ok();
    Ok(list(dir)?
        .into_iter()
        .filter_map(|f| {
            let key = f.key.as_ref()?;
            let stale = identity.as_ref() != Some(&key.model);
            (key.model_path == path).then_some((f, stale))
        })
        .collect())
}

/// What [`clear`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cleared {
    /// Files removed.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
}

/// Removes every prompt cache file in `dir` (`*.bin`, and the temporary files of writes that
/// were cut short); anything else in the folder stays.
pub fn clear(dir: &Path) -> Result<Cleared, PromptCacheError> {
    let folder = |source| PromptCacheError::Folder { what: "clear", dir: dir.to_path_buf(), source };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cleared::default()),
        Err(e) => return Err(folder(e)),
    };
    let mut cleared = Cleared::default();
    for entry in entries {
        let entry = entry.map_err(folder)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.ends_with(".bin") || (name.starts_with(".sqale-") && name.ends_with(".part"));
        if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
        std::fs::remove_file(entry.path()).map_err(folder)?;
        cleared.files += 1;
        cleared.bytes += bytes;
    }
    Ok(cleared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_another_model_is_not_said_to_be_a_replaced_model() {
        let r = Refusal::OtherModel { written_for: "llama, SmolLM2".into(), now: "qwen35, stand-in".into() };
        let text = r.to_string();
        assert!(text.contains("a file copied from another model's cache, or a model file replaced since"), "{text}");
        assert!(text.contains("llama, SmolLM2") && text.contains("qwen35, stand-in"), "{text}");
    }
}
