//! The databases a service answers over: given by name at start, never by a request.
//!
//! **Nothing from the network names a file.** A request says `"db": "shop"`; the path behind
//! the name was given when the service started (`shop=/data/shop.sqlite`). A name is a short
//! word (letters, digits, `_`, `-`), so a path or `..` sent as a name is simply unknown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::env::{EnvError, Environment};

/// Longest database name accepted.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a database could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DatabaseError {
    /// A database was not given as `NAME=PATH`.
    #[error("{0:?} is not NAME=PATH (e.g. shop=/data/shop.sqlite)")]
    NotNamePath(String),
    /// The name has characters outside `[A-Za-z0-9_-]` or is too long.
    #[error("database name {0:?}: use 1 to {MAX_NAME_CHARS} letters, digits, '_' or '-'")]
    BadName(String),
    /// The same name twice.
    #[error("database name {0:?} is given twice")]
    Duplicate(String),
    /// The file could not be opened read-only, or its schema not read.
    #[error("database {name} ({path}): {source}")]
    Open {
        /// The name.
        name: String,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<EnvError>,
    },
    /// The schema could not be read.
    #[error("database {name} ({path}): cannot read its schema: {message}")]
    Schema {
        /// The name.
        name: String,
        /// The file.
        path: PathBuf,
        /// SQLite's message.
        message: String,
    },
}

/// One database the service answers over.
#[derive(Debug, Clone, Serialize)]
pub struct Database {
    /// The name requests use.
    pub name: String,
    /// The file (never shown to clients).
    #[serde(skip)]
    pub path: PathBuf,
    /// Tables in schema order.
    pub tables: Vec<String>,
    /// Views in schema order.
    pub views: Vec<String>,
    /// Each table's and view's columns, in schema order (the page's schema panel).
    pub columns: Vec<Relation>,
}

/// A table or view and its columns.
#[derive(Debug, Clone, Serialize)]
pub struct Relation {
    /// Its name.
    pub name: String,
    /// Its columns: name and declared type (empty when none was declared).
    pub columns: Vec<ColumnInfo>,
}

/// A column's name and declared type.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    /// Its name.
    pub name: String,
    /// Its declared type.
    #[serde(rename = "type")]
    pub decl_type: String,
}

/// The databases of one service, by name.
#[derive(Debug, Clone, Default)]
pub struct Databases {
    by_name: BTreeMap<String, Database>,
}

/// Whether `name` is an acceptable database name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Splits `NAME=PATH`.
pub fn parse_spec(spec: &str) -> Result<(String, PathBuf), DatabaseError> {
    let (name, path) = spec.split_once('=').ok_or_else(|| DatabaseError::NotNamePath(spec.to_string()))?;
    if path.is_empty() {
        return Err(DatabaseError::NotNamePath(spec.to_string()));
    }
    if !valid_name(name) {
        return Err(DatabaseError::BadName(name.to_string()));
    }
    Ok((name.to_string(), PathBuf::from(path)))
}

impl Databases {
    /// Opens each `(name, path)` read-only, as the environment does, and reads its tables.
    pub fn open(list: impl IntoIterator<Item = (String, PathBuf)>) -> Result<Self, DatabaseError> {
        let mut by_name = BTreeMap::new();
        for (name, path) in list {
            if !valid_name(&name) {
                return Err(DatabaseError::BadName(name));
            }
            if by_name.contains_key(&name) {
                return Err(DatabaseError::Duplicate(name));
            }
            let db = Self::describe(&name, &path)?;
            by_name.insert(name, db);
        }
        Ok(Databases { by_name })
    }

    fn describe(name: &str, path: &Path) -> Result<Database, DatabaseError> {
        let env = Environment::open(path).map_err(|source| DatabaseError::Open {
            name: name.to_string(),
            path: path.to_path_buf(),
            source: Box::new(source),
        })?;
        let schema = |e: crate::env::ToolError| DatabaseError::Schema {
            name: name.to_string(),
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let (tables, _) = env.table_graph().map_err(schema)?;
        let views = env.views().map_err(schema)?;
        let columns = env
            .columns()
            .map_err(schema)?
            .into_iter()
            .map(|(name, cols)| Relation {
                name,
                columns: cols.into_iter().map(|(name, decl_type)| ColumnInfo { name, decl_type }).collect(),
            })
            .collect();
        Ok(Database { name: name.to_string(), path: path.to_path_buf(), tables, views, columns })
    }

    /// The database called `name`, if the service has one.
    pub fn get(&self, name: &str) -> Option<&Database> {
        self.by_name.get(name)
    }

    /// Every database, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Database> {
        self.by_name.values()
    }

    /// The names, comma-separated (for messages).
    pub fn names(&self) -> String {
        self.by_name.keys().cloned().collect::<Vec<_>>().join(", ")
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_words_never_paths() {
        assert_eq!(parse_spec("shop=/data/shop.sqlite").unwrap(), ("shop".into(), PathBuf::from("/data/shop.sqlite")));
        assert_eq!(parse_spec("a=b=c").unwrap().1, PathBuf::from("b=c"));
        for bad in ["../x=/a", "a/b=/a", "=/a", "x y=/a", "..=/a"] {
            assert!(matches!(parse_spec(bad), Err(DatabaseError::BadName(_))), "{bad}");
        }
        assert!(matches!(parse_spec("shop"), Err(DatabaseError::NotNamePath(_))));
        assert!(matches!(parse_spec("shop="), Err(DatabaseError::NotNamePath(_))));
        assert!(!valid_name(&"x".repeat(MAX_NAME_CHARS + 1)));
        assert!(valid_name("bird_dev-1"));
    }

    #[test]
    fn opens_read_only_and_lists_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE a(x); CREATE TABLE b(y); CREATE VIEW v AS SELECT x FROM a;").unwrap();
        drop(c);
        let dbs = Databases::open([("t".to_string(), path.clone())]).unwrap();
        let t = dbs.get("t").unwrap();
        assert_eq!(t.tables, ["a", "b"]);
        assert_eq!(t.views, ["v"]);
        assert!(dbs.get("../t").is_none());
        let twice = Databases::open([("t".to_string(), path.clone()), ("t".to_string(), path)]);
        assert!(matches!(twice, Err(DatabaseError::Duplicate(_))));
        let missing = Databases::open([("m".to_string(), dir.path().join("missing.sqlite"))]);
        assert!(matches!(missing, Err(DatabaseError::Open { .. })), "{missing:?}");
    }
}
