//! Opening a database so that no statement can change it or create a file, and bounding each
//! statement's time.
//!
//! Several independent layers, so that a gap in one is covered by another:
//! 1. the file is opened read-only and `immutable` (no journal, WAL or lock files are made);
//! 2. an authorizer, consulted while SQLite prepares a statement, refuses everything that is not
//!    reading: writes, schema changes, ATTACH, transactions, temp objects, all but a few
//!    introspection PRAGMAs, and extension loading;
//! 3. every statement must report `sqlite3_stmt_readonly` (this catches `VACUUM INTO`);
//! 4. `PRAGMA query_only`, `temp_store = MEMORY` (sorts never spill to temp files),
//!    `SQLITE_LIMIT_ATTACHED = 0`, defensive mode, untrusted schema;
//! 5. a progress handler interrupts any statement that outlives its deadline.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};

use super::limits::{HARD_HEAP_LIMIT_BYTES, MAX_VALUE_BYTES};
use super::EnvError;

/// PRAGMAs that only read the schema; every other PRAGMA is refused.
const READ_ONLY_PRAGMAS: &[&str] =
    &["table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list"];

/// SQL functions refused even though the build does not enable them.
const REFUSED_FUNCTIONS: &[&str] = &["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"];

/// A connection guarded as described in the module docs, with a per-statement deadline.
pub(crate) struct GuardedConnection {
    pub(crate) conn: Connection,
    /// Tables the authorizer saw read since the last [`GuardedConnection::take_reads`].
    reads: Arc<Mutex<BTreeSet<String>>>,
    epoch: Instant,
    /// Deadline in microseconds since `epoch`; `u64::MAX` when no statement runs.
    deadline_us: Arc<AtomicU64>,
}

impl GuardedConnection {
    /// Opens `path` read-only and immutable, and installs every guard.
    pub(crate) fn open(path: &Path) -> Result<Self, EnvError> {
        set_heap_limit_once();
        check_no_pending_wal(path)?;
        let uri = read_only_uri(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(&uri, flags)
            .map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        let reads = Arc::new(Mutex::new(BTreeSet::new()));
        let auth_reads = Arc::clone(&reads);
        let setup = |conn: &mut Connection| -> rusqlite::Result<()> {
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE, false)?;
            conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
            conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
            conn.execute_batch("PRAGMA query_only = ON; PRAGMA temp_store = MEMORY;")?;
            // Fail fast on a file that is not a database (the open itself is lazy).
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))?;
            conn.authorizer(Some(move |ctx: AuthContext<'_>| {
                if let AuthAction::Read { table_name, .. } = ctx.action {
                    // `SELECT count(*) FROM t` reads no column: SQLite then reports the table
                    // once, with an empty column and no database name.
                    if matches!(ctx.database_name, Some("main") | None) && !table_name.starts_with("sqlite_") {
                        if let Ok(mut r) = auth_reads.lock() {
                            r.insert(table_name.to_string());
                        }
                    }
                }
                authorize(ctx)
            }))?;
            Ok(())
        };
        setup(&mut conn).map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        let epoch = Instant::now();
        let deadline_us = Arc::new(AtomicU64::new(u64::MAX));
        let handler_deadline = Arc::clone(&deadline_us);
        conn.progress_handler(
            1000,
            Some(move || {
                let now = epoch.elapsed().as_micros() as u64;
                now > handler_deadline.load(Ordering::Relaxed)
            }),
        )
        .map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        Ok(GuardedConnection { conn, reads, epoch, deadline_us })
    }

    /// The tables statements prepared since the last call read (through views too).
    pub(crate) fn take_reads(&self) -> BTreeSet<String> {
        self.reads.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default()
    }

    /// Arms the deadline for the statement about to run; disarmed when the guard drops.
    pub(crate) fn arm(&self, timeout: Duration) -> DeadlineGuard<'_> {
        let deadline = self.epoch.elapsed() + timeout;
        self.deadline_us.store(deadline.as_micros() as u64, Ordering::Relaxed);
        DeadlineGuard { owner: self }
    }
}

/// Disarms the statement deadline on drop.
pub(crate) struct DeadlineGuard<'a> {
    owner: &'a GuardedConnection,
}

impl Drop for DeadlineGuard<'_> {
    fn drop(&mut self) {
        self.owner.deadline_us.store(u64::MAX, Ordering::Relaxed);
    }
}

fn authorize(ctx: AuthContext<'_>) -> Authorization {
    match ctx.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Recursive => {
            // Reading the temp schema is harmless, but only `main` holds user data.
            Authorization::Allow
        }
        AuthAction::Function { function_name } => {
            if REFUSED_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(function_name)) {
                Authorization::Deny
            } else {
                Authorization::Allow
            }
        }
        AuthAction::Pragma { pragma_name, pragma_value: _ } => {
            if READ_ONLY_PRAGMAS.iter().any(|p| p.eq_ignore_ascii_case(pragma_name)) {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Deny,
    }
}

fn set_heap_limit_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: a plain setter of a process-wide SQLite setting, safe to call at any time.
        unsafe {
            rusqlite::ffi::sqlite3_hard_heap_limit64(HARD_HEAP_LIMIT_BYTES);
        }
    });
}

/// `immutable` ignores a write-ahead log; a database whose log still holds transactions would
/// silently read stale. Refuse it instead and say how to fold the log in.
fn check_no_pending_wal(path: &Path) -> Result<(), EnvError> {
    if !path.is_file() {
        return Err(EnvError::NotFound(path.to_path_buf()));
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    match std::fs::metadata(&wal) {
        Ok(m) if m.len() > 0 => Err(EnvError::PendingWal(path.to_path_buf())),
        _ => Ok(()),
    }
}

/// The `file:` URI that opens `path` read-only and `immutable`: no journal, WAL or lock file is
/// ever touched.
pub(crate) fn read_only_uri(path: &Path) -> Result<String, EnvError> {
    Ok(format!("file:{}?mode=ro&immutable=1", uri_escape_path(path)?))
}

fn uri_escape_path(path: &Path) -> Result<String, EnvError> {
    let abs = std::path::absolute(path).map_err(|_| EnvError::NotFound(path.to_path_buf()))?;
    let s = abs.to_str().ok_or_else(|| EnvError::NonUtf8Path(path.to_path_buf()))?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            _ => out.push(c),
        }
    }
    Ok(out)
}
