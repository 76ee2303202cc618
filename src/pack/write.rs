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
    read_gguf(&gguf)?;
    if let Some(p) = &prompt {
        crate::prompt::Prompt::from_python_file(p)?;
    }
    let manifest = match source {
        PackSource::Cache => cached_manifest(&gguf)?,
        PackSource::Files { .. } => None,
    };
    Ok(Plan { gguf, manifest, prompt })
}

fn read_gguf(gguf: &Path) -> Result<sqale_convert::gguf::GgufHeader, PackError> {
    sqale_convert::gguf::read_header(gguf).map_err(|source| PackError::NotGguf { path: gguf.to_path_buf(), source })
}

/// The type a model is packed as: for the cache, the one asked for (default: the entry's); for a
/// GGUF file, the one it declares (`general.file_type`), which a type asked for must match.
fn packed_type(entry: &Entry, asked: Option<&str>, source: &PackSource) -> Result<String, PackError> {
    let gguf = match source {
        PackSource::Cache => return Ok(asked.unwrap_or(&entry.default_type).to_string()),
        PackSource::Files { gguf, .. } => gguf,
    };
    let header = read_gguf(gguf)?;
    let declared = sqale_convert::quantize::file_type(&header);
    match (declared, asked) {
        (Some(d), Some(a)) if d != a => {
            Err(PackError::TypeMismatch { path: gguf.clone(), declared: d.to_string(), asked: a.to_string() })
        }
        (Some(d), _) => Ok(d.to_string()),
        (None, Some(a)) => Ok(a.to_string()),
        (None, None) => {
            // No general.file_type: the tensors' main type, where it names one file type.
            let main = sqale_convert::quantize::main_type(&header).map(str::to_ascii_lowercase);
            match main.filter(|m| sqale_convert::quantize::FILE_TYPES.iter().any(|(_, n)| n == m)) {
                Some(m) => Ok(m),
                None => Err(PackError::UnknownType {
                    path: gguf.clone(),
                    main: sqale_convert::quantize::main_type(&header).unwrap_or("none").to_string(),
                }),
            }
        }
    }
}

fn cached_manifest(gguf: &Path) -> Result<Option<(PathBuf, Manifest)>, PackError> {
    let path = gguf.with_extension("json");
    if !path.is_file() {
        return Ok(None);
    }
    let text = crate::regular_file::read_text_at_most(&path, super::MAX_MANIFEST_BYTES).map_err(io(&path))?;
    let m = serde_json::from_str(&text).map_err(|e| PackError::Io { path: path.clone(), source: e.into() })?;
    Ok(Some((path, m)))
}

/// The manifest of a GGUF packed from a file: what `pull` would have written for it.
fn file_manifest(model: &PackedModel, gguf: &Path, sum: &FileSum) -> Manifest {
    Manifest {
        repo: model.repo.clone(),
        revision: model.revision.clone(),
        // The file's name only: the packing machine's folders are none of the site's business.
        snapshot: format!("packed from {}", gguf.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()),
        out_type: model.out_type.clone(),
        files: BTreeMap::new(),
        gguf_sha256: sum.sha256.clone(),
        mtp_head: None,
        imatrix_sha256: None,
        gguf_bytes: sum.bytes,
        sqale_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// Packs `entry` from `source`, and `binary` if given, into `out`, with its SHA-256 beside it as
/// `out.sha256`: both are written under temporary names and renamed into place only when both
/// are complete (neither is left on failure). Every file is streamed and hashed once.
///
/// The type (`out_type`) is, for the cache, the one asked for (default: the entry's default
/// type); for a GGUF file, the one its `general.file_type` declares, which a type asked for must
/// match. An output that is a folder, or is (or whose `.sha256` is) one of the files packed, is
/// refused before anything is written.
pub fn pack(
    entry: &Entry,
    out_type: Option<&str>,
    source: &PackSource,
    binary: Option<&BinarySource>,
    out: &Path,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<PackReport, PackError> {
    let out_type = packed_type(entry, out_type, source)?;
    let model = PackedModel::new(entry, &out_type);
    model.entry()?;
    if let Some(b) = binary {
        check_target(&b.target)?;
        check_binary(&b.path, &b.target)?;
    }
    let plan = plan(entry, &out_type, source)?;
    let mut items = vec![Item { name: model.gguf_name(), path: plan.gguf.clone(), mode: 0o644 }];
    items.extend(plan.prompt.iter().map(|p| Item { name: PROMPT.into(), path: p.clone(), mode: 0o644 }));
    items.extend(binary.map(|b| Item { name: BINARY.into(), path: b.path.clone(), mode: 0o755 }));
    check_outputs(out, &items, &plan)?;

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
        Some((path, _)) => crate::regular_file::read_at_most(path, super::MAX_MANIFEST_BYTES).map_err(io(path))?,
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

/// The archive's name with `.sha256` added: where its SHA-256 goes.
fn sidecar(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// Neither the archive nor its `.sha256` may be a folder or replace a file being packed.
fn check_outputs(out: &Path, items: &[Item], plan: &Plan) -> Result<(), PackError> {
    use sqale_convert::atomic::{check_output, Input};
    let mut inputs: Vec<Input<'_>> = items.iter().map(|i| Input::file("a file being packed", &i.path)).collect();
    if let Some((path, _)) = &plan.manifest {
        inputs.push(Input::file("a file being packed", path));
    }
    check_output(out, "site.tar", &inputs)?;
    let side = sidecar(out);
    if side.is_dir() {
        let source = std::io::Error::new(std::io::ErrorKind::IsADirectory, "a folder is in the way");
        return Err(PackError::Sidecar { path: side, archive: out.to_path_buf(), source });
    }
    check_output(&side, "site.tar.sha256", &inputs)?;
    Ok(())
}

fn json(value: &impl Serialize) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap_or_default();
    v.push(b'\n');
    v
}

/// The archive being written: a tar stream hashed on its way into a whole-or-nothing file, and
/// the file its SHA-256 goes to, made at the start under a temporary name too.
struct Writer {
    out: PathBuf,
    tar: tar::Builder<Hashing<BufWriter<crate::atomic::AtomicFile>>>,
    sidecar: crate::atomic::AtomicFile,
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
        let side = sidecar(out);
        let sidecar = crate::atomic::AtomicFile::create(&side).map_err(io(&side))?;
        let tar = tar::Builder::new(Hashing::new(BufWriter::with_capacity(1 << 20, file)));
        Ok(Writer { out: out.to_path_buf(), tar, sidecar, done: 0, total: 0 })
    }

    /// Appends the file `item` (streamed); returns its sum.
    fn file(&mut self, item: &Item, on_progress: &mut dyn FnMut(Progress<'_>)) -> Result<FileSum, PackError> {
        let f = crate::regular_file::open(&item.path).map_err(io(&item.path))?;
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

    /// Ends the archive, writes its SHA-256, and renames both into place: the archive, then its
    /// `.sha256`; if that fails, the archive is removed again.
    fn commit(self, manifest: PackManifest) -> Result<PackReport, PackError> {
        let Writer { out, tar, mut sidecar, .. } = self;
        let mut hashing = tar.into_inner().map_err(io(&out))?;
        hashing.get_mut().flush().map_err(io(&out))?;
        let (buffered, sum) = hashing.finish();
        let file = buffered.into_inner().map_err(|e| PackError::Io { path: out.clone(), source: e.into_error() })?;
        let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let sha256_file = sidecar.dest().to_path_buf();
        sidecar.write_all(format!("{}  {name}\n", sum.sha256).as_bytes()).map_err(io(&sha256_file))?;
        file.commit().map_err(io(&out))?;
        if let Err(source) = sidecar.commit() {
            let _ = std::fs::remove_file(&out);
            return Err(PackError::Sidecar { path: sha256_file, archive: out, source });
        }
        Ok(PackReport { archive: out, bytes: sum.bytes, sha256: sum.sha256, sha256_file, manifest })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_whose_sha256_cannot_be_renamed_into_place_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site.tar");
        let mut writer = Writer::create(&out).unwrap();
        writer.bytes(MANIFEST, b"{}\n").unwrap();
        // Something in the way of the .sha256 after packing began.
        std::fs::create_dir(dir.path().join("site.tar.sha256")).unwrap();
        let manifest = PackManifest {
            format: FORMAT,
            sqale_version: String::new(),
            model: PackedModel {
                alias: "a".into(),
                repo: "org/a".into(),
                revision: "main".into(),
                out_type: "q4_1".into(),
            },
            binary_target: None,
            files: BTreeMap::new(),
        };
        let err = writer.commit(manifest).unwrap_err();
        assert!(matches!(err, PackError::Sidecar { .. }), "{err}");
        assert!(err.to_string().contains("site.tar was not written either"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["site.tar.sha256"], "neither the archive nor a temporary file is left");
    }
}
