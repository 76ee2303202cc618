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
    let dir = crate::cache::root();
    let path = dir.join(format!("demo-{digest}.sqlite"));
    if std::fs::metadata(&path).map(|m| m.len() as usize == DEMO_DB.len()).unwrap_or(false) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    crate::atomic::write(&path, DEMO_DB)?;
    Ok(path)
}
