//! The demo database that ships inside the binary, so that `sqale ask` works with nothing but a
//! model. Built by `scripts/make_demo_db.py` (suppliers, products, customers, orders,
//! shipments... with real foreign keys).

use std::path::PathBuf;

use crate::hash::sha256_hex;

/// The demo database's bytes.
pub const DEMO_DB: &[u8] = include_bytes!("../data/demo.sqlite");

/// Writes the demo database to the user's cache (once; atomically) and returns its path. Where
/// the cache cannot be written (a read-only home), a private folder of this user's in the
/// system's temporary folder takes its place; the error names both when neither can be.
pub fn demo_db_path() -> std::io::Result<PathBuf> {
    let name = format!("demo-{}.sqlite", &sha256_hex(DEMO_DB)[..12]);
    let cache = crate::cache::root();
    let a = match write_into(&cache, &name) {
        Ok(path) => return Ok(path),
        Err(a) => a,
    };
    private_temp_dir().and_then(|dir| write_into(&dir, &name)).map_err(|b| {
        std::io::Error::new(
            a.kind(),
            format!(
                "cannot write the demo database into the cache {} ({a}) nor into a private temporary folder ({b}): \
                 make the cache writable, set XDG_CACHE_HOME to a writable folder, or pass --db",
                cache.display()
            ),
        )
    })
}

/// `dir/name` holding the demo database: the file already there when its bytes are the demo's,
/// else written (atomically).
fn write_into(dir: &std::path::Path, name: &str) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    let len = DEMO_DB.len() as u64;
    if crate::regular_file::read_at_most(&path, len).is_ok_and(|b| b == DEMO_DB) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    crate::atomic::write(&path, DEMO_DB)?;
    Ok(path)
}

/// `sqale-UID` in the system's temporary folder, created readable by this user alone; refused
/// when another user owns it or others may write to it.
pub(crate) fn private_temp_dir() -> std::io::Result<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        // SAFETY: getuid has no preconditions and cannot fail.
        let uid = unsafe { libc::getuid() };
        let dir = std::env::temp_dir().join(format!("sqale-{uid}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = std::fs::symlink_metadata(&dir)?;
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o022 != 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is not a folder of this user's alone", dir.display()),
            ));
        }
        Ok(dir)
    }
    #[cfg(not(unix))]
    {
        Ok(std::env::temp_dir().join("sqale"))
    }
}
