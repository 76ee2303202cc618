//! `pack`: a model (from the cache or given as files) and an optional binary into one archive.

use std::collections::BTreeMap;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::binary::{check_binary, check_target};
use super::error::io;
use super::hashio::{Hashing, Ticking};
use super::{FileSum, PackError, PackManifest, PackedModel, Progress, BINARY, FORMAT, MANIFEST, PROMPT};
use crate::pull::{Entry, Manifest};

/// Where the model to pack comes from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PackSource {
    /// What `pull` installed in sqale's cache: the GGUF, its manifest, its `sqale_agent.py`.
    Cache,
    /// A GGUF file and, optionally, the reference loop that goes with it.
    Files {
        /// The GGUF.
        gguf: PathBuf,
        /// The `sqale_agent.py` (none: the site uses sqale's built-in prompt).
        prompt: Option<PathBuf>,
    },
}

/// A `sqale` binary to add, built for the site.
#[derive(Debug, Clone)]
pub struct BinarySource {
    /// The binary.
    pub path: PathBuf,
    /// Its target triple (`aarch64-unknown-linux-gnu`).
    pub target: String,
}

/// What [`pack`] wrote.
#[derive(Debug, Clone, Serialize)]
pub struct PackReport {
    /// The archive.
    pub archive: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256.
    pub sha256: String,
    /// The file beside it holding that SHA-256 (`sha256sum -c` reads it).
    pub sha256_file: PathBuf,
    /// The manifest it holds.
    pub manifest: PackManifest,
}

/// One file going into the archive.
struct Item {
    name: String,
    path: PathBuf,
    mode: u32,
}

/// What the model's source gives: its files, and its cached manifest if it has one.
struct Plan {
    gguf: PathBuf,
    manifest: Option<(PathBuf, Manifest)>,
    prompt: Option<PathBuf>,
}

fn plan(entry: &Entry, out_type: &str, source: &PackSource) -> Result<Plan, PackError> {
    let (gguf, prompt) = match source {
        PackSource::Cache => {
            let gguf = crate::pull::cached_gguf(entry, out_type).ok_or_else(|| PackError::NotInstalled {
                repo: entry.repo.clone(),
                revision: entry.revision.clone(),
                out_type: out_type.to_string(),
                path: crate::pull::model_dir(entry).join(format!("{out_type}.gguf")),
            })?;
            (gguf, crate::pull::cached_prompt_file(entry))
        }
        PackSource::Files { gguf, prompt } => (gguf.clone(), prompt.clone()),
    };
    sqale_convert::gguf::read_header(&gguf).map_err(|source| PackError::NotGguf { path: gguf.clone(), source })?;
    if let Some(p) = &prompt {
        crate::prompt::Prompt::from_python_file(p)?;
    }
    let manifest = match source {
        PackSource::Cache => cached_manifest(&gguf)?,
        PackSource::Files { .. } => None,
    };
    Ok(Plan { gguf, manifest, prompt })
}

fn cached_manifest(gguf: &Path) -> Result<Option<(PathBuf, Manifest)>, PackError> {
    let path = gguf.with_extension("json");
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let m = serde_json::from_str(&text).map_err(|e| PackError::Io { path: path.clone(), source: e.into() })?;
    Ok(Some((path, m)))
}

/// The manifest of a GGUF packed from a file: what `pull` would have written for it.
fn file_manifest(model: &PackedModel, gguf: &Path, sum: &FileSum) -> Manifest {
    Manifest {
        repo: model.repo.clone(),
        revision: model.revision.clone(),
        snapshot: format!("packed from {}", gguf.display()),
        out_type: model.out_type.clone(),
        files: BTreeMap::new(),
        gguf_sha256: sum.sha256.clone(),
        mtp_head: None,
        imatrix_sha256: None,
        gguf_bytes: sum.bytes,
        sqale_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Packs `entry` in type `out_type` from `source`, and `binary` if given, into `out` (written
/// whole or not at all), with its SHA-256 beside it as `out.sha256`. Every file is streamed and
/// hashed once.
pub fn pack(
    entry: &Entry,
    out_type: &str,
    source: &PackSource,
    binary: Option<&BinarySource>,
    out: &Path,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<PackReport, PackError> {
    let model = PackedModel::new(entry, out_type);
    model.entry()?;
    if let Some(b) = binary {
        check_target(&b.target)?;
        check_binary(&b.path, &b.target)?;
    }
    let plan = plan(entry, out_type, source)?;
    let mut items = vec![Item { name: model.gguf_name(), path: plan.gguf.clone(), mode: 0o644 }];
    items.extend(plan.prompt.iter().map(|p| Item { name: PROMPT.into(), path: p.clone(), mode: 0o644 }));
    items.extend(binary.map(|b| Item { name: BINARY.into(), path: b.path.clone(), mode: 0o755 }));

    let mut writer = Writer::create(out)?;
    writer.total = items.iter().map(|i| std::fs::metadata(&i.path).map(|m| m.len()).unwrap_or(0)).sum();
    let mut files = BTreeMap::new();
    for item in &items {
        files.insert(item.name.clone(), writer.file(item, on_progress)?);
    }
    let gguf_sum = &files[&model.gguf_name()];
    let model_manifest = match &plan.manifest {
        Some((path, m)) if m.gguf_sha256 != gguf_sum.sha256 => {
            return Err(PackError::StaleCache {
                gguf: plan.gguf,
                manifest: path.clone(),
                actual: gguf_sum.sha256.clone(),
                recorded: m.gguf_sha256.clone(),
            })
        }
        Some((path, _)) => std::fs::read(path).map_err(io(path))?,
        None => json(&file_manifest(&model, &plan.gguf, gguf_sum)),
    };
    files.insert(model.manifest_name(), writer.bytes(&model.manifest_name(), &model_manifest)?);
    let manifest = PackManifest {
        format: FORMAT,
        sqale_version: env!("CARGO_PKG_VERSION").to_string(),
        model,
        binary_target: binary.map(|b| b.target.clone()),
        files,
    };
    writer.bytes(MANIFEST, &json(&manifest))?;
    writer.commit(manifest)
}

fn json(value: &impl Serialize) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap_or_default();
    v.push(b'\n');
    v
}

/// The archive being written: a tar stream hashed on its way into a whole-or-nothing file.
struct Writer {
    out: PathBuf,
    tar: tar::Builder<Hashing<BufWriter<crate::atomic::AtomicFile>>>,
    done: u64,
    total: u64,
}

fn header(size: u64, mode: u32) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_size(size);
    h.set_mode(mode);
    // A fixed time: the same files make the same archive.
    h.set_mtime(0);
    h.set_entry_type(tar::EntryType::Regular);
    h
}

impl Writer {
    fn create(out: &Path) -> Result<Self, PackError> {
        let file = crate::atomic::AtomicFile::create(out).map_err(io(out))?;
        let tar = tar::Builder::new(Hashing::new(BufWriter::with_capacity(1 << 20, file)));
        Ok(Writer { out: out.to_path_buf(), tar, done: 0, total: 0 })
    }

    /// Appends the file `item` (streamed); returns its sum.
    fn file(&mut self, item: &Item, on_progress: &mut dyn FnMut(Progress<'_>)) -> Result<FileSum, PackError> {
        let f = std::fs::File::open(&item.path).map_err(io(&item.path))?;
        let want = f.metadata().map_err(io(&item.path))?.len();
        let (done, total, name) = (self.done, self.total, item.name.as_str());
        let mut tick = |n| on_progress(Progress { file: name, done: done + n, total });
        let mut reader = Hashing::new(Ticking::new(f.take(want), &mut tick));
        self.tar.append_data(&mut header(want, item.mode), name, &mut reader).map_err(io(&self.out))?;
        let (_, sum) = reader.finish();
        if sum.bytes != want {
            return Err(PackError::Changed { path: item.path.clone(), got: sum.bytes, want });
        }
        self.done += want;
        Ok(sum)
    }

    /// Appends `data` as `name`; returns its sum.
    fn bytes(&mut self, name: &str, data: &[u8]) -> Result<FileSum, PackError> {
        let mut reader = Hashing::new(data);
        self.tar.append_data(&mut header(data.len() as u64, 0o644), name, &mut reader).map_err(io(&self.out))?;
        Ok(reader.finish().1)
    }

    /// Ends the archive, renames it into place and writes its SHA-256 beside it.
    fn commit(self, manifest: PackManifest) -> Result<PackReport, PackError> {
        let out = self.out;
        let mut hashing = self.tar.into_inner().map_err(io(&out))?;
        hashing.get_mut().flush().map_err(io(&out))?;
        let (buffered, sum) = hashing.finish();
        let file = buffered.into_inner().map_err(|e| PackError::Io { path: out.clone(), source: e.into_error() })?;
        file.commit().map_err(io(&out))?;
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let sha256_file = out.with_file_name(format!("{name}.sha256"));
        crate::atomic::write(&sha256_file, format!("{}  {name}\n", sum.sha256)).map_err(io(&sha256_file))?;
        Ok(PackReport { archive: out, bytes: sum.bytes, sha256: sum.sha256, sha256_file, manifest })
    }
}
