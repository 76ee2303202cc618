//! `unpack`: a verified archive into sqale's cache (and its binary where asked), or nothing.

use std::path::{Path, PathBuf};

use serde::Serialize;

use sqale_convert::atomic::{check_output, Input};

use super::error::io;
use super::read::{verify, Verified};
use super::{install_paths, FileSum, PackError, PackManifest, Progress, BINARY};

/// How to unpack an archive.
#[derive(Debug, Clone, Default)]
pub struct UnpackOptions {
    /// The archive's SHA-256 as [`super::pack`] reported it (default: read from `ARCHIVE.sha256`
    /// when that is beside the archive; without either, only the manifest is checked).
    pub sha256: Option<String>,
    /// Replace a different install of the same model and type.
    pub force: bool,
    /// Where to write the archive's binary (a folder: `sqale` in it); `None`: not written.
    pub binary_to: Option<PathBuf>,
    /// Verify only: install nothing.
    pub check_only: bool,
}

/// What [`unpack`] found and did.
#[derive(Debug, Clone, Serialize)]
pub struct UnpackReport {
    /// The archive.
    pub archive: PathBuf,
    /// Its SHA-256.
    pub sha256: String,
    /// What its SHA-256 was compared with (`None`: nothing to compare with).
    pub sha256_checked_against: Option<String>,
    /// Its manifest (every file in it was verified).
    pub manifest: PackManifest,
    /// The model's folder in the cache (`None`: only verified).
    pub installed_in: Option<PathBuf>,
    /// The GGUF in the cache.
    pub gguf: Option<PathBuf>,
    /// The reference loop in the cache, if the archive has one.
    pub prompt: Option<PathBuf>,
    /// Whether `sqale ask` without a model file finds it (the registry's default model and type).
    pub default_model: bool,
    /// Whether the same files were installed already (nothing was replaced).
    pub already_installed: bool,
    /// Where the binary was written.
    pub binary: Option<PathBuf>,
}

/// Verifies `archive` (every file against its manifest, the archive against its SHA-256 when one
/// is at hand) and installs its model into sqale's cache, each file renamed into place whole.
/// Nothing is installed unless all of it verifies; a different install is refused unless
/// `force`.
pub fn unpack(
    archive: &Path,
    options: &UnpackOptions,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<UnpackReport, PackError> {
    let expected = expected_sha256(archive, options.sha256.as_deref())?;
    let binary_to = options.binary_to.as_deref().map(binary_dest).transpose()?;
    let side = sidecar(archive);
    let inputs = [Input::file("the archive", archive), Input::file("the archive's SHA-256 file", &side)];
    if let Some(dest) = &binary_to {
        check_output(dest, "sqale", &inputs)?;
    }
    let staging_in = if options.check_only { std::env::temp_dir() } else { crate::cache::root().join("models") };
    let verified = verify(archive, &staging_in, on_progress)?;
    if let Some((want, from)) = &expected {
        if *want != verified.sum.sha256 {
            return Err(PackError::Digest {
                archive: archive.to_path_buf(),
                actual: verified.sum.sha256.clone(),
                expected: want.clone(),
                from: from.clone(),
            });
        }
    }
    if options.binary_to.is_some() && verified.manifest.binary_target.is_none() {
        return Err(PackError::NoBinary { archive: archive.to_path_buf() });
    }
    let mut report = UnpackReport {
        archive: archive.to_path_buf(),
        sha256: verified.sum.sha256.clone(),
        sha256_checked_against: expected.map(|(_, from)| from),
        default_model: verified.manifest.model.is_default(),
        manifest: verified.manifest.clone(),
        installed_in: None,
        gguf: None,
        prompt: None,
        already_installed: false,
        binary: None,
    };
    if !options.check_only {
        let (_, paths) = install_paths(&verified.manifest.model)?;
        for (_, dest) in paths.iter().filter(|(_, dest)| dest.exists()) {
            check_output(dest, "model.gguf", &inputs)?;
        }
        install(&verified, options.force, &mut report)?;
        if let Some(dest) = &binary_to {
            report.binary = Some(install_binary(&verified.staging.path().join(BINARY), dest)?);
        }
    }
    Ok(report)
}

/// `ARCHIVE.sha256`, where `sqale pack` writes the archive's SHA-256.
fn sidecar(archive: &Path) -> PathBuf {
    let mut name = archive.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// The SHA-256 to compare the archive with, and where it came from.
fn expected_sha256(archive: &Path, given: Option<&str>) -> Result<Option<(String, String)>, PackError> {
    let (value, from) = match given {
        Some(v) => (v.to_string(), "the digest given".to_string()),
        None => {
            let side = sidecar(archive);
            if !side.is_file() {
                return Ok(None);
            }
            // A SHA-256 line is under 4 KiB; a link to a device or a huge file is refused.
            let bytes = crate::regular_file::read_at_most(&side, 4096).map_err(io(&side))?;
            let text = String::from_utf8_lossy(&bytes);
            (text.split_whitespace().next().unwrap_or_default().to_string(), side.display().to_string())
        }
    };
    let hex = value.trim().to_ascii_lowercase();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(PackError::BadDigest { from, value });
    }
    Ok(Some((hex, from)))
}

/// Moves the staged files into the cache: the reference loop, the manifest, the GGUF last (its
/// presence marks a whole install), after checking that nothing different is in the way.
fn install(verified: &Verified, force: bool, report: &mut UnpackReport) -> Result<(), PackError> {
    let files = &verified.manifest.files;
    let (dir, paths) = install_paths(&verified.manifest.model)?;
    let paths: Vec<_> = paths.into_iter().filter(|(name, _)| files.contains_key(name)).collect();
    let mut same = true;
    for (name, dest) in &paths {
        if dest.exists() && differs(dest, &files[name])? {
            same = false;
            if !force {
                return Err(PackError::Conflict { path: dest.clone(), file: name.clone() });
            }
        } else if !dest.exists() {
            same = false;
        }
    }
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    for (name, dest) in paths.iter().rev() {
        move_into(&verified.staging.path().join(name), dest)?;
    }
    report.gguf = paths.iter().find(|(n, _)| n.ends_with(".gguf")).map(|(_, p)| p.clone());
    report.prompt = paths.iter().find(|(n, _)| n == super::PROMPT).map(|(_, p)| p.clone());
    report.installed_in = Some(dir);
    report.already_installed = same;
    Ok(())
}

/// Whether the file at `path` is not the one `want` describes.
fn differs(path: &Path, want: &FileSum) -> Result<bool, PackError> {
    if std::fs::metadata(path).map_err(io(path))?.len() != want.bytes {
        return Ok(true);
    }
    Ok(crate::pull::sha256_file(path)? != want.sha256)
}

/// Renames `src` to `dest`, or (across file systems) copies it there whole.
fn move_into(src: &Path, dest: &Path) -> Result<(), PackError> {
    if std::fs::rename(src, dest).is_ok() {
        return Ok(());
    }
    let mut out = crate::atomic::AtomicFile::create(dest).map_err(io(dest))?;
    let mut from = crate::regular_file::open(src).map_err(io(src))?;
    std::io::copy(&mut from, &mut out).map_err(io(dest))?;
    out.commit().map_err(io(dest))?;
    Ok(())
}

/// Where the binary goes: `to`, or `sqale` in it for a folder; its folder must exist.
fn binary_dest(to: &Path) -> Result<PathBuf, PackError> {
    if to.is_dir() {
        return Ok(to.join("sqale"));
    }
    let folder = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(PackError::NoFolder { path: to.to_path_buf(), folder: folder.to_path_buf() });
    }
    Ok(to.to_path_buf())
}

/// Writes the staged binary to `dest`, executable.
fn install_binary(staged: &Path, dest: &Path) -> Result<PathBuf, PackError> {
    move_into(staged, dest)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dest, std::fs::Permissions::from_mode(0o755)).map_err(io(dest))?;
    }
    Ok(dest.to_path_buf())
}
