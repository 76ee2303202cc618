//! The SQaLe benchmark: two parquet datasets joined on `schema_id`.
//!
//! - **queries**: `question_id, schema_id, sql, difficulty`, the question in eight phrasings,
//!   `relevant_tables`, `execution_result`;
//! - **schemas**: `schema_id, full_schema` (the DDL) and `schema_content` (JSON: table name → list
//!   of row objects).
//!
//! Each database is built into a SQLite file from its DDL and rows, once, and kept in a cache
//! folder (written to a temporary file and renamed when complete). Only the databases of the
//! questions being run are built.
//!
//! Column names are matched loosely (case, spaces and underscores ignored: `question id` is
//! `question_id`), because the published exports differ. The eight phrasings are read from a
//! list column `questions`, from columns `question_1` … `question_8`, or from one row per
//! phrasing (`question` with `question_style`); `--phrasing` picks one by number (1–8) or by
//! style name.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use rusqlite::{params_from_iter, Connection};
use serde_json::Value;

use super::question::{Question, SourceError};
use crate::env::quote_ident;

/// Which of the eight phrasings to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phrasing {
    /// By position, 1-based.
    Index(usize),
    /// By style name (`question_style`).
    Style(String),
}

impl Default for Phrasing {
    fn default() -> Self {
        Phrasing::Index(1)
    }
}

/// Why a phrasing could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PhrasingError {
    /// `0`: phrasings are numbered from 1.
    #[error("phrasings are numbered from 1 (1-8)")]
    Zero,
    /// Nothing given.
    #[error("a phrasing is a number (1-8) or a style name")]
    Empty,
}

impl std::str::FromStr for Phrasing {
    type Err = PhrasingError;

    fn from_str(s: &str) -> Result<Self, PhrasingError> {
        match s.trim().parse::<usize>() {
            Ok(0) => Err(PhrasingError::Zero),
            Ok(n) => Ok(Phrasing::Index(n)),
            Err(_) if !s.trim().is_empty() => Ok(Phrasing::Style(s.trim().to_string())),
            Err(_) => Err(PhrasingError::Empty),
        }
    }
}

/// One question as read from the queries dataset.
#[derive(Debug, Clone)]
struct QueryRow {
    id: String,
    schema_id: String,
    sql: String,
    difficulty: Option<String>,
    evidence: Option<String>,
    /// `(style, text)` of each phrasing, in order.
    phrasings: Vec<(Option<String>, String)>,
}

fn norm(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

/// A column of `row` by any of `names` (compared with [`norm`]).
fn column<'r>(row: &'r Row, names: &[&str]) -> Option<&'r Field> {
    row.get_column_iter().find(|(n, _)| names.iter().any(|w| norm(n) == norm(w))).map(|(_, f)| f)
}

/// A field as text: strings as they are, other scalars printed, lists and groups as JSON.
fn text(field: &Field) -> Option<String> {
    match field {
        Field::Null => None,
        Field::Str(s) => Some(s.clone()),
        Field::Bytes(b) => Some(String::from_utf8_lossy(b.data()).into_owned()),
        other => Some(json(other).to_string()),
    }
}

fn json(field: &Field) -> Value {
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(v) => Value::from(*v),
        Field::Short(v) => Value::from(*v),
        Field::Int(v) => Value::from(*v),
        Field::Long(v) => Value::from(*v),
        Field::UByte(v) => Value::from(*v),
        Field::UShort(v) => Value::from(*v),
        Field::UInt(v) => Value::from(*v),
        Field::ULong(v) => Value::from(*v),
        Field::Float(v) => Value::from(*v as f64),
        Field::Double(v) => Value::from(*v),
        Field::Str(s) => Value::String(s.clone()),
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(json).collect()),
        Field::Group(row) => Value::Object(row.get_column_iter().map(|(k, v)| (k.clone(), json(v))).collect()),
        other => Value::String(other.to_string()),
    }
}

fn parquet_files(path: &Path) -> Result<Vec<PathBuf>, SourceError> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| SourceError::Io { path: dir.clone(), source: e })?;
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                files.push(p);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(SourceError::Format { path: path.to_path_buf(), line: 0, reason: "no .parquet files here".into() });
    }
    Ok(files)
}

/// Every row of every parquet file under `path`, handed to `each` in file order.
fn for_each_row(path: &Path, each: &mut dyn FnMut(&Path, Row) -> Result<(), SourceError>) -> Result<(), SourceError> {
    for file in parquet_files(path)? {
        let bad = |reason: String| SourceError::Format { path: file.clone(), line: 0, reason };
        let f = crate::regular_file::open(&file).map_err(|e| SourceError::Io { path: file.clone(), source: e })?;
        let reader = SerializedFileReader::new(f).map_err(|e| bad(format!("not a readable parquet file: {e}")))?;
        let rows = reader.get_row_iter(None).map_err(|e| bad(e.to_string()))?;
        for row in rows {
            each(&file, row.map_err(|e| bad(e.to_string()))?)?;
        }
    }
    Ok(())
}

fn read_queries(path: &Path) -> Result<Vec<QueryRow>, SourceError> {
    let mut out: Vec<QueryRow> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for_each_row(path, &mut |file, row| {
        let missing = |what: &str| SourceError::Format {
            path: file.to_path_buf(),
            line: 0,
            reason: format!(
                "the queries dataset has no {what} column (columns: {})",
                row.get_column_iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
            ),
        };
        let id = column(&row, &["question_id", "id"]).and_then(text).ok_or_else(|| missing("question_id"))?;
        let schema_id = column(&row, &["schema_id"]).and_then(text).ok_or_else(|| missing("schema_id"))?;
        let sql = column(&row, &["sql", "query", "sql_statement", "sql statament", "gold_sql"])
            .and_then(text)
            .ok_or_else(|| missing("sql"))?;
        let difficulty = column(&row, &["difficulty"]).and_then(text);
        let evidence = column(&row, &["evidence"]).and_then(text).filter(|e| !e.trim().is_empty());
        let mut phrasings: Vec<(Option<String>, String)> = Vec::new();
        if let Some(Field::ListInternal(list)) = column(&row, &["questions", "question_phrasings", "phrasings"]) {
            phrasings.extend(list.elements().iter().filter_map(text).map(|t| (None, t)));
        }
        for k in 1..=8 {
            if let Some(t) = column(&row, &[&format!("question_{k}")]).and_then(text) {
                phrasings.push((None, t));
            }
        }
        if phrasings.is_empty() {
            let q = column(&row, &["question"]).and_then(text).ok_or_else(|| missing("question"))?;
            let style = column(&row, &["question_style", "style"]).and_then(text);
            // One row per phrasing: join them under their question id.
            if let Some(&i) = by_id.get(&id) {
                out[i].phrasings.push((style, q));
                return Ok(());
            }
            phrasings.push((style, q));
        }
        by_id.insert(id.clone(), out.len());
        out.push(QueryRow { id, schema_id, sql, difficulty, evidence, phrasings });
        Ok(())
    })?;
    Ok(out)
}

fn pick(q: &QueryRow, phrasing: &Phrasing) -> Option<String> {
    match phrasing {
        Phrasing::Index(n) => q.phrasings.get(n - 1).map(|(_, t)| t.clone()),
        Phrasing::Style(s) => q
            .phrasings
            .iter()
            .find(|(st, _)| st.as_deref().is_some_and(|st| st.eq_ignore_ascii_case(s)))
            .map(|(_, t)| t.clone()),
    }
}

/// Where a SQaLe benchmark comes from: each half a local parquet file or folder.
#[derive(Debug, Clone)]
pub struct Source {
    /// The queries dataset.
    pub queries: PathBuf,
    /// The schemas dataset.
    pub schemas: PathBuf,
}

/// Reads the questions (all of them, or those `keep` accepts by position), builds the
/// databases they need into `cache`, and returns them asking `phrasing`.
/// `progress(built, to_build)` follows the database builds.
pub fn load(
    source: &Source,
    phrasing: &Phrasing,
    keep: &dyn Fn(usize) -> bool,
    cache: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Question>, SourceError> {
    let rows: Vec<QueryRow> =
        read_queries(&source.queries)?.into_iter().enumerate().filter(|(i, _)| keep(*i)).map(|(_, r)| r).collect();
    let needed: HashSet<String> = rows.iter().map(|r| r.schema_id.clone()).collect();
    let dbs = build_databases(&source.schemas, &needed, cache, progress)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let question = pick(&r, phrasing).ok_or_else(|| SourceError::Format {
            path: source.queries.clone(),
            line: 0,
            reason: format!("question {} has no phrasing {phrasing:?} ({} phrasings)", r.id, r.phrasings.len()),
        })?;
        let db = dbs.get(&r.schema_id).cloned().ok_or_else(|| SourceError::Format {
            path: source.schemas.clone(),
            line: 0,
            reason: format!("schema {} (of question {}) is not in the schemas dataset", r.schema_id, r.id),
        })?;
        out.push(Question { id: r.id, db, question, evidence: r.evidence, gold_sql: r.sql, difficulty: r.difficulty });
    }
    Ok(out)
}

/// Builds (or finds in `cache`) the database of every schema in `needed`.
fn build_databases(
    schemas: &Path,
    needed: &HashSet<String>,
    cache: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<HashMap<String, PathBuf>, SourceError> {
    let mut out = HashMap::new();
    let mut built = 0;
    for_each_row(schemas, &mut |file, row| {
        let Some(id) = column(&row, &["schema_id"]).and_then(text) else {
            return Err(SourceError::Format {
                path: file.to_path_buf(),
                line: 0,
                reason: "the schemas dataset has no schema_id column".into(),
            });
        };
        if !needed.contains(&id) || out.contains_key(&id) {
            return Ok(());
        }
        let ddl = column(&row, &["full_schema", "schema", "ddl"]).and_then(text).ok_or_else(|| {
            SourceError::Format { path: file.to_path_buf(), line: 0, reason: format!("schema {id}: no full_schema") }
        })?;
        let content = column(&row, &["schema_content", "content"]).and_then(text).unwrap_or_else(|| "{}".into());
        let path = build_database(&id, &ddl, &content, cache).map_err(|source| SourceError::Build {
            path: file.to_path_buf(),
            schema_id: id.clone(),
            source: Box::new(source),
        })?;
        out.insert(id, path);
        built += 1;
        progress(built, needed.len());
        Ok(())
    })?;
    Ok(out)
}

/// Why a SQaLe database could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The cache folder could not be written.
    #[error("writing {path}: {source}")]
    Write {
        /// The folder or file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// `schema_content` is not a JSON object of table name → list of row objects.
    #[error("schema_content is not JSON of table -> rows ({0})")]
    Content(#[source] serde_json::Error),
    /// The DDL does not run in SQLite.
    #[error("the DDL does not run in SQLite: {0}")]
    Ddl(#[source] rusqlite::Error),
    /// A row could not be inserted.
    #[error("inserting into {table}: {source}")]
    Insert {
        /// The table.
        table: String,
        /// SQLite's reason.
        #[source]
        source: rusqlite::Error,
    },
    /// SQLite failed otherwise (opening the new file, the transaction).
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
}

/// One schema's SQLite file, from its DDL and its rows (JSON: table → list of row objects).
/// Cached under a name that changes with its content.
pub fn build_database(schema_id: &str, ddl: &str, content: &str, cache: &Path) -> Result<PathBuf, BuildError> {
    let mut key = Vec::with_capacity(ddl.len() + content.len() + 1);
    key.extend_from_slice(ddl.as_bytes());
    key.push(0);
    key.extend_from_slice(content.as_bytes());
    let digest = crate::hash::sha256_hex(&key);
    let safe: String =
        schema_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    let dest = cache.join(format!("{safe}-{}.sqlite", &digest[..16]));
    if dest.is_file() {
        return Ok(dest);
    }
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BuildError::Write { path, source }
    };
    std::fs::create_dir_all(cache).map_err(write_err(cache))?;
    let rows: BTreeMap<String, Vec<serde_json::Map<String, Value>>> =
        serde_json::from_str(content).map_err(BuildError::Content)?;
    let file = crate::atomic::AtomicFile::create(&dest).map_err(write_err(cache))?;
    {
        let conn = Connection::open(file.temp_path())?;
        // Rows are loaded in any table order; keys are declared, not enforced while loading.
        conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF;")?;
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(ddl).map_err(BuildError::Ddl)?;
        for (table, list) in &rows {
            for row in list {
                let cols: Vec<&String> = row.keys().collect();
                let sql = format!(
                    "INSERT INTO {} ({}) VALUES ({})",
                    quote_ident(table),
                    cols.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(", "),
                    vec!["?"; cols.len()].join(", ")
                );
                let values = row.values().map(sql_value);
                tx.prepare_cached(&sql)
                    .and_then(|mut s| s.execute(params_from_iter(values)))
                    .map_err(|source| BuildError::Insert { table: table.clone(), source })?;
            }
        }
        tx.commit()?;
    }
    file.commit().map_err(write_err(&dest))?;
    Ok(dest)
}

fn sql_value(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Null => V::Null,
        Value::Bool(b) => V::Integer(*b as i64),
        Value::Number(n) => n.as_i64().map(V::Integer).unwrap_or_else(|| V::Real(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => V::Text(s.clone()),
        other => V::Text(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrasing_parses() {
        assert_eq!("3".parse::<Phrasing>().unwrap(), Phrasing::Index(3));
        assert_eq!("formal".parse::<Phrasing>().unwrap(), Phrasing::Style("formal".into()));
        assert!("0".parse::<Phrasing>().is_err());
    }

    #[test]
    fn a_database_is_built_from_ddl_and_rows_once() {
        let dir = tempfile::tempdir().unwrap();
        let ddl = "CREATE TABLE a (id INTEGER PRIMARY KEY, name Varchar NOT NULL, score Numeric); \
                   CREATE TABLE b (id int8 NOT NULL UNIQUE, a_id INTEGER REFERENCES a(id), flag BOOLEAN, meta TEXT);";
        let content = r#"{"b": [{"id": 1, "a_id": 2, "flag": true, "meta": {"k": [1]}}], "a": [{"id": 2, "name": "x", "score": 1.5}, {"id": 3, "name": "O'y", "score": null}]}"#;
        let p = build_database("schema_000001", ddl, content, dir.path()).unwrap();
        let conn = Connection::open(&p).unwrap();
        let n: i64 = conn.query_row("SELECT count(*) FROM a", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 2);
        let (flag, meta): (i64, String) =
            conn.query_row("SELECT flag, meta FROM b", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!((flag, meta.as_str()), (1, r#"{"k":[1]}"#));
        let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
        assert_eq!(build_database("schema_000001", ddl, content, dir.path()).unwrap(), p);
        assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), modified, "built once");
        let err = build_database("s2", "CREATE TABLE (", "{}", dir.path()).unwrap_err().to_string();
        assert!(err.contains("DDL"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a failed build leaves no file");
    }
}
