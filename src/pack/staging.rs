//! The staging folder an archive is read into: removed when done, on failure, and on SIGINT or
//! SIGTERM (registered with [`crate::atomic::Pending`]); and the staging folders that a process
//! killed outright (SIGKILL, a power cut) left in the same place, removed by a later unpack.
//!
//! A staging folder is named `.sqale-unpack-<pid>.<pid namespace>-<random>`. Another one in the
//! same folder is stale, and removed, when it is a folder (not a link) owned by the same user and
//! either its process is gone (same pid namespace, and `/proc/<pid>` absent) or it was last
//! changed more than [`STALE_AFTER`] ago (older sqale's folders, `.sqale-unpack-<random>`, and
//! those of other machines or containers sharing the cache).

use std::path::Path;
use std::time::Duration;

use super::error::io;
use super::PackError;

/// The prefix of every staging folder's name.
const PREFIX: &str = ".sqale-unpack-";

/// A staging folder whose process cannot be told alive or dead is stale after this long.
pub(super) const STALE_AFTER: Duration = Duration::from_secs(24 * 3600);

/// A staging folder: removed with what it holds when dropped, or by
/// [`crate::atomic::remove_pending`].
pub(crate) struct Staging {
    dir: tempfile::TempDir,
    _pending: crate::atomic::Pending,
}

impl Staging {
    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// This process's pid namespace (the inode of `/proc/self/ns/pid`), where there is one.
fn pid_namespace() -> Option<u64> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let text = link.to_string_lossy().into_owned();
    text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// Makes a staging folder in `dir`, then removes the stale ones beside it.
pub(super) fn create(dir: &Path) -> Result<Staging, PackError> {
    let prefix = format!("{PREFIX}{}.{}-", std::process::id(), pid_namespace().unwrap_or(0));
    let (made, pending) = crate::atomic::Pending::create(|| {
        let made = tempfile::Builder::new().prefix(&prefix).tempdir_in(dir)?;
        let path = made.path().to_path_buf();
        Ok((made, path))
    })
    .map_err(io(dir))?;
    remove_stale(dir, made.path());
    Ok(Staging { dir: made, _pending: pending })
}

/// The pid and pid namespace a staging folder's name gives (`None` for another sqale's names).
fn owner_of(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (ids, _random) = rest.split_once('-')?;
    let (pid, ns) = ids.split_once('.')?;
    Some((pid.parse().ok()?, ns.parse().ok()?))
}

/// Whether the process that made a staging folder named `name` is known to be gone.
fn process_gone(name: &str) -> bool {
    let (Some((pid, ns)), Some(ours)) = (owner_of(name), pid_namespace()) else { return false };
    ns == ours && pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the stale staging folders in `dir` (see the module's rule); `ours` is this process's
/// own, whose owner the others must share. Errors are ignored: this is tidying.
fn remove_stale(dir: &Path, ours: &Path) {
    let Ok(our_meta) = std::fs::symlink_metadata(ours) else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !name.starts_with(PREFIX) || path == ours {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.is_dir() || !same_owner(&meta, &our_meta) {
            continue;
        }
        let old = meta.modified().ok().and_then(|t| t.elapsed().ok()).is_some_and(|age| age > STALE_AFTER);
        if old || process_gone(&name) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(unix)]
fn same_owner(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.uid() == b.uid()
}

#[cfg(not(unix))]
fn same_owner(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stale_staging_folders_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let ns = pid_namespace();
        let named = |pid: u32| format!("{PREFIX}{pid}.{}-abc123", ns.unwrap_or(0));
        // A pid above any pid_max: its process is gone.
        let dead = dir.path().join(named(999_999_999));
        let alive = dir.path().join(named(std::process::id()).replace("-abc123", "-live01"));
        let old_format = dir.path().join(format!("{PREFIX}Xy12Zq"));
        let other = dir.path().join("sqale-unpack-not-ours");
        for d in [&dead, &alive, &old_format, &other] {
            std::fs::create_dir_all(d.join("model")).unwrap();
            std::fs::write(d.join("model/q4_k_m.gguf"), "w").unwrap();
        }
        let staging = create(dir.path()).unwrap();
        assert_eq!(ns.is_some(), !dead.exists(), "a dead process's folder goes where pids can be checked");
        assert!(alive.exists() && old_format.exists() && other.exists(), "live, recent or not ours: kept");
        assert!(staging.path().exists());
        let path = staging.path().to_path_buf();
        drop(staging);
        assert!(!path.exists());
        assert_eq!(owner_of(&named(42)), Some((42, ns.unwrap_or(0))));
        assert_eq!(owner_of(&format!("{PREFIX}Xy12Zq")), None);
    }
}
