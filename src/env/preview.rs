//! The first rows of an answer, for people: the submitted query run again, read-only and bounded,
//! its values as JSON. What `sqale ask` prints and the service returns.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::{EnvError, Environment, Limits, Rows, ToolError};

/// The first rows of an answer, as JSON values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowsPreview {
    /// Column names.
    pub columns: Vec<String>,
    /// Up to the limit's rows; text longer than a tool's cell limit is cut (with `…`).
    pub rows: Vec<Vec<Value>>,
    /// Whether the query returned more rows than shown.
    pub truncated: bool,
}

/// Why an answer's rows could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PreviewError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] EnvError),
    /// The query failed (a time limit, a write refused, bad SQL).
    #[error(transparent)]
    Query(#[from] ToolError),
}

/// Runs `sql` read-only on `db` under `limits` (its time limit, `max_rows`, cell length) and
/// returns its first rows. The database is opened as for an episode: nothing can change it.
pub fn preview(db: &Path, sql: &str, limits: &Limits) -> Result<RowsPreview, PreviewError> {
    let mut env = Environment::with_limits(db, limits.clone())?;
    let (rows, truncated) = env.first_rows(sql, limits.max_rows)?;
    Ok(to_json(rows, truncated, limits.max_cell_chars))
}

fn to_json(rows: Rows, truncated: bool, max_cell_chars: usize) -> RowsPreview {
    use rusqlite::types::Value as V;
    let cell = |v: V| match v {
        V::Null => Value::Null,
        V::Integer(i) => Value::from(i),
        V::Real(f) => serde_json::Number::from_f64(f).map(Value::Number).unwrap_or_else(|| Value::from(f.to_string())),
        V::Text(s) if s.chars().count() > max_cell_chars => {
            Value::from(format!("{}…", s.chars().take(max_cell_chars).collect::<String>()))
        }
        V::Text(s) => Value::from(s),
        V::Blob(b) => Value::from(format!("<blob, {} bytes>", b.len())),
    };
    RowsPreview {
        columns: rows.columns,
        rows: rows.rows.into_iter().map(|r| r.into_iter().map(cell).collect()).collect(),
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_are_bounded_and_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE t(x, y); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 50) INSERT INTO t SELECT i, printf('%.300c', 'a') FROM n;").unwrap();
        drop(c);
        let before = std::fs::read(&path).unwrap();
        let limits = Limits { max_rows: 3, max_cell_chars: 10, ..Limits::default() };
        let p = preview(&path, "SELECT x, y, NULL, 1.5 FROM t ORDER BY x", &limits).unwrap();
        assert_eq!(p.rows.len(), 3);
        assert!(p.truncated);
        assert_eq!(p.rows[0][0], Value::from(1));
        assert_eq!(p.rows[0][1], Value::from(format!("{}…", "a".repeat(10))));
        assert_eq!(p.rows[0][2], Value::Null);
        let all = preview(&path, "SELECT count(*) FROM t", &limits).unwrap();
        assert!(!all.truncated);
        assert_eq!(all.rows, [[Value::from(50)]]);
        let write = preview(&path, "DELETE FROM t", &limits).unwrap_err();
        assert!(matches!(write, PreviewError::Query(_)) && write.to_string().contains("read"), "writes are refused");
        assert!(matches!(preview(&dir.path().join("none.sqlite"), "SELECT 1", &limits), Err(PreviewError::Open(_))));
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
}
