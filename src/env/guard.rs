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
//! 5. a progress handler interrupts any statement that outlives its deadline, between VM steps
//!    (a single long function call is stopped by abandoning its worker: `super::worker`);
//! 6. limits on the length of any value and of a LIKE or GLOB pattern.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};

use super::limits::{HARD_HEAP_LIMIT_BYTES, MAX_LIKE_PATTERN_BYTES, MAX_VALUE_BYTES};
use super::EnvError;

/// Virtual tables, and tables with generated columns, of the database (see
/// `GuardedConnection::long_step_tables`).
fn long_step_tables_of(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut stmt = conn.prepare("SELECT name, coalesce(sql, '') FROM sqlite_schema WHERE type = 'table'")?;
    let tables = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut out = BTreeSet::new();
    for table in tables {
        let (name, sql) = table?;
        let is_virtual = sql.trim_start().get(..20).is_some_and(|s| s.eq_ignore_ascii_case("CREATE VIRTUAL TABLE"));
        // A table whose columns cannot be listed (a virtual table of a missing module) counts too.
        let generated = || -> rusqlite::Result<bool> {
            let sql =
                format!("SELECT count(*) FROM pragma_table_xinfo({}) WHERE hidden IN (2, 3)", quote_literal(&name));
            conn.query_row(&sql, [], |r| r.get::<_, i64>(0)).map(|n| n > 0)
        };
        if is_virtual || generated().unwrap_or(true) {
            out.insert(name);
        }
    }
    Ok(out)
}

fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// PRAGMAs that only read the schema; every other PRAGMA is refused.
const READ_ONLY_PRAGMAS: &[&str] =
    &["table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list"];

/// SQL functions refused even though the build does not enable them.
const REFUSED_FUNCTIONS: &[&str] = &["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"];

/// Functions one call of which can run for long inside a single VM step, where the progress
/// handler cannot stop it: their cost grows with the product of their arguments' lengths (or,
/// for the percentiles, sorts all the values at once). A statement that calls one (its views'
/// functions included) runs where it can be abandoned (`super::worker`).
const LONG_STEP_FUNCTIONS: &[&str] = &[
    "instr",
    "like",
    "glob",
    "trim",
    "ltrim",
    "rtrim",
    "replace",
    "unhex",
    "json_set",
    "json_insert",
    "json_replace",
    "json_remove",
    "json_patch",
    "jsonb_set",
    "jsonb_insert",
    "jsonb_replace",
    "jsonb_remove",
    "jsonb_patch",
    "median",
    "percentile",
    "percentile_cont",
    "percentile_disc",
];

/// A database file larger than this may hold single steps (a table's row count, a sort of one
/// batch of rows) long enough to outlive a deadline: all its statements run on the worker.
const LARGE_DATABASE_BYTES: u64 = 64 << 20;

/// A connection guarded as described in the module docs, with a per-statement deadline.
pub(crate) struct GuardedConnection {
    pub(crate) conn: Connection,
    /// Tables the authorizer saw read since the last [`GuardedConnection::take_reads`].
    reads: Arc<Mutex<BTreeSet<String>>>,
    /// Whether a statement prepared since the last [`GuardedConnection::long_steps`] may run
    /// one long step: it calls one of [`LONG_STEP_FUNCTIONS`], or reads a virtual table (a
    /// full-text MATCH runs in one step) or a table with generated columns (whose expressions
    /// the authorizer never sees).
    long_step: Arc<AtomicBool>,
    /// The file is larger than [`LARGE_DATABASE_BYTES`].
    pub(crate) large: bool,
    /// The deadline of the statement running now, shared with the progress handler and with
    /// whoever waits for the statement.
    clock: Arc<Clock>,
}

/// A deadline that one thread arms and others read: microseconds since an epoch, `u64::MAX`
/// when nothing runs.
#[derive(Debug)]
pub(crate) struct Clock {
    epoch: Instant,
    deadline_us: AtomicU64,
}

impl Clock {
    fn new() -> Self {
        Clock { epoch: Instant::now(), deadline_us: AtomicU64::new(u64::MAX) }
    }

    fn set(&self, timeout: Duration) {
        let deadline = self.epoch.elapsed() + timeout;
        self.deadline_us.store(deadline.as_micros() as u64, Ordering::SeqCst);
    }

    /// The armed deadline, or `None` when nothing runs.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        match self.deadline_us.load(Ordering::SeqCst) {
            u64::MAX => None,
            us => Some(self.epoch + Duration::from_micros(us)),
        }
    }

    fn passed(&self) -> bool {
        self.epoch.elapsed().as_micros() as u64 > self.deadline_us.load(Ordering::Relaxed)
    }
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
        let long_step = Arc::new(AtomicBool::new(false));
        let auth_long_step = Arc::clone(&long_step);
        let long_step_tables: Arc<Mutex<BTreeSet<String>>> = Arc::new(Mutex::new(BTreeSet::new()));
        let auth_long_step_tables = Arc::clone(&long_step_tables);
        let setup = |conn: &mut Connection| -> rusqlite::Result<()> {
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE, false)?;
            conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
            conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
            conn.set_limit(Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, MAX_LIKE_PATTERN_BYTES)?;
            conn.execute_batch("PRAGMA query_only = ON; PRAGMA temp_store = MEMORY;")?;
            // Fail fast on a file that is not a database (the open itself is lazy).
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))?;
            conn.authorizer(Some(move |ctx: AuthContext<'_>| {
                match ctx.action {
                    AuthAction::Read { table_name, .. } => {
                        // `SELECT count(*) FROM t` reads no column: SQLite then reports the table
                        // once, with an empty column and no database name.
                        if matches!(ctx.database_name, Some("main") | None) && !table_name.starts_with("sqlite_") {
                            if let Ok(mut r) = auth_reads.lock() {
                                r.insert(table_name.to_string());
                            }
                        }
                        if auth_long_step_tables.lock().map_or(true, |t| t.contains(table_name)) {
                            auth_long_step.store(true, Ordering::Relaxed);
                        }
                    }
                    AuthAction::Function { function_name }
                        if LONG_STEP_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(function_name)) =>
                    {
                        auth_long_step.store(true, Ordering::Relaxed);
                    }
                    _ => {}
                }
                authorize(ctx)
            }))?;
            Ok(())
        };
        setup(&mut conn).map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        let tables = long_step_tables_of(&conn).map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        if let Ok(mut t) = long_step_tables.lock() {
            *t = tables;
        }
        let large = std::fs::metadata(path).map_or(true, |m| m.len() > LARGE_DATABASE_BYTES);
        let clock = Arc::new(Clock::new());
        let handler_clock = Arc::clone(&clock);
        conn.progress_handler(1000, Some(move || handler_clock.passed()))
            .map_err(|e| EnvError::Open { path: path.to_path_buf(), source: e })?;
        Ok(GuardedConnection { conn, reads, long_step, large, clock })
    }

    /// Whether a statement prepared since the last call may run one long step; resets.
    pub(crate) fn long_steps(&self) -> bool {
        self.long_step.swap(false, Ordering::Relaxed)
    }

    /// The connection's deadline, for a thread that waits on the statements.
    pub(crate) fn clock(&self) -> Arc<Clock> {
        Arc::clone(&self.clock)
    }

    /// The tables statements prepared since the last call read (through views too).
    pub(crate) fn take_reads(&self) -> BTreeSet<String> {
        self.reads.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default()
    }

    /// Arms the deadline for the statement about to run. When the guard drops, a fresh
    /// `timeout` is armed for the work between statements (the waiting thread then still has a
    /// deadline to hold the call to); [`GuardedConnection::disarm`] ends it.
    pub(crate) fn arm(&self, timeout: Duration) -> DeadlineGuard<'_> {
        self.clock.set(timeout);
        DeadlineGuard { owner: self, timeout }
    }

    /// Nothing runs any more: no deadline.
    pub(crate) fn disarm(&self) {
        self.clock.deadline_us.store(u64::MAX, Ordering::SeqCst);
    }
}

/// Re-arms a fresh deadline on drop (see [`GuardedConnection::arm`]).
pub(crate) struct DeadlineGuard<'a> {
    owner: &'a GuardedConnection,
    timeout: Duration,
}

impl Drop for DeadlineGuard<'_> {
    fn drop(&mut self) {
        self.owner.clock.set(self.timeout);
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
    check_regular_file(path)?;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    match std::fs::metadata(&wal) {
        Ok(m) if m.len() > 0 => Err(EnvError::PendingWal(path.to_path_buf())),
        _ => Ok(()),
    }
}

/// Refuses a path that is not a regular file, from its metadata alone: opening a FIFO would
/// block until a writer came, and a directory or device is no database.
fn check_regular_file(path: &Path) -> Result<(), EnvError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(EnvError::NotFound(path.to_path_buf())),
        Err(e) => return Err(EnvError::Unreadable { path: path.to_path_buf(), source: e }),
    };
    if meta.is_file() {
        return Ok(());
    }
    Err(EnvError::NotAFile { path: path.to_path_buf(), kind: crate::regular_file::kind_of(&meta) })
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
