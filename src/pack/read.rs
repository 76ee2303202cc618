//! Reading an archive: every file streamed into a staging folder and hashed, then checked
//! against the manifest. Nothing outside the staging folder is touched.

use std::collections::BTreeMap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::error::io;
use super::hashio::{Hashing, TICK};
use super::{FileSum, PackError, PackManifest, Progress, BINARY, FORMAT, MANIFEST, PROMPT};

/// A manifest is a few hundred bytes; more than this is not one.
const MANIFEST_LIMIT: u64 = 1 << 20;

/// An archive whose files all match its manifest, staged in a temporary folder.
pub(super) struct Verified {
    /// The staging folder (removed when dropped, or on a signal); a file's path is its name in
    /// the archive.
    pub staging: super::staging::Staging,
    /// The manifest.
    pub manifest: PackManifest,
    /// The archive's own size and SHA-256.
    pub sum: FileSum,
}

/// Reads `archive` into a staging folder made in `staging_in` and checks every file against the
/// manifest: sizes, SHA-256, none missing, none extra, nothing after the end. The archive must be
/// a regular file (not a folder, device or FIFO), and no more is read than its size.
pub(super) fn verify(
    archive: &Path,
    staging_in: &Path,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Verified, PackError> {
    let file = open_archive(archive)?;
    let total = file.metadata().map_err(io(archive))?.len();
    std::fs::create_dir_all(staging_in).map_err(io(staging_in))?;
    let staging = super::staging::create(staging_in)?;
    let reader = BufReader::with_capacity(1 << 20, file.take(total));
    let mut tar = tar::Archive::new(Hashing::new(reader));
    let mut reading =
        Reading { archive, staging: staging.path(), staged: BTreeMap::new(), manifest: None, last: None, total };
    reading.entries(&mut tar, on_progress)?;
    let (staged, manifest) = (reading.staged, reading.manifest);
    let mut rest = tar.into_inner();
    check_end(archive, &mut rest)?;
    let (_, sum) = rest.finish();
    let manifest = manifest.ok_or_else(|| PackError::NoManifest { archive: archive.to_path_buf() })?;
    check(archive, &manifest, &staged, staging.path())?;
    Ok(Verified { staging, manifest, sum })
}

/// Opens the archive if it is a regular file: a folder, device, FIFO or socket is refused
/// saying which, without blocking or reading it.
fn open_archive(archive: &Path) -> Result<std::fs::File, PackError> {
    crate::regular_file::open(archive).map_err(|e| match crate::regular_file::not_regular(&e) {
        Some(kind) => PackError::NotAFile { path: archive.to_path_buf(), kind: kind.to_string() },
        None => PackError::Io { path: archive.to_path_buf(), source: e },
    })
}

/// The archive as it is read.
struct Reading<'a> {
    archive: &'a Path,
    staging: &'a Path,
    staged: BTreeMap<String, FileSum>,
    manifest: Option<PackManifest>,
    last: Option<String>,
    total: u64,
}

impl Reading<'_> {
    fn damaged(&self, source: std::io::Error) -> PackError {
        let at = match &self.last {
            Some(name) => format!("after {name}"),
            None => "at its start".into(),
        };
        PackError::Damaged { archive: self.archive.to_path_buf(), at, source }
    }

    fn unexpected(&self, file: &str, why: &str) -> PackError {
        PackError::Unexpected { archive: self.archive.to_path_buf(), file: file.to_string(), why: why.to_string() }
    }

    fn entries<R: Read>(
        &mut self,
        tar: &mut tar::Archive<R>,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<(), PackError> {
        for entry in tar.entries().map_err(|e| self.damaged(e))? {
            let mut entry = entry.map_err(|e| self.damaged(e))?;
            let name = self.name_of(&entry)?;
            if name == MANIFEST {
                self.manifest = Some(self.read_manifest(&mut entry)?);
            } else {
                let sum = self.stage(&name, &mut entry, on_progress)?;
                self.staged.insert(name.clone(), sum);
            }
            self.last = Some(name);
        }
        Ok(())
    }

    /// The entry's name, if it is one a pack holds, in the place a pack holds it.
    fn name_of<R: Read>(&self, entry: &tar::Entry<'_, R>) -> Result<String, PackError> {
        let path = entry.path().map_err(|e| self.damaged(e))?;
        let name = path.to_string_lossy().into_owned();
        if !entry.header().entry_type().is_file() {
            return Err(self.unexpected(&name, "is not a plain file"));
        }
        if self.manifest.is_some() {
            return Err(self.unexpected(&name, &format!("comes after {MANIFEST}, which ends an archive")));
        }
        if self.staged.contains_key(&name) {
            return Err(self.unexpected(&name, "appears twice"));
        }
        let model_file = name.strip_prefix("model/").is_some_and(safe_file_name);
        if !(model_file || name == BINARY || name == MANIFEST) {
            return Err(self.unexpected(&name, "is not a file a sqale pack holds"));
        }
        Ok(name)
    }

    fn read_manifest(&self, entry: &mut impl Read) -> Result<PackManifest, PackError> {
        let bad = |why: String| PackError::BadManifest { archive: self.archive.to_path_buf(), why };
        let mut text = Vec::new();
        entry.take(MANIFEST_LIMIT + 1).read_to_end(&mut text).map_err(io(self.archive))?;
        if text.len() as u64 > MANIFEST_LIMIT {
            return Err(bad(format!("it is over {MANIFEST_LIMIT} bytes, far more than a manifest")));
        }
        serde_json::from_slice(&text).map_err(|e| bad(e.to_string()))
    }

    /// Streams the entry into the staging folder, hashing it; a short entry is a truncation.
    fn stage(
        &self,
        name: &str,
        entry: &mut tar::Entry<'_, impl Read>,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<FileSum, PackError> {
        let (want, start) = (entry.size(), entry.raw_file_position());
        let dest = self.staging.join(name);
        // One level (`model/`, `bin/`) and never the staging folder itself: one that a signal's
        // handler removed is not made again.
        if let Some(dir) = dest.parent().filter(|d| *d != self.staging) {
            match std::fs::create_dir(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(io(dir)(e)),
                _ => {}
            }
        }
        let file = std::fs::File::create(&dest).map_err(io(&dest))?;
        let mut out = Hashing::new(BufWriter::with_capacity(1 << 20, file));
        let mut buf = vec![0u8; 1 << 20];
        let mut last = 0;
        loop {
            let n = entry.read(&mut buf).map_err(io(self.archive))?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n]).map_err(io(&dest))?;
            if out.bytes() - last >= TICK {
                last = out.bytes();
                on_progress(Progress { file: name, done: start + last, total: self.total });
            }
        }
        out.flush().map_err(io(&dest))?;
        let (_, sum) = out.finish();
        on_progress(Progress { file: name, done: start + sum.bytes, total: self.total });
        if sum.bytes != want {
            let archive = self.archive.to_path_buf();
            return Err(PackError::Truncated { archive, file: name.to_string(), got: sum.bytes, want });
        }
        Ok(sum)
    }
}

/// A file name a pack may hold under `model/`: letters, digits, `.`, `_`, `-`, not hidden.
fn safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// The most that may follow the tar's end: its zero padding (GNU tar pads to a record of 10 KiB
/// by default, 1 MiB at its largest blocking factor).
const PADDING_LIMIT: u64 = 1 << 20;

/// After the tar's end, only its zero padding may follow, and not much of it.
fn check_end(archive: &Path, rest: &mut impl Read) -> Result<(), PackError> {
    let mut buf = vec![0u8; 64 << 10];
    let (mut junk, mut read) = (0u64, 0u64);
    let mut rest = rest.take(PADDING_LIMIT + 1);
    loop {
        let n = rest.read(&mut buf).map_err(io(archive))?;
        if n == 0 {
            break;
        }
        read += n as u64;
        junk += buf[..n].iter().filter(|b| **b != 0).count() as u64;
    }
    let unexpected = |why: String| PackError::Unexpected {
        archive: archive.to_path_buf(),
        file: "the end of the tar archive".into(),
        why,
    };
    if junk > 0 {
        return Err(unexpected(format!("is followed by data ({junk} bytes that are not zeros)")));
    }
    if read > PADDING_LIMIT {
        return Err(unexpected(format!(
            "is followed by more than {PADDING_LIMIT} bytes, far more than a tar's padding"
        )));
    }
    Ok(())
}

/// The manifest is one this sqale reads, lists the files a pack holds, and every file matches it.
fn check(
    archive: &Path,
    manifest: &PackManifest,
    staged: &BTreeMap<String, FileSum>,
    staging: &Path,
) -> Result<(), PackError> {
    let bad = |why: String| PackError::BadManifest { archive: archive.to_path_buf(), why };
    if manifest.format > FORMAT {
        return Err(bad(format!(
            "its format {} is newer than this sqale reads ({FORMAT}); unpack it with sqale {} or newer",
            manifest.format, manifest.sqale_version
        )));
    }
    check_layout(manifest).map_err(bad)?;
    if let Some(target) = &manifest.binary_target {
        super::binary::check_target(target).map_err(|e| bad(format!("binary_target: {e}")))?;
    }
    manifest.model.entry()?;
    for (name, want) in &manifest.files {
        let altered = |what: String| PackError::Altered { archive: archive.to_path_buf(), file: name.clone(), what };
        match staged.get(name) {
            None => return Err(PackError::Missing { archive: archive.to_path_buf(), file: name.clone() }),
            Some(got) if got.bytes != want.bytes => {
                return Err(altered(format!("it has {} bytes, {MANIFEST} says {}", got.bytes, want.bytes)))
            }
            Some(got) if got.sha256 != want.sha256 => {
                return Err(altered(format!("its SHA-256 is {}, {MANIFEST} says {}", got.sha256, want.sha256)))
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = staged.keys().find(|k| !manifest.files.contains_key(*k)) {
        let why = format!("is not listed in {MANIFEST}");
        return Err(PackError::Unexpected { archive: archive.to_path_buf(), file: extra.clone(), why });
    }
    check_model_manifest(archive, manifest, &staging.join(manifest.model.manifest_name()))
}

/// The files a manifest lists are the GGUF, its manifest, optionally the reference loop, and
/// the binary if and only if it names a target.
fn check_layout(manifest: &PackManifest) -> Result<(), String> {
    let model = &manifest.model;
    let required = [model.gguf_name(), model.manifest_name()];
    if let Some(name) = required.iter().find(|n| !manifest.files.contains_key(*n)) {
        return Err(format!("it lists no {name}"));
    }
    let allowed = |n: &str| required.iter().any(|r| r == n) || n == PROMPT || n == BINARY;
    if let Some(name) = manifest.files.keys().find(|n| !allowed(n)) {
        return Err(format!("it lists {name}, which a pack of {} ({}) does not hold", model.repo, model.out_type));
    }
    if manifest.binary_target.is_some() != manifest.files.contains_key(BINARY) {
        return Err(format!("its binary_target and its list of files disagree about {BINARY}"));
    }
    Ok(())
}

/// The model manifest describes the GGUF that came with it.
fn check_model_manifest(archive: &Path, manifest: &PackManifest, path: &PathBuf) -> Result<(), PackError> {
    let file = manifest.model.manifest_name();
    let altered = |what: String| PackError::Altered { archive: archive.to_path_buf(), file: file.clone(), what };
    let text = crate::regular_file::read_text_at_most(path, super::MAX_MANIFEST_BYTES).map_err(io(path))?;
    let m: crate::pull::Manifest =
        serde_json::from_str(&text).map_err(|e| altered(format!("it is not a model manifest ({e})")))?;
    let gguf = &manifest.files[&manifest.model.gguf_name()];
    if m.gguf_sha256 != gguf.sha256 {
        return Err(altered(format!(
            "it records the GGUF's SHA-256 as {}, the GGUF's is {}",
            m.gguf_sha256, gguf.sha256
        )));
    }
    Ok(())
}
