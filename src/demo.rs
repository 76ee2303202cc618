//! The demo database that ships inside the binary, so that `sqale ask` works with nothing but a
//! model. Built by `scripts/make_demo_db.py` (suppliers, products, customers, orders,
//! shipments... with real foreign keys).

use std::path::PathBuf;

use crate::hash::sha256_hex;

/// The demo database's bytes.
pub const DEMO_DB: &[u8] = include_bytes!("../data/demo.sqlite");

/// Writes the demo database to the user's cache (once; atomically) and returns its path.
pub fn demo_db_path() -> std::io::Result<PathBuf> {
    let digest = &sha256_hex(DEMO_DB)[..12];
    let dir = cache_dir().join("sqale");
    let path = dir.join(format!("demo-{digest}.sqlite"));
    if std::fs::metadata(&path).map(|m| m.len() as usize == DEMO_DB.len()).unwrap_or(false) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    crate::atomic::write(&path, DEMO_DB)?;
    Ok(path)
}

/// `$XDG_CACHE_HOME`, else `~/.cache`, else the system temp dir.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h).join(".cache");
    }
    std::env::temp_dir()
}
