//! Schema-size conditions (`--schema full|gold|distractors:N`): the paper's three database
//! sizes, made as copies of the question's database that hold only some of its tables.
//!
//! `gold` keeps the tables the gold query reads; `distractors:N` grows that set along foreign
//! keys (followed either way) by N more tables, one neighbour at a time in seeded random order,
//! as the training sampler did; when no key leads further, the rest are drawn from the
//! unconnected tables. Tables are created in shuffled order, so `list_tables` does not put the
//! gold tables first. Indexes come along with their tables, and views whose base tables all
//! came along are kept.
//!
//! The user's database is only ever opened read-only (`immutable`); each copy is written to a
//! temporary file, renamed into a cache folder when complete, and reused by later runs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rusqlite::{Connection, OpenFlags};

use crate::env::{quote_ident, read_only_uri, Environment};

/// How much of each database an episode sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaCondition {
    /// The database as it is.
    #[default]
    Full,
    /// Only the tables the gold query reads.
    Gold,
    /// The gold tables and this many more, grown along foreign keys.
    Distractors(usize),
}

/// A schema size that is not `full`, `gold` or `distractors:N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a schema size is full, gold or distractors:N (e.g. distractors:32), not {0:?}")]
pub struct SchemaConditionError(pub String);

impl FromStr for SchemaCondition {
    type Err = SchemaConditionError;

    fn from_str(s: &str) -> Result<Self, SchemaConditionError> {
        match s.trim() {
            "full" => Ok(SchemaCondition::Full),
            "gold" => Ok(SchemaCondition::Gold),
            other => other
                .strip_prefix("distractors:")
                .and_then(|n| n.trim().parse().ok())
                .map(SchemaCondition::Distractors)
                .ok_or_else(|| SchemaConditionError(other.to_string())),
        }
    }
}

impl std::fmt::Display for SchemaCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaCondition::Full => f.write_str("full"),
            SchemaCondition::Gold => f.write_str("gold"),
            SchemaCondition::Distractors(n) => write!(f, "distractors:{n}"),
        }
    }
}

/// What failed underneath a [`SubsetError`]: SQLite, the file system, or the environment.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a copy could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubsetError {
    /// Reading the source database failed.
    #[error("{path}: {source}")]
    Source {
        /// The database.
        path: PathBuf,
        /// What failed.
        #[source]
        source: Cause,
    },
    /// Writing the copy failed.
    #[error("writing a copy of {path} into {dir}: {source} (is the results folder writable?)")]
    Write {
        /// The source database.
        path: PathBuf,
        /// The cache folder.
        dir: PathBuf,
        /// What failed.
        #[source]
        source: Cause,
    },
}

/// A small deterministic generator (SplitMix64), for seeded shuffles.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// The seed of a question's copy: from the run seed and the question id.
pub fn subset_seed(seed: u32, id: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(format!("subset:{seed}:{id}").as_bytes());
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// The tables a question's database keeps under `condition`, in the order they are created.
/// `gold` are the tables its gold query reads; names are matched to the database's ignoring
/// ASCII case.
pub fn choose_tables(
    tables: &[String],
    keys: &[(String, String)],
    gold: &[String],
    condition: SchemaCondition,
    seed: u64,
) -> Vec<String> {
    let find = |name: &str| tables.iter().find(|t| t.eq_ignore_ascii_case(name)).cloned();
    let mut keep: BTreeSet<String> = gold.iter().filter_map(|g| find(g)).collect();
    let mut rng = SplitMix(seed);
    let extra = match condition {
        SchemaCondition::Full => return tables.to_vec(),
        SchemaCondition::Gold => 0,
        SchemaCondition::Distractors(n) => n,
    };
    let mut added = 0;
    while added < extra {
        // Neighbours of the kept set along keys followed either way, in schema order.
        let mut frontier: Vec<&String> = tables
            .iter()
            .filter(|t| !keep.contains(*t))
            .filter(|t| {
                keys.iter().any(|(a, b)| {
                    (a.eq_ignore_ascii_case(t) && keep.iter().any(|k| k.eq_ignore_ascii_case(b)))
                        || (b.eq_ignore_ascii_case(t) && keep.iter().any(|k| k.eq_ignore_ascii_case(a)))
                })
            })
            .collect();
        if frontier.is_empty() {
            // No key leads further: draw from the tables not yet kept.
            frontier = tables.iter().filter(|t| !keep.contains(*t)).collect();
        }
        if frontier.is_empty() {
            break;
        }
        let pick = frontier[rng.below(frontier.len())].clone();
        keep.insert(pick);
        added += 1;
    }
    let mut order: Vec<String> = tables.iter().filter(|t| keep.contains(*t)).cloned().collect();
    rng.shuffle(&mut order);
    order
}

/// A copy of `source` holding `tables` (created in that order, with their rows and indexes,
/// plus the views they fully support), cached in `dir`. Returns the copy's path.
pub fn copy_with_tables(source: &Path, tables: &[String], dir: &Path) -> Result<PathBuf, SubsetError> {
    let src_err = |e: Cause| SubsetError::Source { path: source.to_path_buf(), source: e };
    let meta = std::fs::metadata(source).map_err(|e| src_err(e.into()))?;
    // Named after the source (path, size, modification time) and the tables kept.
    let mut key = source.display().to_string().into_bytes();
    key.extend_from_slice(&meta.len().to_le_bytes());
    if let Ok(t) = meta.modified().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).map_err(std::io::Error::other))
    {
        key.extend_from_slice(&t.as_nanos().to_le_bytes());
    }
    for t in tables {
        key.extend_from_slice(t.as_bytes());
        key.push(0);
    }
    let digest = crate::hash::sha256_hex(&key);
    let hex = &digest[..16];
    let stem = source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "db".into());
    let dest = dir.join(format!("{stem}-{}t-{hex}.sqlite", tables.len()));
    if dest.is_file() {
        return Ok(dest);
    }
    let write_err = |e: Cause| SubsetError::Write { path: source.to_path_buf(), dir: dir.to_path_buf(), source: e };
    std::fs::create_dir_all(dir).map_err(|e| write_err(e.into()))?;

    // Views to keep: those whose base tables all come along (asked of SQLite's planner).
    let mut env = Environment::open(source).map_err(|e| src_err(e.into()))?;
    let views = env.views().map_err(|e| src_err(e.into()))?;
    let keep_views: Vec<String> = views
        .into_iter()
        .filter(|v| {
            env.tables_read(&format!("SELECT * FROM {}", quote_ident(v)))
                .is_ok_and(|base| base.iter().all(|b| tables.iter().any(|t| t.eq_ignore_ascii_case(b))))
        })
        .collect();

    let file = crate::atomic::AtomicFile::create(&dest).map_err(|e| write_err(e.into()))?;
    {
        let conn = Connection::open_with_flags(
            file.temp_path(),
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| write_err(e.into()))?;
        // Keys may point at tables left out; the copy keeps the declarations, unenforced.
        conn.execute_batch("PRAGMA foreign_keys = OFF").map_err(|e| write_err(e.into()))?;
        let uri = read_only_uri(source).map_err(|e| src_err(e.into()))?;
        conn.execute("ATTACH DATABASE ?1 AS src", [uri]).map_err(|e| src_err(e.into()))?;
        let tx = conn.unchecked_transaction().map_err(|e| write_err(e.into()))?;
        for t in tables {
            let ddl: String = tx
                .query_row("SELECT sql FROM src.sqlite_schema WHERE type = 'table' AND name = ?1", [t], |r| r.get(0))
                .map_err(|e| src_err(format!("table {t}: {e}").into()))?;
            tx.execute_batch(&ddl).map_err(|e| write_err(format!("creating {t}: {e}").into()))?;
            let cols = insertable_columns(&tx, t).map_err(|e| src_err(format!("table {t}: {e}").into()))?;
            let list = cols.iter().map(|c| quote_ident(c)).collect::<Vec<_>>().join(", ");
            tx.execute_batch(&format!("INSERT INTO main.{q} ({list}) SELECT {list} FROM src.{q}", q = quote_ident(t)))
                .map_err(|e| write_err(format!("copying {t}: {e}").into()))?;
        }
        let mut extra: Vec<String> = Vec::new();
        {
            let mut stmt = tx
                .prepare("SELECT tbl_name, sql FROM src.sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid")
                .map_err(|e| src_err(e.into()))?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(|e| src_err(e.into()))?;
            for row in rows {
                let (table, sql) = row.map_err(|e| src_err(e.into()))?;
                if tables.contains(&table) {
                    extra.push(sql);
                }
            }
            for v in &keep_views {
                let sql: String = tx
                    .query_row("SELECT sql FROM src.sqlite_schema WHERE type = 'view' AND name = ?1", [v], |r| r.get(0))
                    .map_err(|e| src_err(format!("view {v}: {e}").into()))?;
                extra.push(sql);
            }
        }
        for sql in extra {
            tx.execute_batch(&sql).map_err(|e| write_err(e.into()))?;
        }
        tx.commit().map_err(|e| write_err(e.into()))?;
        conn.execute_batch("DETACH DATABASE src").map_err(|e| write_err(e.into()))?;
    }
    file.commit().map_err(|e| write_err(e.into()))?;
    Ok(dest)
}

/// Points every question at a copy of its database cut to `condition` (nothing changes for
/// `full`). The gold tables come from `gold`, computed on the original; questions whose gold
/// query fails keep their database (they are reported apart). `progress(done, total)` follows.
pub fn apply(
    questions: &mut [super::Question],
    condition: SchemaCondition,
    seed: u32,
    gold: &mut super::GoldCache,
    dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), SubsetError> {
    if condition == SchemaCondition::Full {
        return Ok(());
    }
    let mut graphs: std::collections::HashMap<PathBuf, crate::env::TableGraph> = Default::default();
    let total = questions.len();
    for (i, q) in questions.iter_mut().enumerate() {
        let g = gold.get(q);
        if g.rows.is_ok() {
            let gold_tables = g.tables.clone();
            if !graphs.contains_key(&q.db) {
                let env = Environment::open(&q.db)
                    .map_err(|e| SubsetError::Source { path: q.db.clone(), source: e.into() })?;
                let graph =
                    env.table_graph().map_err(|e| SubsetError::Source { path: q.db.clone(), source: e.into() })?;
                graphs.insert(q.db.clone(), graph);
            }
            let (tables, keys) = &graphs[&q.db];
            let keep = choose_tables(tables, keys, &gold_tables, condition, subset_seed(seed, &q.id));
            q.db = copy_with_tables(&q.db, &keep, dir)?;
        }
        progress(i + 1, total);
    }
    Ok(())
}

/// Columns that take values on insert (generated and hidden columns left out).
fn insertable_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA src.table_xinfo({})", quote_ident(table)))?;
    let cols = stmt.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(6)?)))?;
    let mut out = Vec::new();
    for c in cols {
        let (name, hidden) = c?;
        if hidden == 0 {
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn conditions_parse_and_print() {
        for s in ["full", "gold", "distractors:32"] {
            assert_eq!(s.parse::<SchemaCondition>().unwrap().to_string(), s);
        }
        assert!("distractors".parse::<SchemaCondition>().is_err());
        assert!("some".parse::<SchemaCondition>().unwrap_err().to_string().contains("distractors:N"));
    }

    #[test]
    fn growth_follows_keys_then_fills_and_shuffles() {
        // a - b - c - d chain, e unconnected.
        let tables = names(&["a", "b", "c", "d", "e"]);
        let keys = vec![("b".into(), "a".into()), ("c".into(), "b".into()), ("d".into(), "c".into())];
        assert_eq!(choose_tables(&tables, &keys, &names(&["B"]), SchemaCondition::Gold, 1), ["b"]);
        for seed in 0..20 {
            let one: BTreeSet<String> =
                choose_tables(&tables, &keys, &names(&["b"]), SchemaCondition::Distractors(1), seed)
                    .into_iter()
                    .collect();
            assert!(
                one == names(&["a", "b"]).into_iter().collect() || one == names(&["b", "c"]).into_iter().collect(),
                "{one:?}"
            );
            let three: BTreeSet<String> =
                choose_tables(&tables, &keys, &names(&["b"]), SchemaCondition::Distractors(3), seed)
                    .into_iter()
                    .collect();
            assert_eq!(
                three,
                names(&["a", "b", "c", "d"]).into_iter().collect(),
                "connected tables come before unconnected ones"
            );
            assert_eq!(choose_tables(&tables, &keys, &names(&["b"]), SchemaCondition::Distractors(9), seed).len(), 5);
        }
        let orders: BTreeSet<Vec<String>> = (0..20)
            .map(|s| choose_tables(&tables, &keys, &names(&["a", "b", "c"]), SchemaCondition::Gold, s))
            .collect();
        assert!(orders.len() > 1, "order is shuffled by seed");
        assert_eq!(choose_tables(&tables, &keys, &[], SchemaCondition::Full, 3), tables);
    }
}
