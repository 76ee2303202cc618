//! What can go wrong in the environment: opening a database ([`EnvError`], an error of the
//! environment itself) and a tool call or query ([`ToolError`], the model's doing, whose text
//! the model is shown).

use std::path::PathBuf;
use std::time::Duration;

/// Why a database could not be opened as an environment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    /// The path names no file.
    #[error("database not found: {0}")]
    NotFound(PathBuf),
    /// The path names a directory, a FIFO, a device: something other than a regular file.
    #[error(
        "{} is {kind}, not a database file; give the path of a SQLite database file (a regular file, \
         e.g. shop.sqlite){}",
        path.display(),
        if *kind == "a directory" {
            "; or a folder that holds data files (.csv, .tsv, .jsonl, .ndjson, .parquet)"
        } else {
            ", copying the database to one first if need be"
        }
    )]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead: "a directory", "a named pipe (FIFO)", ...
        kind: &'static str,
    },
    /// The path's metadata could not be read (permissions, a broken mount).
    #[error("cannot read {}: {source} (check the path and its permissions)", path.display())]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// SQLite URIs need UTF-8 paths.
    #[error("database path is not valid UTF-8: {0} (rename the file or pass a different path)")]
    NonUtf8Path(PathBuf),
    /// The database is in WAL mode with transactions not yet folded into the main file.
    #[error(
        "{0} has a non-empty write-ahead log (-wal file); sqale opens databases immutable and would \
         read stale data. Fold the log in first, e.g. `sqlite3 {0} 'PRAGMA wal_checkpoint(TRUNCATE)'`, \
         or work on a copy"
    )]
    PendingWal(PathBuf),
    /// The thread that runs the database's statements could not be started.
    #[error("cannot start a thread for the database's queries: {0}")]
    Worker(String),
    /// A data file or folder could not be imported.
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    /// SQLite refused the file.
    #[error("cannot open {path} as a SQLite database: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
}

/// Why a tool call or a query failed. Its text (after `Error: `) is what the model is shown:
/// each says what was wrong and, where there is one, what to do instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// `args` was not a JSON object.
    #[error("args must be a JSON object, got {0}")]
    ArgsNotAnObject(&'static str),
    /// No tool by that name.
    #[error("unknown tool {name:?}. Available tools: {available}")]
    UnknownTool {
        /// The name written.
        name: String,
        /// The tools there are.
        available: String,
    },
    /// A required argument is missing.
    #[error("{tool} needs args.{arg}, e.g. {example}")]
    MissingArgument {
        /// The tool.
        tool: &'static str,
        /// The argument.
        arg: &'static str,
        /// A well-formed call.
        example: String,
    },
    /// An argument has the wrong type or value.
    #[error("{tool} needs {expected} in args.{arg}{got}")]
    BadArgument {
        /// The tool.
        tool: &'static str,
        /// The argument.
        arg: &'static str,
        /// What it takes, e.g. "a non-empty string".
        expected: &'static str,
        /// What it got (`, got a number`), or nothing.
        got: String,
    },
    /// The table or view does not exist.
    #[error("no such table: {0}. Call list_tables to see the tables")]
    NoSuchTable(String),
    /// The column does not exist.
    #[error("no such column: {column} in {table}. Columns: {columns}")]
    NoSuchColumn {
        /// The column asked for.
        column: String,
        /// The table.
        table: String,
        /// The table's columns.
        columns: String,
    },
    /// The SQL is longer than the limit.
    #[error("SQL is longer than {0} characters")]
    SqlTooLong(usize),
    /// More than one statement.
    #[error("only one statement per call is allowed")]
    MultipleStatements,
    /// No statement at all.
    #[error("empty SQL")]
    EmptySql,
    /// A statement that would write.
    #[error("the database is read-only: only queries that read are allowed")]
    Writes,
    /// The authorizer refused the statement.
    #[error("not allowed: the database is read-only and only SELECT queries (and reading PRAGMAs such as table_info) may run")]
    NotAllowed,
    /// The statement outlived its deadline.
    #[error("query stopped after {:.1} s (time limit); narrow it with WHERE or LIMIT", .0.as_secs_f64())]
    TimedOut(Duration),
    /// Too many earlier statements, stopped at their time limit, are still finishing.
    #[error(
        "{0} earlier queries stopped at their time limit are still finishing; try again in a moment, \
         with a narrower query (shorter strings, fewer rows)"
    )]
    Busy(usize),
    /// Internal: the statement about to run may take one long step and must run on the worker;
    /// the job is run again there. Never reaches a caller.
    #[doc(hidden)]
    #[error("internal: the statement must run on the worker")]
    NeedsWorker,
    /// A fresh connection, after a stopped statement, could not be opened.
    #[error("the database could not be reopened after a query was stopped: {0}")]
    Reopen(String),
    /// SQLite ran out of the memory it may use.
    #[error("query needs too much memory; narrow it with WHERE or LIMIT")]
    OutOfMemory,
    /// A full result is larger than evaluation reads.
    #[error("result has more than {0} rows")]
    TooManyRows(usize),
    /// A value could not be read (text that is not UTF-8).
    #[error("{0}")]
    Value(#[from] rusqlite::types::FromSqlError),
    /// SQLite read the file as damaged: it is, or (read as immutable, without locks) another
    /// process wrote it while it was read.
    #[error(
        "{message} (if another process writes this database, it changed while it was read: sqale reads a database \
         as immutable, without locks; ask over a copy, made with sqlite3 DB \".backup COPY\")"
    )]
    Corrupt {
        /// SQLite's message.
        message: String,
        /// The error.
        #[source]
        source: rusqlite::Error,
    },
    /// Any other SQLite error, with SQLite's own message.
    #[error("{message}")]
    Sqlite {
        /// SQLite's message (what the model sees).
        message: String,
        /// The error.
        #[source]
        source: rusqlite::Error,
    },
}
