//! Packs for air-gapped sites: one tar archive holding a model as sqale's cache keeps it (the
//! GGUF, its manifest, the reference loop `sqale_agent.py`), optionally a `sqale` binary for the
//! site's target, and `sqale-pack.json`, the SHA-256 and size of every file.
//!
//! [`pack`] writes the archive (whole or not at all) and its SHA-256 beside it as
//! `ARCHIVE.sha256`; [`unpack`] verifies every file against the manifest (and the archive against
//! its digest, when one is at hand) before it installs anything into [`crate::cache::root`].
//! The archive is plain, uncompressed tar: GGUF weights do not compress, and plain `tar` can
//! take the binary out of it on a site that has no sqale yet.

mod binary;
mod error;
mod hashio;
mod install;
mod read;
mod staging;
mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use error::PackError;
pub use install::{unpack, UnpackOptions, UnpackReport};
pub use write::{pack, BinarySource, PackReport, PackSource};

use crate::pull::Entry;

/// The archive format this sqale writes and reads.
pub const FORMAT: u32 = 1;
/// The manifest's name in the archive (its last entry).
pub const MANIFEST: &str = "sqale-pack.json";

/// The largest manifest (the archive's or a model's) read: a few kilobytes in practice.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 16 << 20;
/// The binary's name in the archive (`tar -xf ARCHIVE bin/sqale` takes it out).
pub const BINARY: &str = "bin/sqale";
/// The reference loop's name in the archive.
pub const PROMPT: &str = "model/sqale_agent.py";

/// What an archive holds: the model it installs as, an optional binary, and every file's sum.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PackManifest {
    /// The archive format ([`FORMAT`]).
    pub format: u32,
    /// The sqale version that packed it.
    pub sqale_version: String,
    /// The model, as the cache and the registry name it.
    pub model: PackedModel,
    /// The target triple of the binary at [`BINARY`], if the archive holds one.
    #[serde(default)]
    pub binary_target: Option<String>,
    /// Every file of the archive but the manifest: its name in the archive, its size and SHA-256.
    pub files: BTreeMap<String, FileSum>,
}

/// The model an archive installs: where in the cache it goes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PackedModel {
    /// The registry alias (or the repository id again).
    pub alias: String,
    /// The Hugging Face repository id.
    pub repo: String,
    /// The revision.
    pub revision: String,
    /// The type (`q4_k_m`; one of llama.cpp's file types), the GGUF's name in the cache.
    pub out_type: String,
}

/// A file's size and SHA-256 (hex).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileSum {
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256, 64 lowercase hex digits.
    pub sha256: String,
}

/// Progress of packing or unpacking, in bytes of the files.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// The file being read or written (its name in the archive).
    pub file: &'a str,
    /// Bytes done so far, all files together.
    pub done: u64,
    /// Bytes in all (unpacking: the archive's size).
    pub total: u64,
}

impl PackedModel {
    /// The model of `entry` in type `out_type`.
    pub fn new(entry: &Entry, out_type: &str) -> Self {
        PackedModel {
            alias: entry.alias.clone(),
            repo: entry.repo.clone(),
            revision: entry.revision.clone(),
            out_type: out_type.to_string(),
        }
    }

    /// The GGUF's name in the archive.
    pub fn gguf_name(&self) -> String {
        format!("model/{}.gguf", self.out_type)
    }

    /// The model manifest's name in the archive.
    pub fn manifest_name(&self) -> String {
        format!("model/{}.json", self.out_type)
    }

    /// The registry entry, with the repository id, revision and type checked as `pull` checks
    /// them, so that no folder made from them leaves the cache.
    pub fn entry(&self) -> Result<Entry, PackError> {
        let entry = crate::pull::resolve(&format!("{}@{}", self.repo, self.revision))?;
        if !sqale_convert::quantize::FILE_TYPES.iter().any(|(_, name)| *name == self.out_type) {
            let why = "it is none of llama.cpp's file types (q4_k_m, q8_0, f16, ...)".to_string();
            return Err(PackError::BadType { out_type: self.out_type.clone(), why });
        }
        Ok(entry)
    }

    /// Whether `sqale ask` without a model file finds this one: the registry's default model in
    /// its default type.
    pub fn is_default(&self) -> bool {
        crate::pull::default_entry()
            .is_ok_and(|d| d.repo == self.repo && d.revision == self.revision && d.default_type == self.out_type)
    }
}

/// Where the installed files of `model` go in the cache: its folder and each file's path there.
pub fn install_paths(model: &PackedModel) -> Result<(PathBuf, Vec<(String, PathBuf)>), PackError> {
    let dir = crate::pull::model_dir(&model.entry()?);
    let files = [model.gguf_name(), model.manifest_name(), PROMPT.to_string()]
        .into_iter()
        .map(|name| {
            let path = dir.join(name.trim_start_matches("model/"));
            (name, path)
        })
        .collect();
    Ok((dir, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(repo: &str, revision: &str, out_type: &str) -> PackedModel {
        PackedModel { alias: repo.into(), repo: repo.into(), revision: revision.into(), out_type: out_type.into() }
    }

    #[test]
    fn a_manifest_cannot_lead_outside_the_cache() {
        assert!(model("trl-lab/qwen3.5-2b-grpo-synsql", "main", "q4_k_m").entry().is_ok());
        for (repo, rev, ty) in [("../x", "main", "q4_k_m"), ("a/b", "../../etc", "q4_k_m"), ("a/b", "main", "../x")] {
            assert!(model(repo, rev, ty).entry().is_err(), "{repo}@{rev} {ty}");
        }
        let (dir, files) = install_paths(&model("org/name", "main", "f16")).unwrap();
        assert!(files.iter().all(|(_, p)| p.parent() == Some(dir.as_path())));
    }

    #[test]
    fn the_default_model_is_the_registry_default_in_its_default_type() {
        let d = crate::pull::default_entry().unwrap();
        assert!(PackedModel::new(&d, &d.default_type).is_default());
        assert!(!PackedModel::new(&d, "f16").is_default());
    }
}
