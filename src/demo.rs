//! The demo database that ships inside the binary, so that `sqale ask` works with nothing but a
//! model. Built by `scripts/make_demo_db.py` (suppliers, products, customers, orders,
//! shipments... with real foreign keys).

use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// The demo database's bytes.
pub const DEMO_DB: &[u8] = include_bytes!("../data/demo.sqlite");

/// Writes the demo database to the user's cache (once; atomically) and returns its path.
pub fn demo_db_path() -> std::io::Result<PathBuf> {
    let digest: String = Sha256::digest(DEMO_DB)
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = cache_dir().join("sqale");
    let path = dir.join(format!("demo-{digest}.sqlite"));
    if std::fs::metadata(&path).map(|m| m.len() as usize == DEMO_DB.len()).unwrap_or(false) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    std::io::Write::write_all(&mut tmp, DEMO_DB)?;
    tmp.persist(&path).map_err(|e| e.error)?;
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
