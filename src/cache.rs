//! Where sqale keeps what it downloads and unpacks: models, benchmarks, the demo database.

use std::path::PathBuf;

/// The root of every sqale cache: `$XDG_CACHE_HOME/sqale`, else `~/.cache/sqale`, else `sqale`
/// in the system temp dir.
pub fn root() -> PathBuf {
    user_cache().join("sqale")
}

/// `$XDG_CACHE_HOME`, else `~/.cache`, else the system temp dir.
fn user_cache() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h).join(".cache");
    }
    std::env::temp_dir()
}
