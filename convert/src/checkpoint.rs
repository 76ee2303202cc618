//! Reading a Hugging Face checkpoint folder: config, safetensors shards (memory-mapped), and the
//! tokenizer and generation files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use safetensors::tensor::{Dtype, Metadata};
use serde_json::Value;

use crate::ConvertError;

/// One memory-mapped shard and its parsed header.
pub struct Shard {
    /// The file.
    pub path: PathBuf,
    mmap: Mmap,
    /// Where the data section starts (after the 8-byte length and the JSON header).
    data_start: usize,
    metadata: Metadata,
}

/// Where a tensor lives and what it is.
#[derive(Debug, Clone)]
pub struct SourceTensor {
    /// Name in the checkpoint.
    pub name: String,
    /// Index of its shard.
    pub shard: usize,
    /// Element type.
    pub dtype: Dtype,
    /// PyTorch shape (row-major, outermost first).
    pub shape: Vec<usize>,
}

impl SourceTensor {
    /// Elements in the tensor.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }
}

/// A checkpoint folder, opened.
pub struct Checkpoint {
    /// The folder.
    pub dir: PathBuf,
    /// `config.json`.
    pub config: Value,
    /// The architecture named in `config.json` (`architectures[0]`).
    pub architecture: String,
    /// The shards.
    pub shards: Vec<Shard>,
    /// Every tensor, by name.
    pub tensors: BTreeMap<String, SourceTensor>,
    /// `tokenizer.json`.
    pub tokenizer: Value,
    /// `tokenizer_config.json`, if present.
    pub tokenizer_config: Option<Value>,
    /// The chat template (from `tokenizer_config.json` or `chat_template.jinja`).
    pub chat_template: Option<String>,
    /// `generation_config.json`, if present.
    pub generation_config: Option<Value>,
}

fn read_json(path: &Path) -> Result<Value, ConvertError> {
    let text = crate::regular_file::read_text_at_most(path, crate::regular_file::MAX_CONFIG_BYTES)
        .map_err(|e| ConvertError::Io { path: path.to_path_buf(), source: e })?;
    serde_json::from_str(&text).map_err(|e| ConvertError::BadJson { path: path.to_path_buf(), reason: e.to_string() })
}

fn read_optional_json(path: &Path) -> Result<Option<Value>, ConvertError> {
    if path.is_file() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}

impl Checkpoint {
    /// Opens a checkpoint folder: reads the JSON files, maps every shard and checks its header
    /// against the file size (a truncated shard is an error here, before anything is written).
    pub fn open(dir: &Path) -> Result<Self, ConvertError> {
        if !dir.is_dir() {
            return Err(ConvertError::NotACheckpoint { dir: dir.to_path_buf(), reason: "no such folder".into() });
        }
        let config_path = dir.join("config.json");
        if !config_path.is_file() {
            return Err(ConvertError::NotACheckpoint {
                dir: dir.to_path_buf(),
                reason: "config.json is missing".into(),
            });
        }
        let config = read_json(&config_path)?;
        let architecture =
            config.get("architectures").and_then(|a| a.get(0)).and_then(Value::as_str).unwrap_or("").to_string();

        let shard_files = shard_files(dir)?;
        let mut shards = Vec::new();
        let mut tensors = BTreeMap::new();
        for (i, path) in shard_files.iter().enumerate() {
            let file =
                crate::regular_file::open(path).map_err(|e| ConvertError::Io { path: path.clone(), source: e })?;
            // SAFETY: the file is only read; a concurrent writer would be a user error that at
            // worst garbles the output, which the shape checks and tests would catch.
            let mmap = unsafe { Mmap::map(&file) }.map_err(|e| ConvertError::Io { path: path.clone(), source: e })?;
            let bad = |reason: String| ConvertError::BadShard { path: path.clone(), reason };
            check_data_offsets(&mmap).map_err(bad)?;
            let (n, metadata) = safetensors::SafeTensors::read_metadata(&mmap).map_err(|e| bad(format!("{e:?}")))?;
            for (name, info) in metadata.tensors() {
                if let Some(other) = tensors.get(&name).map(|t: &SourceTensor| &shard_files[t.shard]) {
                    return Err(bad(format!("tensor {name} is also in {}", other.display())));
                }
                tensors.insert(
                    name.clone(),
                    SourceTensor { name: name.clone(), shard: i, dtype: info.dtype, shape: info.shape.clone() },
                );
            }
            shards.push(Shard { path: path.clone(), mmap, data_start: 8 + n, metadata });
        }

        let tok_path = dir.join("tokenizer.json");
        if !tok_path.is_file() {
            return Err(ConvertError::NotACheckpoint {
                dir: dir.to_path_buf(),
                reason: "tokenizer.json is missing".into(),
            });
        }
        let tokenizer = read_json(&tok_path)?;
        let tokenizer_config = read_optional_json(&dir.join("tokenizer_config.json"))?;
        let mut chat_template =
            tokenizer_config.as_ref().and_then(|c| c.get("chat_template")).and_then(Value::as_str).map(str::to_string);
        if chat_template.is_none() {
            let jinja = dir.join("chat_template.jinja");
            if jinja.is_file() {
                chat_template = Some(
                    crate::regular_file::read_text_at_most(&jinja, crate::regular_file::MAX_CONFIG_BYTES)
                        .map_err(|e| ConvertError::Io { path: jinja.clone(), source: e })?,
                );
            }
        }
        let generation_config = read_optional_json(&dir.join("generation_config.json"))?;
        Ok(Checkpoint {
            dir: dir.to_path_buf(),
            config,
            architecture,
            shards,
            tensors,
            tokenizer,
            tokenizer_config,
            chat_template,
            generation_config,
        })
    }

    /// The raw little-endian bytes of a tensor.
    pub fn bytes(&self, t: &SourceTensor) -> &[u8] {
        let shard = &self.shards[t.shard];
        let info = shard.metadata.info(&t.name).expect("tensor names come from this shard's header");
        let (a, b) = info.data_offsets;
        &shard.mmap[shard.data_start + a..shard.data_start + b]
    }

    /// Tells the OS the tensor's pages are no longer needed, so that resident memory stays near
    /// one tensor rather than growing to the whole checkpoint.
    pub fn release(&self, t: &SourceTensor) {
        #[cfg(unix)]
        {
            let shard = &self.shards[t.shard];
            if let Some(info) = shard.metadata.info(&t.name) {
                let (a, b) = info.data_offsets;
                let page = 4096;
                let start = (shard.data_start + a) / page * page;
                let end = shard.data_start + b;
                // SAFETY: the mapping is read-only and file-backed: dropping its pages only means
                // they are read from the file again if touched later.
                let _ = unsafe {
                    shard.mmap.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
        #[cfg(not(unix))]
        let _ = t;
    }

    /// A text-model hyperparameter: `text_config.<key>`, else `<key>` at the root.
    pub fn hparam(&self, key: &str) -> Option<&Value> {
        self.config.get("text_config").and_then(|t| t.get(key)).or_else(|| self.config.get(key))
    }
}

/// Refuses a header whose data offsets lie past the end of the file, before the safetensors
/// crate sees it: its own size check adds the offsets unchecked, which overflows (a panic in a
/// debug build) for offsets near 2^64; and the message here names the tensor.
fn check_data_offsets(file: &[u8]) -> Result<(), String> {
    let Some(n) = file.get(..8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))) else {
        return Ok(()); // the safetensors crate reports it
    };
    let Some(header) = usize::try_from(n).ok().and_then(|n| file.get(8..8usize.checked_add(n)?)) else {
        return Ok(());
    };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<Value>(header) else {
        return Ok(());
    };
    let data_len = (file.len() - 8 - header.len()) as u64;
    for (name, info) in &map {
        let offsets = info.get("data_offsets").and_then(Value::as_array);
        for end in offsets.into_iter().flatten().filter_map(Value::as_u64) {
            if end > data_len {
                return Err(format!(
                    "tensor {name}: data offsets {} lie past the end of the data ({data_len} bytes)",
                    info["data_offsets"]
                ));
            }
        }
    }
    Ok(())
}

/// The shard files: from `model.safetensors.index.json` if present (every file it names must
/// exist), else `model.safetensors`, else every `*.safetensors` in the folder.
fn shard_files(dir: &Path) -> Result<Vec<PathBuf>, ConvertError> {
    let index = dir.join("model.safetensors.index.json");
    if index.is_file() {
        let v = read_json(&index)?;
        let map = v
            .get("weight_map")
            .and_then(Value::as_object)
            .ok_or_else(|| ConvertError::BadJson { path: index.clone(), reason: "no weight_map object".into() })?;
        let mut files: Vec<String> = map.values().filter_map(Value::as_str).map(str::to_string).collect();
        files.sort();
        files.dedup();
        let mut out = Vec::new();
        for f in files {
            let p = dir.join(&f);
            if !p.is_file() {
                return Err(ConvertError::MissingShard { path: p, index: index.clone() });
            }
            out.push(p);
        }
        return Ok(out);
    }
    let single = dir.join("model.safetensors");
    if single.is_file() {
        return Ok(vec![single]);
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| ConvertError::Io { path: dir.to_path_buf(), source: e })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
        .collect();
    out.sort();
    if out.is_empty() {
        return Err(ConvertError::NotACheckpoint { dir: dir.to_path_buf(), reason: "no *.safetensors files".into() });
    }
    Ok(out)
}
