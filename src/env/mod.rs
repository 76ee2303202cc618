//! The SQLite environment: the eight tools the models were trained with, over a database that
//! nothing the model writes can change.
//!
//! This module knows nothing of models or prompts. A tool call is a name and a JSON object of
//! arguments; its result is text for the model plus whether the call succeeded. Errors the model
//! caused (bad SQL, unknown tool, missing argument) are results, never `Err`: only failing to
//! open the database is an error of the environment itself.

mod error;
mod format;
mod guard;
mod limits;
mod preview;
mod schema;
mod worker;

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;
use serde_json::{Map, Value};

pub use error::{EnvError, ToolError};
pub use limits::{Limits, STOP_GRACE};
pub use preview::{preview, PreviewError, RowsPreview};

use crate::tools::{self, ArgKind, Tool};
use format::TableText;
pub(crate) use guard::read_only_uri;
pub(crate) use schema::quote_ident;
use schema::Relation;
use worker::{Runner, Session};

/// A database's tables (views left out), and its foreign keys as `(from_table, to_table)`
/// pairs.
pub type TableGraph = (Vec<String>, Vec<(String, String)>);

/// A table or view and its columns: `(relation, [(column, declared type)])`.
pub type RelationColumns = (String, Vec<(String, String)>);

/// Rows [`Environment::execute`] returns at most.
pub const MAX_EXECUTE_ROWS: usize = 1_000_000;

/// What one tool call produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolResult {
    /// False when the call failed (unknown tool, bad arguments, SQL error, time limit).
    pub ok: bool,
    /// Exactly what the model is shown.
    pub result: String,
}

impl ToolResult {
    fn ok(result: String) -> Self {
        ToolResult { ok: true, result }
    }
    fn err(error: &ToolError) -> Self {
        ToolResult { ok: false, result: format!("Error: {error}") }
    }
}

/// The result of running one query fully: every row, every value, unformatted. Used to check a
/// final answer and, by evaluation, to compare result sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows {
    /// Column names as written in the query.
    pub columns: Vec<String>,
    /// The rows in the order SQLite returned them.
    pub rows: Vec<Vec<rusqlite::types::Value>>,
}

/// A database opened for one episode, read-only, with every guard installed. Its statements run
/// on a worker thread that is abandoned when one outlives its deadline ([`Limits::isolate`]), so
/// every method returns within the time limit plus [`STOP_GRACE`] whatever the SQL computes.
pub struct Environment {
    runner: Runner,
    path: PathBuf,
    limits: Limits,
    /// Tables the model has opened: named by a successful tool call, or read by a query that ran.
    opened: std::collections::BTreeSet<String>,
}

impl Environment {
    /// Opens `path` read-only with default [`Limits`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, EnvError> {
        Self::with_limits(path, Limits::default())
    }

    /// Opens `path` read-only with the given limits. A data file (`.csv`, `.tsv`, `.jsonl`,
    /// `.parquet`, `.xlsx`) or a folder of them is imported first ([`crate::import`]).
    pub fn with_limits(path: impl AsRef<Path>, limits: Limits) -> Result<Self, EnvError> {
        let path = path.as_ref();
        // A data file or a folder of them: its imported database (the one place every command's
        // database is opened, so `--db sales.csv` works wherever `--db` does).
        let db = crate::import::resolve(path)?;
        Ok(Environment {
            runner: Runner::open(db.as_deref().unwrap_or(path), limits.clone())?,
            path: path.to_path_buf(),
            limits,
            opened: Default::default(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Runs one tool call. `args` is the call's `args` object (`Value::Null` when absent). Every
    /// result, failed or not, is held to [`Limits::max_result_chars`] characters, the cut stated.
    pub fn call(&mut self, tool: &str, args: &Value) -> ToolResult {
        let mut result = self.call_uncapped(tool, args);
        result.result = format::cap(std::mem::take(&mut result.result), self.limits.max_result_chars);
        result
    }

    fn call_uncapped(&mut self, tool: &str, args: &Value) -> ToolResult {
        let mut count = None;
        loop {
            let (tool, args, given) = (tool.to_string(), args.clone(), count.take());
            match self.runner.run(move |s| s.call(&tool, &args, given.clone())) {
                Ok(Outcome::Done(result, opened)) => {
                    self.opened.extend(opened);
                    return result;
                }
                // Counting a view's rows runs its whole query, which may have to be abandoned:
                // a job of its own, so that the description still comes back.
                Ok(Outcome::CountView(view)) => {
                    let counted = self.runner.run(move |s| s.row_count(&view));
                    count = Some(counted.unwrap_or_else(|_| ROW_COUNT_UNAVAILABLE.to_string()));
                }
                Err(e) => return ToolResult::err(&e),
            }
        }
    }

    /// Tables opened so far in this episode: named by a tool call that succeeded, or read by a
    /// query that ran (base tables behind views included).
    pub fn opened_tables(&self) -> Vec<String> {
        self.opened.iter().cloned().collect()
    }

    /// The tables `sql` reads (base tables behind views included), from SQLite's own planner;
    /// the statement is prepared, not run.
    pub fn tables_read(&mut self, sql: &str) -> Result<Vec<String>, ToolError> {
        let sql = sql.to_string();
        self.runner.run(move |s| s.tables_read(&sql))
    }

    /// The database's views, in schema order.
    pub fn views(&self) -> Result<Vec<String>, ToolError> {
        self.runner.run(|s| Ok(s.relations()?.into_iter().filter(|r| r.is_view).map(|r| r.name).collect()))
    }

    /// Each table's and view's columns, in schema order: `(relation, [(column, declared type)])`.
    pub fn columns(&self) -> Result<Vec<RelationColumns>, ToolError> {
        self.runner.run(|s| {
            let rels = s.relations()?;
            let _deadline = s.db.arm(s.limits.timeout);
            rels.into_iter()
                .map(|r| {
                    let cols = schema::columns(&s.db.conn, &r.name).map_err(|e| s.sql_error(e))?;
                    Ok((r.name, cols.into_iter().map(|c| (c.name, c.decl_type)).collect()))
                })
                .collect()
        })
    }

    /// The database's tables (views left out) in schema order, and its foreign keys as
    /// `(from_table, to_table)` pairs.
    pub fn table_graph(&self) -> Result<TableGraph, ToolError> {
        self.runner.run(|s| s.table_graph())
    }

    /// Runs `sql` to completion under the same guards and time limit, returning every row
    /// (bounded by the time limit and [`MAX_EXECUTE_ROWS`]). For checking answers, not for
    /// showing to the model.
    pub fn execute(&mut self, sql: &str) -> Result<Rows, ToolError> {
        let sql = sql.to_string();
        self.runner.run(move |s| s.execute(&sql))
    }

    /// The first `max_rows` rows of `sql`, under the same guards and time limit, and whether it
    /// returned more. For showing an answer to people; the query is not run to its end.
    pub fn first_rows(&mut self, sql: &str, max_rows: usize) -> Result<(Rows, bool), ToolError> {
        let sql = sql.to_string();
        self.runner.run(move |s| s.first_rows(&sql, max_rows))
    }

    /// Whether `sql` runs to completion under the guards and time limit; returns its row count.
    pub fn check(&mut self, sql: &str) -> Result<usize, ToolError> {
        let sql = sql.to_string();
        self.runner.run(move |s| s.check(&sql))
    }
}

/// What `describe_table` says when a table's rows could not be counted in time.
const ROW_COUNT_UNAVAILABLE: &str = "row count unavailable";

/// What a tool call's job came back with.
enum Outcome {
    /// The result, and the tables the call opened.
    Done(ToolResult, Vec<String>),
    /// `describe_table` of a view: count its rows first (in a job of its own), then call again
    /// with the count.
    CountView(String),
}

impl Session {
    /// Runs one tool call. `count` is a view's row count for `describe_table`, counted by an
    /// earlier job after [`Outcome::CountView`].
    ///
    /// Errs only with [`ToolError::NeedsWorker`]; every other error is the call's result.
    fn call(&mut self, tool: &str, args: &Value, count: Option<String>) -> Result<Outcome, ToolError> {
        let args = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Ok(Outcome::Done(ToolResult::err(&ToolError::ArgsNotAnObject(json_kind(other))), Vec::new()))
            }
        };
        let Some(tool) = Tool::from_name(tool) else {
            let e = ToolError::UnknownTool { name: tool.to_string(), available: tools::names() };
            return Ok(Outcome::Done(ToolResult::err(&e), Vec::new()));
        };
        if tool == Tool::DescribeTable && count.is_none() {
            let name = args.and_then(|m| m.get("table_name")).and_then(Value::as_str);
            if let (Some(name), Ok(rels)) = (name, self.relations()) {
                if let Some(view) = schema::resolve(&rels, name).filter(|r| r.is_view) {
                    return Ok(Outcome::CountView(view.name.clone()));
                }
            }
        }
        let _ = self.db.take_reads();
        let result = self.run_tool(tool, &Args { tool, map: args }, count);
        let reads = self.db.take_reads();
        let mut opened = Vec::new();
        match result {
            Ok(text) => {
                // A successful call opened what it read: the tables a tool named (tools read
                // them with their own queries) or the tables a query touched.
                if tool != Tool::ListTables {
                    opened.extend(reads);
                    let named: Vec<&str> = tool
                        .spec()
                        .args
                        .iter()
                        .filter(|a| a.kind == ArgKind::Table)
                        .filter_map(|a| args.and_then(|m| m.get(a.name)).and_then(Value::as_str))
                        .collect();
                    if !named.is_empty() {
                        if let Ok(rels) = self.relations() {
                            opened
                                .extend(named.iter().filter_map(|n| schema::resolve(&rels, n)).map(|r| r.name.clone()));
                        }
                        let _ = self.db.take_reads();
                    }
                }
                Ok(Outcome::Done(ToolResult::ok(text), opened))
            }
            Err(ToolError::NeedsWorker) => Err(ToolError::NeedsWorker),
            Err(e) => Ok(Outcome::Done(ToolResult::err(&e), opened)),
        }
    }

    /// Reads a call's arguments as its catalogue entry says and runs it.
    fn run_tool(&mut self, tool: Tool, a: &Args<'_>, count: Option<String>) -> Result<String, ToolError> {
        match tool {
            Tool::ListTables => self.list_tables(),
            Tool::DescribeTable => self.describe_table(a.text("table_name")?, count),
            Tool::ForeignKeys => self.foreign_keys(a.text("table_name")?),
            Tool::JoinPath => self.join_path(a.text("table_a")?, a.text("table_b")?),
            Tool::SampleRows => self.sample_rows(a.text("table_name")?, a.limit(self.limits.max_sample_rows)?),
            Tool::DistinctValues => self.distinct_values(
                a.text("table_name")?,
                a.text("column_name")?,
                a.limit(self.limits.max_distinct_values)?,
            ),
            Tool::RunQuery | Tool::SubmitSql => self.run_query(a.text("sql")?),
        }
    }

    /// See [`Environment::tables_read`].
    fn tables_read(&mut self, sql: &str) -> Result<Vec<String>, ToolError> {
        let _ = self.db.take_reads();
        let _deadline = self.db.arm(self.limits.timeout);
        drop(self.prepare(sql)?);
        Ok(self.db.take_reads().into_iter().collect())
    }

    /// See [`Environment::table_graph`].
    fn table_graph(&self) -> Result<TableGraph, ToolError> {
        let rels = self.relations()?;
        let _deadline = self.db.arm(self.limits.timeout);
        let keys = schema::all_keys(&self.db.conn, &rels).map_err(|e| self.sql_error(e))?;
        let tables = rels.iter().filter(|r| !r.is_view).map(|r| r.name.clone()).collect();
        Ok((tables, keys.into_iter().map(|k| (k.from_table, k.to_table)).collect()))
    }

    /// See [`Environment::execute`].
    fn execute(&mut self, sql: &str) -> Result<Rows, ToolError> {
        let mut rows = Vec::new();
        let columns = self.for_each_row(sql, |row, n| {
            if rows.len() >= MAX_EXECUTE_ROWS {
                return Err(ToolError::TooManyRows(MAX_EXECUTE_ROWS));
            }
            rows.push(self.values(row, n)?);
            Ok(true)
        })?;
        Ok(Rows { columns, rows })
    }

    /// See [`Environment::first_rows`].
    fn first_rows(&mut self, sql: &str, max_rows: usize) -> Result<(Rows, bool), ToolError> {
        let mut rows = Vec::new();
        let mut more = false;
        let columns = self.for_each_row(sql, |row, n| {
            if rows.len() >= max_rows {
                more = true;
                return Ok(false);
            }
            rows.push(self.values(row, n)?);
            Ok(true)
        })?;
        Ok((Rows { columns, rows }, more))
    }

    /// See [`Environment::check`].
    fn check(&mut self, sql: &str) -> Result<usize, ToolError> {
        let mut count = 0;
        self.for_each_row(sql, |_, _| {
            count += 1;
            Ok(true)
        })?;
        Ok(count)
    }

    /// Prepares `sql` under the guards, arms the deadline, and calls `f(row, column_count)` for
    /// each row until it returns `Ok(false)`. Returns the column names.
    fn for_each_row(
        &self,
        sql: &str,
        mut f: impl FnMut(&rusqlite::Row<'_>, usize) -> Result<bool, ToolError>,
    ) -> Result<Vec<String>, ToolError> {
        let _deadline = self.db.arm(self.limits.timeout);
        let mut stmt = self.prepare_to_run(sql)?;
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let n = columns.len();
        let mut rows = stmt.query([]).map_err(|e| self.sql_error(e))?;
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    if !f(row, n)? {
                        break;
                    }
                }
                Ok(None) => break,
                Err(e) => return Err(self.sql_error(e)),
            }
        }
        Ok(columns)
    }

    /// The `n` values of one row.
    fn values(&self, row: &rusqlite::Row<'_>, n: usize) -> Result<Vec<rusqlite::types::Value>, ToolError> {
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            let v = row.get_ref(i).map_err(|e| self.sql_error(e))?;
            values.push(rusqlite::types::Value::try_from(v)?);
        }
        Ok(values)
    }

    fn prepare(&self, sql: &str) -> Result<rusqlite::Statement<'_>, ToolError> {
        if sql.chars().count() > self.limits.max_sql_chars {
            return Err(ToolError::SqlTooLong(self.limits.max_sql_chars));
        }
        let stmt = self.db.conn.prepare(sql).map_err(|e| match e {
            rusqlite::Error::MultipleStatement => ToolError::MultipleStatements,
            rusqlite::Error::Empty => ToolError::EmptySql,
            other => self.sql_error(other),
        })?;
        if !stmt.readonly() {
            return Err(ToolError::Writes);
        }
        Ok(stmt)
    }

    /// [`Session::prepare`] for a statement about to run: on the caller's thread, refuses with
    /// [`ToolError::NeedsWorker`] one that may run a long step.
    fn prepare_to_run(&self, sql: &str) -> Result<rusqlite::Statement<'_>, ToolError> {
        self.db.long_steps();
        let stmt = self.prepare(sql)?;
        if self.inline && self.db.long_steps() {
            return Err(ToolError::NeedsWorker);
        }
        Ok(stmt)
    }

    fn sql_error(&self, e: rusqlite::Error) -> ToolError {
        let code = match &e {
            rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
            _ => None,
        };
        match code {
            Some(ErrorCode::OperationInterrupted) => ToolError::TimedOut(self.limits.timeout),
            Some(ErrorCode::AuthorizationForStatementDenied) => ToolError::NotAllowed,
            Some(ErrorCode::OutOfMemory) => ToolError::OutOfMemory,
            Some(ErrorCode::DatabaseCorrupt) => {
                let message = match &e {
                    rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
                    other => other.to_string(),
                };
                ToolError::Corrupt { message, source: e }
            }
            _ => {
                let message = match &e {
                    rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
                    other => other.to_string(),
                };
                ToolError::Sqlite { message, source: e }
            }
        }
    }

    fn relations(&self) -> Result<Vec<Relation>, ToolError> {
        let _deadline = self.db.arm(self.limits.timeout);
        schema::relations(&self.db.conn).map_err(|e| self.sql_error(e))
    }

    fn find(&self, name: &str) -> Result<(Vec<Relation>, Relation), ToolError> {
        let rels = self.relations()?;
        match schema::resolve(&rels, name) {
            Some(r) => {
                let r = r.clone();
                Ok((rels, r))
            }
            None => Err(ToolError::NoSuchTable(name.to_string())),
        }
    }

    fn list_tables(&self) -> Result<String, ToolError> {
        let rels = self.relations()?;
        let max = self.limits.max_cell_chars;
        let tables: Vec<String> = rels.iter().filter(|r| !r.is_view).map(|r| format::name(&r.name, max)).collect();
        let views: Vec<String> = rels.iter().filter(|r| r.is_view).map(|r| format::name(&r.name, max)).collect();
        let mut out = format!("{} tables: {}", tables.len(), tables.join(", "));
        if !views.is_empty() {
            out.push_str(&format!("\n{} views: {}", views.len(), views.join(", ")));
        }
        Ok(out)
    }

    /// `N rows` for the table or view `name`, for `describe_table`.
    fn row_count(&self, name: &str) -> Result<String, ToolError> {
        let (_, rel) = self.find(name)?;
        let _deadline = self.db.arm(self.limits.timeout);
        let n = self
            .prepare_to_run(&format!("SELECT count(*) FROM {}", quote_ident(&rel.name)))?
            .query_row([], |r| r.get::<_, i64>(0))
            .map_err(|e| self.sql_error(e))?;
        let _ = self.db.take_reads();
        Ok(format!("{n} rows"))
    }

    fn describe_table(&self, name: &str, count: Option<String>) -> Result<String, ToolError> {
        let (rels, rel) = self.find(name)?;
        let count = match count {
            Some(c) => c,
            None => match self.row_count(&rel.name) {
                Err(ToolError::NeedsWorker) => return Err(ToolError::NeedsWorker),
                counted => counted.unwrap_or_else(|_| ROW_COUNT_UNAVAILABLE.to_string()),
            },
        };
        let _deadline = self.db.arm(self.limits.timeout);
        let conn = &self.db.conn;
        let cols = schema::columns(conn, &rel.name).map_err(|e| self.sql_error(e))?;
        let keys = if rel.is_view {
            Vec::new()
        } else {
            schema::outgoing_keys(conn, &rels, &rel.name).map_err(|e| self.sql_error(e))?
        };
        let kind = if rel.is_view { "view" } else { "table" };
        let mut out = format!("{kind} {} ({count})\ncolumns:\n", rel.name);
        let pk_cols = cols.iter().filter(|c| c.pk > 0).count();
        for c in &cols {
            let mut line = format!("  {}", c.name);
            if !c.decl_type.is_empty() {
                line.push(' ');
                line.push_str(&c.decl_type);
            }
            if c.pk > 0 && pk_cols == 1 {
                line.push_str(" PRIMARY KEY");
            }
            if c.not_null {
                line.push_str(" NOT NULL");
            }
            if let Some(d) = &c.default {
                line.push_str(&format!(" DEFAULT {d}"));
            }
            if let Some(kind) = c.generated {
                line.push_str(&format!(" GENERATED {kind}"));
            }
            for fk in keys.iter().filter(|k| k.from_columns.len() == 1 && k.from_columns[0] == c.name) {
                line.push_str(&format!(" → {}.{}", fk.to_table, fk.to_columns[0]));
            }
            out.push_str(&line);
            out.push('\n');
        }
        if pk_cols > 1 {
            let mut pk: Vec<_> = cols.iter().filter(|c| c.pk > 0).collect();
            pk.sort_by_key(|c| c.pk);
            let names: Vec<&str> = pk.iter().map(|c| c.name.as_str()).collect();
            out.push_str(&format!("primary key: ({})\n", names.join(", ")));
        }
        for fk in keys.iter().filter(|k| k.from_columns.len() > 1) {
            out.push_str(&format!("foreign key: {}\n", fk.describe()));
        }
        Ok(out.trim_end().to_string())
    }

    fn foreign_keys(&self, name: &str) -> Result<String, ToolError> {
        let (rels, rel) = self.find(name)?;
        let _deadline = self.db.arm(self.limits.timeout);
        let keys = schema::all_keys(&self.db.conn, &rels).map_err(|e| self.sql_error(e))?;
        let outgoing: Vec<String> =
            keys.iter().filter(|k| k.from_table == rel.name).map(|k| format!("  {}", k.describe())).collect();
        let incoming: Vec<String> = keys
            .iter()
            .filter(|k| k.to_table == rel.name && k.from_table != rel.name)
            .map(|k| format!("  {}", k.describe()))
            .collect();
        let section = |title: &str, lines: &[String]| {
            if lines.is_empty() {
                format!("{title}: none")
            } else {
                format!("{title}:\n{}", lines.join("\n"))
            }
        };
        Ok(format!(
            "foreign keys of {}\n{}\n{}",
            rel.name,
            section("references (from this table)", &outgoing),
            section("referenced by (to this table)", &incoming)
        ))
    }

    fn join_path(&self, a: &str, b: &str) -> Result<String, ToolError> {
        let (rels, ra) = self.find(a)?;
        let rb = schema::resolve(&rels, b).cloned().ok_or_else(|| ToolError::NoSuchTable(b.to_string()))?;
        let _deadline = self.db.arm(self.limits.timeout);
        let keys = schema::all_keys(&self.db.conn, &rels).map_err(|e| self.sql_error(e))?;
        match schema::shortest_path(&keys, &ra.name, &rb.name) {
            None => Ok(format!("no path between {} and {} along declared foreign keys", ra.name, rb.name)),
            Some((tables, _)) if tables.len() == 1 => Ok(format!("{} (same table)", tables[0])),
            Some((tables, steps)) => {
                let joins: Vec<String> = steps.iter().map(|k| format!("  {}", k.join_condition())).collect();
                Ok(format!("{}\njoin on:\n{}", tables.join(" → "), joins.join("\n")))
            }
        }
    }

    fn sample_rows(&self, name: &str, (limit, capped): (usize, bool)) -> Result<String, ToolError> {
        let (_, rel) = self.find(name)?;
        let sql = format!("SELECT * FROM {} LIMIT {limit}", quote_ident(&rel.name));
        let mut text = self.run_query(&sql)?;
        if capped {
            text.push_str(&format!(" [limit capped at {limit}]"));
        }
        Ok(text)
    }

    fn distinct_values(&self, table: &str, column: &str, (limit, capped): (usize, bool)) -> Result<String, ToolError> {
        let (_, rel) = self.find(table)?;
        let cols = {
            let _deadline = self.db.arm(self.limits.timeout);
            schema::columns(&self.db.conn, &rel.name).map_err(|e| self.sql_error(e))?
        };
        let col = cols
            .iter()
            .find(|c| c.name == column)
            .or_else(|| cols.iter().find(|c| c.name.eq_ignore_ascii_case(column)))
            .ok_or_else(|| ToolError::NoSuchColumn {
                column: column.to_string(),
                table: rel.name.clone(),
                columns: cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
            })?;
        let _deadline = self.db.arm(self.limits.timeout);
        let (t, c) = (quote_ident(&rel.name), quote_ident(&col.name));
        let total: i64 = self
            .prepare_to_run(&format!("SELECT count(DISTINCT {c}) + (count(*) > count({c})) FROM {t}"))?
            .query_row([], |r| r.get::<_, Option<i64>>(0).map(|n| n.unwrap_or(0)))
            .map_err(|e| self.sql_error(e))?;
        let mut stmt = self.prepare_to_run(&format!("SELECT DISTINCT {c} FROM {t} LIMIT {limit}"))?;
        let mut rows = stmt.query([]).map_err(|e| self.sql_error(e))?;
        let mut values = Vec::new();
        let mut size = 0;
        let mut cut_by_size = false;
        while let Some(row) = rows.next().map_err(|e| self.sql_error(e))? {
            let v = row.get_ref(0).map_err(|e| self.sql_error(e))?;
            let s = format::literal(v, self.limits.max_cell_chars);
            size += s.len() + 1;
            if size > self.limits.max_result_chars {
                cut_by_size = true;
                break;
            }
            values.push(s);
        }
        let mut out = format!(
            "distinct values of {}.{} ({} of {}{}):\n{}",
            rel.name,
            col.name,
            values.len(),
            total,
            if capped { format!(", limit capped at {limit}") } else { String::new() },
            values.join("\n")
        );
        if cut_by_size {
            out.push_str(&format!("\n[output cut at {} characters]", self.limits.max_result_chars));
        }
        Ok(out)
    }

    fn run_query(&self, sql: &str) -> Result<String, ToolError> {
        let mut table = TableText::new(&self.limits);
        let mut total = 0usize;
        let mut counted_all = true;
        let (limits, max_cell) = (&self.limits, self.limits.max_cell_chars);
        let columns = self.for_each_row(sql, |row, n| {
            if total == limits.count_rows_up_to {
                counted_all = false;
                return Ok(false);
            }
            total += 1;
            if total <= limits.max_rows {
                let mut cells = Vec::with_capacity(n);
                for i in 0..n {
                    let v = row.get_ref(i).map_err(|e| self.sql_error(e))?;
                    cells.push(format::cell(v, max_cell));
                }
                table.push(&cells);
            }
            Ok(true)
        })?;
        Ok(table.finish(&columns, total, counted_all))
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A call's arguments, read as its tool's catalogue entry says.
struct Args<'a> {
    tool: Tool,
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Args<'a> {
    /// A required non-empty string argument.
    fn text(&self, name: &'static str) -> Result<&'a str, ToolError> {
        let tool = self.tool.name();
        match self.map.and_then(|m| m.get(name)) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
            Some(Value::String(_)) => {
                Err(ToolError::BadArgument { tool, arg: name, expected: "a non-empty string", got: String::new() })
            }
            Some(other) => Err(ToolError::BadArgument {
                tool,
                arg: name,
                expected: "a string",
                got: format!(", got {}", json_kind(other)),
            }),
            None => Err(ToolError::MissingArgument { tool, arg: name, example: self.tool.spec().example() }),
        }
    }

    /// The optional `limit`: a positive integer (or a string of one), the catalogue's default
    /// when absent, capped at `max`. Returns the limit and whether it was capped.
    fn limit(&self, max: usize) -> Result<(usize, bool), ToolError> {
        let default = match self.tool.arg("limit").map(|a| a.kind) {
            Some(ArgKind::Limit { default }) => default,
            _ => max,
        };
        let n = match self.map.and_then(|m| m.get("limit")) {
            None | Some(Value::Null) => return Ok((default.min(max), false)),
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
            Some(_) => None,
        };
        match n {
            Some(n) if n >= 1.0 && n.fract() == 0.0 => {
                Ok(if n > max as f64 { (max, true) } else { (n as usize, false) })
            }
            _ => Err(ToolError::BadArgument {
                tool: self.tool.name(),
                arg: "limit",
                expected: "a positive integer",
                got: String::new(),
            }),
        }
    }
}
