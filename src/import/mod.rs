//! Data files as databases: a `.csv`, `.tsv`, `.jsonl` (`.ndjson`), `.parquet` or `.xlsx` file,
//! or a folder of them, imported into a private SQLite database that the environment then opens
//! read-only like any other.
//!
//! - One table a file, named after the file (`orders.csv` → `orders`); its columns named by the
//!   header (CSV, TSV), the keys (JSON Lines) or the schema (Parquet), their types inferred from
//!   every value: `INTEGER`, `REAL`, `TEXT` (or `BLOB`). An empty CSV cell is `NULL`.
//! - An Excel workbook (`.xlsx`) gives one table a sheet that has a value, named after the sheet
//!   (`Orders`), or in a folder after the file and the sheet (`sales.xlsx`'s sheet `Q1` →
//!   `sales_Q1`); the sheet's first row names the columns. Dates become ISO 8601 text.
//! - The file is only ever read (opened read-only, never blocking on a FIFO, never a device).
//! - The database is built in the user's cache (`imports/`), named by the content hash of the
//!   files it came from, and written whole or not at all: a second question over the same
//!   file opens it again without importing, and a changed file is imported afresh.
//! - Bounded: [`MAX_BYTES`] of files, [`MAX_ROWS`] rows, [`MAX_COLUMNS`] columns a table,
//!   [`MAX_FILES`] files a folder, [`MAX_SECONDS`] seconds; past any of them the import stops
//!   with an [`ImportError`] that says which, and leaves nothing behind.

mod formats;
mod names;
mod workbook;

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::types::Value;
use sha2::{Digest, Sha256};

use formats::{Cell, Format};

/// Bytes of data files one import reads at most (the files' sizes together), and bytes of
/// values it writes at most.
pub const MAX_BYTES: u64 = 1 << 30;
/// Rows one import writes at most (all tables together).
pub const MAX_ROWS: u64 = 10_000_000;
/// Columns a table may have (SQLite's own default limit).
pub const MAX_COLUMNS: usize = 2000;
/// Data files a folder may hold.
pub const MAX_FILES: usize = 256;
/// Seconds one import may take.
pub const MAX_SECONDS: u64 = 300;
/// Bytes one line of a JSON Lines file may hold.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The extensions imported (lower case; matched without regard to case).
pub const EXTENSIONS: &[&str] = &["csv", "tsv", "jsonl", "ndjson", "parquet", "xlsx"];

/// Bumped whenever the same files would import differently: part of the cache key.
const IMPORT_VERSION: &str = "sqale-import-1";

/// Why a data file or folder could not become a database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A file could not be read as its format: what is wrong and how to fix it.
    #[error("cannot import {} as a database: {reason}", path.display())]
    File {
        /// The file (or folder).
        path: PathBuf,
        /// What is wrong, and the fix.
        reason: String,
    },
    /// A bound was passed.
    #[error("cannot import {} as a database: {what} (sqale imports at most {limit}); {fix}", path.display())]
    TooLarge {
        /// The file (or folder).
        path: PathBuf,
        /// What passed the bound.
        what: String,
        /// The bound, in words.
        limit: String,
        /// What to do instead.
        fix: &'static str,
    },
    /// The database could not be written into the cache.
    #[error(
        "cannot write the database imported from {} into {}: {source} (make the cache writable or set XDG_CACHE_HOME to a writable folder)",
        path.display(), dir.display()
    )]
    Cache {
        /// The file (or folder).
        path: PathBuf,
        /// The cache folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

const SMALLER: &str = "import a smaller file, or build a SQLite database from it yourself and pass that";

/// Whether `path` names a data file by its extension (`.csv`, `.tsv`, `.jsonl`, `.ndjson`,
/// `.parquet`, `.xlsx`, in any case).
pub fn is_data_file(path: &Path) -> bool {
    Format::of(path).is_some()
}

/// The SQLite database to open for `path`: `None` when `path` is neither a data file nor a
/// folder (it is opened as a database itself), else the imported database's file in the cache
/// (imported now unless an import of the same content is already there).
pub fn resolve(path: &Path) -> Result<Option<PathBuf>, ImportError> {
    let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    if !is_dir && !is_data_file(path) {
        return Ok(None);
    }
    let sources = if is_dir { folder(path)? } else { vec![Source::of(path, path)?] };
    if sources.is_empty() {
        // A folder without data files: opened (and refused) as a database.
        return Ok(None);
    }
    let stamps: Vec<Stamp> = sources.iter().map(|s| s.stamp.clone()).collect();
    static SEEN: Mutex<Option<Seen>> = Mutex::new(None);
    let key_path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Some((seen, db)) = SEEN.lock().ok().and_then(|m| m.as_ref().and_then(|m| m.get(&key_path).cloned())) {
        if seen == stamps && db.is_file() {
            return Ok(Some(db));
        }
    }
    let db = import_cached(path, sources)?;
    if let Ok(mut m) = SEEN.lock() {
        m.get_or_insert_with(HashMap::new).insert(key_path, (stamps, db.clone()));
    }
    Ok(Some(db))
}

/// The imports this process has made or found: a path given, the stamps of its files then, and
/// its database.
type Seen = HashMap<PathBuf, (Vec<Stamp>, PathBuf)>;

/// What identifies a file's version without reading it: size, modification time, inode.
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    path: PathBuf,
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    ino: u64,
}

/// One data file to import, opened.
struct Source {
    file: File,
    path: PathBuf,
    table: String,
    format: Format,
    stamp: Stamp,
    /// Whether it was found in a folder (a workbook's tables are then named `<file>_<sheet>`).
    in_folder: bool,
}

impl Source {
    /// Opens `path` (a data file; `shown` is what the user gave, for messages).
    fn of(path: &Path, shown: &Path) -> Result<Self, ImportError> {
        let bad = |reason: String| ImportError::File { path: shown.to_path_buf(), reason };
        let format =
            Format::of(path).ok_or_else(|| bad("not a .csv, .tsv, .jsonl, .ndjson, .parquet or .xlsx file".into()))?;
        let file = crate::regular_file::open(path).map_err(|e| match crate::regular_file::not_regular(&e) {
            Some(kind) => {
                bad(format!("{} is {kind}, not a regular file: save the data to a file and pass that", path.display()))
            }
            None if e.kind() == std::io::ErrorKind::NotFound => bad("no such file: check the path".into()),
            None => bad(format!("cannot open {}: {e} (check the path and its permissions)", path.display())),
        })?;
        let meta = file.metadata().map_err(|e| bad(format!("cannot read its metadata: {e}")))?;
        let table = names::table_name(path).map_err(bad)?;
        let stamp = Stamp {
            path: path.to_path_buf(),
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            ino: std::os::unix::fs::MetadataExt::ino(&meta),
        };
        Ok(Source { file, path: path.to_path_buf(), table, format, stamp, in_folder: false })
    }
}

/// The data files directly in `dir`, by name (none: an empty list); other files and folders
/// are left out.
fn folder(dir: &Path) -> Result<Vec<Source>, ImportError> {
    let bad = |reason: String| ImportError::File { path: dir.to_path_buf(), reason };
    let entries = std::fs::read_dir(dir).map_err(|e| bad(format!("cannot list the folder: {e}")))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| bad(format!("cannot list the folder: {e}")))?;
        let path = entry.path();
        if is_data_file(&path) && !std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
            paths.push(path);
            if paths.len() > MAX_FILES {
                return Err(ImportError::TooLarge {
                    path: dir.to_path_buf(),
                    what: format!("more than {MAX_FILES} data files"),
                    limit: format!("{MAX_FILES} files a folder"),
                    fix: "pass a folder with fewer files",
                });
            }
        }
    }
    paths.sort();
    let mut sources = paths.iter().map(|p| Source::of(p, p)).collect::<Result<Vec<_>, _>>()?;
    for s in &mut sources {
        s.in_folder = true;
    }
    let mut seen: HashMap<String, &Path> = HashMap::new();
    // A workbook's tables are named after its sheets too: `build` checks those when it reads them.
    for s in sources.iter().filter(|s| s.format != Format::Xlsx) {
        if let Some(other) = seen.insert(s.table.to_lowercase(), &s.path) {
            return Err(bad(format!(
                "{} and {} would both be table {:?}: rename one of them",
                other.display(),
                s.path.display(),
                s.table
            )));
        }
    }
    Ok(sources)
}

/// The cached database for `sources`, imported unless it is already there.
fn import_cached(shown: &Path, mut sources: Vec<Source>) -> Result<PathBuf, ImportError> {
    let total: u64 = sources.iter().map(|s| s.stamp.len).sum();
    if total > MAX_BYTES {
        return Err(ImportError::TooLarge {
            path: shown.to_path_buf(),
            what: format!("{total} bytes of data"),
            limit: format!("{MAX_BYTES} bytes"),
            fix: SMALLER,
        });
    }
    let deadline = Deadline::new(shown);
    let mut key = Sha256::new();
    key.update(IMPORT_VERSION);
    for s in &mut sources {
        key.update(s.table.as_bytes());
        key.update([0]);
        if s.format == Format::Xlsx {
            // Its tables' names depend on whether it was imported alone or in a folder.
            key.update([u8::from(s.in_folder)]);
        }
        key.update(content_hash(s, shown, &deadline)?);
    }
    let name = format!("{}.sqlite", &crate::hash::hex(&key.finalize())[..32]);
    let mut last = None;
    for dir in cache_dirs() {
        let db = dir.join(&name);
        if db.is_file() {
            return Ok(db);
        }
        match std::fs::create_dir_all(&dir).and_then(|()| tempfile::Builder::new().prefix(".import-").tempfile_in(&dir))
        {
            Ok(tmp) => {
                build(tmp.path(), &mut sources, shown, &deadline)?;
                tmp.persist(&db).map_err(|e| ImportError::Cache { path: shown.to_path_buf(), dir, source: e.error })?;
                return Ok(db);
            }
            Err(e) => last = Some(ImportError::Cache { path: shown.to_path_buf(), dir, source: e }),
        }
    }
    Err(last.unwrap_or_else(|| ImportError::Cache {
        path: shown.to_path_buf(),
        dir: crate::cache::root(),
        source: std::io::Error::other("no cache folder"),
    }))
}

/// Where imported databases are kept: the user's cache, else a private temporary folder.
fn cache_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![crate::cache::root().join("imports")];
    if let Ok(tmp) = crate::demo::private_temp_dir() {
        dirs.push(tmp.join("imports"));
    }
    dirs
}

/// SHA-256 of the file's bytes (at most [`MAX_BYTES`] of them); the file is left at its start.
fn content_hash(s: &mut Source, shown: &Path, deadline: &Deadline) -> Result<[u8; 32], ImportError> {
    let io = |e: std::io::Error| ImportError::File { path: s.path.clone(), reason: format!("cannot read it: {e}") };
    let mut hasher = Sha256::new();
    let mut reader = (&s.file).take(MAX_BYTES + 1);
    let mut buf = vec![0u8; 1 << 16];
    let mut read = 0u64;
    loop {
        let n = reader.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
        deadline.check()?;
    }
    if read > MAX_BYTES {
        return Err(ImportError::TooLarge {
            path: shown.to_path_buf(),
            what: format!("{} holds more than {MAX_BYTES} bytes", s.path.display()),
            limit: format!("{MAX_BYTES} bytes"),
            fix: SMALLER,
        });
    }
    s.file.rewind().map_err(io)?;
    Ok(hasher.finalize().into())
}

/// The import's time limit.
struct Deadline {
    path: PathBuf,
    end: Instant,
}

impl Deadline {
    fn new(path: &Path) -> Self {
        Deadline { path: path.to_path_buf(), end: Instant::now() + Duration::from_secs(MAX_SECONDS) }
    }

    fn check(&self) -> Result<(), ImportError> {
        if Instant::now() > self.end {
            return Err(ImportError::TooLarge {
                path: self.path.clone(),
                what: format!("importing took more than {MAX_SECONDS} seconds"),
                limit: format!("{MAX_SECONDS} seconds"),
                fix: SMALLER,
            });
        }
        Ok(())
    }
}

/// What one import has written so far, against the bounds.
struct Budget<'a> {
    shown: &'a Path,
    rows: u64,
    bytes: u64,
}

impl Budget<'_> {
    fn add(&mut self, cells: &[Cell]) -> Result<(), ImportError> {
        self.rows += 1;
        self.bytes += cells.iter().map(Cell::size).sum::<u64>();
        let over = |what: String, limit: String| ImportError::TooLarge {
            path: self.shown.to_path_buf(),
            what,
            limit,
            fix: SMALLER,
        };
        if self.rows > MAX_ROWS {
            return Err(over(format!("more than {MAX_ROWS} rows"), format!("{MAX_ROWS} rows")));
        }
        if self.bytes > MAX_BYTES {
            return Err(over(format!("more than {MAX_BYTES} bytes of values"), format!("{MAX_BYTES} bytes")));
        }
        Ok(())
    }
}

/// Imports every source into a new database at `db` (a fresh temporary file).
fn build(db: &Path, sources: &mut [Source], shown: &Path, deadline: &Deadline) -> Result<(), ImportError> {
    let sql = |e: rusqlite::Error| ImportError::File {
        path: shown.to_path_buf(),
        reason: format!("writing the database: {e}"),
    };
    let mut conn = rusqlite::Connection::open(db).map_err(sql)?;
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;").map_err(sql)?;
    let tx = conn.transaction().map_err(sql)?;
    let mut budget = Budget { shown, rows: 0, bytes: 0 };
    let mut tables = Tables { shown, made: HashMap::new() };
    for s in sources.iter_mut() {
        if s.format == Format::Xlsx {
            import_workbook(&tx, s, &mut tables, &mut budget, deadline)?;
        } else {
            tables.claim(&s.table, &s.path, None)?;
            import_one(&tx, s, &mut budget, deadline)?;
        }
    }
    tx.commit().map_err(sql)?;
    conn.close().map_err(|(_, e)| sql(e))?;
    Ok(())
}

/// Reads `s` twice: once for its columns and their types, once into its table.
fn import_one(
    tx: &rusqlite::Transaction<'_>,
    s: &mut Source,
    budget: &mut Budget<'_>,
    deadline: &Deadline,
) -> Result<(), ImportError> {
    let path = s.path.clone();
    let bad = |reason: String| ImportError::File { path: path.clone(), reason };
    let mut kinds: Vec<Kind> = Vec::new();
    let mut n = 0u64;
    let columns = formats::scan(&s.file, s.format, &s.path, &mut |cells| {
        if cells.len() > kinds.len() {
            kinds.resize(cells.len(), Kind::Null);
        }
        for (k, c) in kinds.iter_mut().zip(&cells) {
            *k = k.join(c.kind());
        }
        n += 1;
        if n > MAX_ROWS {
            return Err(ImportError::TooLarge {
                path: s.path.clone(),
                what: format!("more than {MAX_ROWS} rows"),
                limit: format!("{MAX_ROWS} rows"),
                fix: SMALLER,
            });
        }
        if n.is_multiple_of(4096) {
            deadline.check()?;
        }
        Ok(())
    })?;
    if columns.len() > MAX_COLUMNS {
        return Err(ImportError::TooLarge {
            path: s.path.clone(),
            what: format!("{} columns", columns.len()),
            limit: format!("{MAX_COLUMNS} columns a table"),
            fix: "keep fewer columns",
        });
    }
    let columns = names::column_names(&columns).map_err(bad)?;
    kinds.resize(columns.len(), Kind::Null);
    let sql = |e: rusqlite::Error| bad(format!("writing table {:?}: {e}", s.table));
    let mut insert = create_table(tx, &s.table, &columns, &kinds).map_err(sql)?;
    s.file.rewind().map_err(|e| bad(format!("cannot read it again: {e}")))?;
    let mut written = 0u64;
    formats::scan(&s.file, s.format, &s.path, &mut |cells| {
        budget.add(&cells)?;
        let mut values: Vec<Value> = cells.into_iter().zip(&kinds).map(|(c, k)| c.into_value(*k)).collect();
        values.resize(columns.len(), Value::Null);
        insert.execute(rusqlite::params_from_iter(values)).map_err(sql)?;
        written += 1;
        if written.is_multiple_of(4096) {
            deadline.check()?;
        }
        Ok(())
    })?;
    if written != n {
        return Err(bad("the file changed while it was imported: try again".into()));
    }
    Ok(())
}

/// Creates table `table` with `columns` of `kinds`; the statement that inserts one row.
fn create_table<'t>(
    tx: &'t rusqlite::Transaction<'_>,
    table: &str,
    columns: &[String],
    kinds: &[Kind],
) -> rusqlite::Result<rusqlite::Statement<'t>> {
    let defs: Vec<String> =
        columns.iter().zip(kinds).map(|(c, k)| format!("{} {}", crate::env::quote_ident(c), k.sql_type())).collect();
    tx.execute_batch(&format!("CREATE TABLE {} ({})", crate::env::quote_ident(table), defs.join(", ")))?;
    let marks = vec!["?"; columns.len()].join(", ");
    tx.prepare(&format!("INSERT INTO {} VALUES ({marks})", crate::env::quote_ident(table)))
}

/// The tables one import (of `shown`) has made, by name in lower case (SQLite's names ignore
/// ASCII case): where each came from.
struct Tables<'a> {
    shown: &'a Path,
    made: HashMap<String, String>,
}

impl Tables<'_> {
    /// Takes `table` for `path` (and `sheet`), or says what already has it.
    fn claim(&mut self, table: &str, path: &Path, sheet: Option<&str>) -> Result<(), ImportError> {
        let from = match sheet {
            Some(sheet) => format!("sheet \"{}\" of {}", crate::printable::escape_line(sheet), path.display()),
            None => path.display().to_string(),
        };
        if let Some(other) = self.made.get(&table.to_lowercase()) {
            return Err(ImportError::File {
                path: self.shown.to_path_buf(),
                reason: format!(
                    "{other} and {from} would both be table \"{}\": rename one of them",
                    crate::printable::escape_line(table)
                ),
            });
        }
        self.made.insert(table.to_lowercase(), from);
        Ok(())
    }
}

/// Imports each sheet of the workbook `s` that has a value as a table of its own.
fn import_workbook(
    tx: &rusqlite::Transaction<'_>,
    s: &mut Source,
    tables: &mut Tables<'_>,
    budget: &mut Budget<'_>,
    deadline: &Deadline,
) -> Result<(), ImportError> {
    let path = s.path.clone();
    let bad = |reason: String| ImportError::File { path: path.clone(), reason };
    let prefix = s.in_folder.then_some(s.table.as_str());
    workbook::sheets(&s.file, &s.path, deadline, &mut |sheet| {
        let table = names::sheet_table_name(prefix, &sheet.name).map_err(bad)?;
        tables.claim(&table, &s.path, Some(&sheet.name))?;
        let shown_sheet = crate::printable::escape_line(&sheet.name);
        let columns =
            names::column_names(&sheet.header).map_err(|e| bad(format!("in sheet \"{shown_sheet}\", {e}")))?;
        let mut kinds = vec![Kind::Null; columns.len()];
        for row in &sheet.rows {
            for (k, c) in kinds.iter_mut().zip(row) {
                *k = k.join(c.kind());
            }
        }
        let sql = |e: rusqlite::Error| bad(format!("writing table {table:?}: {e}"));
        let mut insert = create_table(tx, &table, &columns, &kinds).map_err(sql)?;
        for (n, row) in sheet.rows.into_iter().enumerate() {
            budget.add(&row)?;
            let values: Vec<Value> = row.into_iter().zip(&kinds).map(|(c, k)| c.into_value(*k)).collect();
            insert.execute(rusqlite::params_from_iter(values)).map_err(sql)?;
            if (n + 1).is_multiple_of(4096) {
                deadline.check()?;
            }
        }
        Ok(())
    })
}

/// A column's type, from the values in it: the narrowest that holds them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Integer,
    Real,
    Text,
    Blob,
}

impl Kind {
    fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (Null, k) | (k, Null) => k,
            (a, b) if a == b => a,
            (Integer, Real) | (Real, Integer) => Real,
            _ => Text,
        }
    }

    fn sql_type(self) -> &'static str {
        match self {
            Kind::Integer => "INTEGER",
            Kind::Real => "REAL",
            Kind::Blob => "BLOB",
            Kind::Null | Kind::Text => "TEXT",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_join_to_the_narrowest_that_holds_both() {
        assert_eq!(Kind::Null.join(Kind::Integer), Kind::Integer);
        assert_eq!(Kind::Integer.join(Kind::Real), Kind::Real);
        assert_eq!(Kind::Real.join(Kind::Text), Kind::Text);
        assert_eq!(Kind::Blob.join(Kind::Integer), Kind::Text);
        assert_eq!(Kind::Null.sql_type(), "TEXT");
    }

    #[test]
    fn data_files_are_known_by_extension_in_any_case() {
        assert!(is_data_file(Path::new("a/Sales.CSV")));
        assert!(is_data_file(Path::new("x.parquet")));
        assert!(!is_data_file(Path::new("shop.sqlite")));
        assert!(!is_data_file(Path::new("csv")));
    }
}
