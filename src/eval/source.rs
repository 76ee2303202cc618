//! Benchmark sources: a plain JSONL manifest, the BIRD layout, an EHRSQL-style file, and the
//! SQaLe parquet pair ([`super::parquet_pair`]), local or fetched from the Hugging Face Hub
//! ([`super::hub`], reached only for a dataset id).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::question::{normalize_id, Question, SourceError};

/// How to read a benchmark.
pub struct LoadOptions<'a> {
    /// Keep the first N questions only (of the shard, when there is one).
    pub limit: Option<usize>,
    /// Keep shard i of n (1-based): every n-th question, before `limit` is applied.
    pub shard: Option<(usize, usize)>,
    /// SQaLe's phrasing to ask.
    pub phrasing: super::parquet_pair::Phrasing,
    /// Where built databases are cached (SQaLe).
    pub cache: PathBuf,
    /// `(done, total)` while databases are built.
    pub progress: &'a mut dyn FnMut(usize, usize),
}

impl LoadOptions<'_> {
    fn keeps(&self, i: usize) -> bool {
        keeps(self.limit, self.shard, i)
    }
}

/// Whether question `i` is kept: the shard is taken first (every n-th question), then the first
/// `limit` questions of it, so `--shard 1/12 --limit 8` runs 8 questions.
fn keeps(limit: Option<usize>, shard: Option<(usize, usize)>, i: usize) -> bool {
    let (k, n) = shard.unwrap_or((1, 1));
    i % n == k - 1 && limit.is_none_or(|l| i / n < l)
}

/// Reads the benchmark `spec` names: `sqale` or `sqale:QUERIES,SCHEMAS` (each a local parquet
/// file or folder, or a dataset id on the Hugging Face Hub, fetched through the standard cache),
/// or a path as [`load`] takes. Questions are selected by `options.limit` and `options.shard`.
pub fn open(spec: &str, options: &mut LoadOptions<'_>) -> Result<Vec<Question>, SourceError> {
    if let Some(rest) = spec.strip_prefix("sqale").filter(|r| r.is_empty() || r.starts_with(':')) {
        let (q, s) = match rest.strip_prefix(':') {
            None => (super::hub::SQALE_DATASETS.0.to_string(), super::hub::SQALE_DATASETS.1.to_string()),
            Some(pair) => {
                let (q, s) = pair.split_once(',').ok_or_else(|| SourceError::Unknown(PathBuf::from(spec)))?;
                (q.trim().to_string(), s.trim().to_string())
            }
        };
        let local_or_fetched = |x: &str| -> Result<PathBuf, SourceError> {
            let p = PathBuf::from(x);
            if p.exists() {
                return Ok(p);
            }
            super::hub::fetch(x)
        };
        let source = super::parquet_pair::Source { queries: local_or_fetched(&q)?, schemas: local_or_fetched(&s)? };
        let (limit, shard) = (options.limit, options.shard);
        let keep = move |i: usize| keeps(limit, shard, i);
        return super::parquet_pair::load(
            &source,
            &options.phrasing,
            &keep,
            &options.cache.join("sqale"),
            options.progress,
        );
    }
    let path = Path::new(spec);
    let all = load(path)?;
    Ok(all.into_iter().enumerate().filter(|(i, _)| options.keeps(*i)).map(|(_, q)| q).collect())
}

/// Reads a benchmark: a `.jsonl` manifest (`id, db, question, evidence?, gold_sql,
/// difficulty?`; `db` relative to the manifest's folder, absolute, or `"demo"` for the built-in
/// demo database) or a BIRD folder (`dev.json` and
/// `dev_databases/<db_id>/<db_id>.sqlite`).
///
/// Every question must have an id of its own, a question that is not empty, and a database
/// that is a regular file: a benchmark that breaks one is refused, naming the question.
pub fn load(source: &Path) -> Result<Vec<Question>, SourceError> {
    let (questions, file) = if source.is_file() && source.extension().is_some_and(|e| e == "jsonl") {
        (load_manifest(source)?, source.to_path_buf())
    } else if source.is_dir() && source.join("dev.json").is_file() {
        (load_bird(source)?, source.join("dev.json"))
    } else if source.is_file() && source.extension().is_some_and(|e| e == "json") {
        (load_ehrsql(source)?, source.to_path_buf())
    } else {
        return Err(SourceError::Unknown(source.to_path_buf()));
    };
    validate(&file, &questions)?;
    Ok(questions)
}

/// Refuses a benchmark with two questions of one id, an empty question, or a database that is
/// missing or not a regular file (a folder, a device, a FIFO): each would otherwise be scored as
/// something it is not.
fn validate(file: &Path, questions: &[Question]) -> Result<(), SourceError> {
    let format = |reason: String| SourceError::Format { path: file.to_path_buf(), line: 0, reason };
    let mut ids = std::collections::HashMap::new();
    let mut databases = std::collections::HashSet::new();
    for (i, q) in questions.iter().enumerate() {
        let id = crate::printable::escape_line(&q.id);
        if let Some(first) = ids.insert(q.id.as_str(), i) {
            return Err(format(format!(
                "questions {} and {} both have the id {id:?}: give each question an id of its own",
                first + 1,
                i + 1
            )));
        }
        if q.question.trim().is_empty() {
            return Err(format(format!("question {id:?} is empty: write the question, or leave the line out")));
        }
        if databases.insert(q.db.as_path()) {
            match std::fs::metadata(&q.db) {
                Ok(m) if m.is_file() => {}
                Ok(m) => {
                    return Err(format(format!(
                        "the database of question {id:?}, {}, is {}, not a SQLite file",
                        q.db.display(),
                        crate::regular_file::kind_of(&m)
                    )))
                }
                Err(e) => {
                    return Err(format(format!(
                        "the database of question {id:?}, {}, cannot be read ({e}): check the path (a relative `db` is \
                         read from the benchmark's folder)",
                        q.db.display()
                    )))
                }
            }
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct EhrsqlItem {
    id: serde_json::Value,
    question: String,
    #[serde(default)]
    query: Option<String>,
    db_id: String,
    #[serde(default)]
    is_impossible: bool,
    #[serde(default)]
    difficulty: Option<String>,
}

/// EHRSQL's fixed "now" and normal vital-sign ranges, as its official evaluation fills them in.
const EHRSQL_NOW: &str = "2105-12-31 23:59:00";
const EHRSQL_VITALS: [(&str, f64, f64); 7] = [
    ("temperature", 35.5, 38.1),
    ("sao2", 95.0, 100.0),
    ("heart_rate", 60.0, 100.0),
    ("respiration", 12.0, 18.0),
    ("systolic_bp", 90.0, 120.0),
    ("diastolic_bp", 60.0, 90.0),
    ("mean_bp", 60.0, 110.0),
];

/// An EHRSQL gold query made runnable as the official evaluation does: `current_time` becomes
/// the dataset's fixed now, `<vital>_lower`/`<vital>_upper` become the normal range, and
/// `strftime('%y'…)`/`'%j'` become `%Y`/`%J`.
pub fn ehrsql_gold(sql: &str) -> String {
    let mut s = sql.replace("current_time", &format!("'{EHRSQL_NOW}'"));
    for (name, lo, hi) in EHRSQL_VITALS {
        s = s
            .replace(&format!("{name}_lower"), &format!("{lo:.1}"))
            .replace(&format!("{name}_upper"), &format!("{hi:.1}"));
    }
    s.replace("%y", "%Y").replace("%j", "%J")
}

/// Finds `<db_id>.sqlite` (or `.db`) beside `file`, in its parent folders, or in a `<db_id>/`
/// folder there.
fn find_db(file: &Path, db_id: &str) -> Option<PathBuf> {
    let mut dir = file.parent();
    for _ in 0..3 {
        let d = dir?;
        for name in [
            format!("{db_id}.sqlite"),
            format!("{db_id}.db"),
            format!("{db_id}/{db_id}.sqlite"),
            format!("{db_id}/{db_id}.db"),
        ] {
            let p = d.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
        dir = d.parent();
    }
    None
}

/// An EHRSQL-style file: a JSON array of `{id, question, query, db_id, is_impossible?}`.
/// Unanswerable questions (`is_impossible`, or no query) are left out: an episode must end in
/// SQL. Gold queries get EHRSQL's official fill-ins ([`ehrsql_gold`]).
fn load_ehrsql(path: &Path) -> Result<Vec<Question>, SourceError> {
    let items: Vec<EhrsqlItem> = serde_json::from_str(&read(path)?).map_err(|e| SourceError::Format {
        path: path.to_path_buf(),
        line: 0,
        reason: format!(
            "{e} (expected a JSON array of {{\"id\", \"question\", \"query\", \"db_id\"}}, as EHRSQL's valid.json)"
        ),
    })?;
    let mut dbs: std::collections::HashMap<String, PathBuf> = Default::default();
    let mut out = Vec::new();
    for it in items {
        let Some(query) = it.query.filter(|q| !it.is_impossible && !q.trim().is_empty() && q.trim() != "null") else {
            continue;
        };
        let db = match dbs.get(&it.db_id) {
            Some(p) => p.clone(),
            None => {
                let p = find_db(path, &it.db_id).ok_or_else(|| SourceError::Format {
                    path: path.to_path_buf(),
                    line: 0,
                    reason: format!("database {0:?} not found: put {0}.sqlite next to the file (EHRSQL builds it with preprocess/preprocess_db.py)", it.db_id),
                })?;
                dbs.insert(it.db_id.clone(), p.clone());
                p
            }
        };
        out.push(Question {
            id: normalize_id(&it.id),
            db,
            question: it.question,
            evidence: None,
            gold_sql: ehrsql_gold(&query),
            difficulty: it.difficulty,
        });
    }
    Ok(out)
}

/// The largest benchmark file read (BIRD's train.json is about 30 MB).
pub const MAX_BENCHMARK_BYTES: u64 = 1 << 30;

/// A benchmark file's text, without the UTF-8 byte-order mark some editors write first.
fn read(path: &Path) -> Result<String, SourceError> {
    let text = crate::regular_file::read_text_at_most(path, MAX_BENCHMARK_BYTES)
        .map_err(|e| SourceError::Io { path: path.to_path_buf(), source: e })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// The `db` of a manifest line that names the built-in demo database (`sqale ask`'s).
pub const DEMO: &str = "demo";

/// A JSONL manifest: `db` is `"demo"` (the built-in demo database), a path relative to the
/// manifest's folder, or an absolute path.
fn load_manifest(path: &Path) -> Result<Vec<Question>, SourceError> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, line) in read(path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut q: Question = serde_json::from_str(line).map_err(|e| SourceError::Format {
            path: path.to_path_buf(),
            line: i + 1,
            reason: format!(
                "{e} (expected {{\"id\", \"db\", \"question\", \"gold_sql\", \"evidence\"?, \"difficulty\"?}})"
            ),
        })?;
        if q.db == Path::new(DEMO) {
            // The built-in demo database, written to the cache once.
            q.db = crate::demo::demo_db_path()
                .map_err(|e| SourceError::Io { path: crate::cache::root().join("demo-*.sqlite"), source: e })?;
        } else if q.db.is_relative() {
            q.db = base.join(&q.db);
        }
        out.push(q);
    }
    Ok(out)
}

#[derive(Deserialize)]
struct BirdItem {
    question_id: Option<serde_json::Value>,
    db_id: String,
    question: String,
    #[serde(default)]
    evidence: Option<String>,
    #[serde(rename = "SQL")]
    sql: String,
    #[serde(default)]
    difficulty: Option<String>,
}

fn load_bird(dir: &Path) -> Result<Vec<Question>, SourceError> {
    let path = dir.join("dev.json");
    let items: Vec<BirdItem> = serde_json::from_str(&read(&path)?).map_err(|e| SourceError::Format {
        path: path.clone(),
        line: 0,
        reason: e.to_string(),
    })?;
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, it)| Question {
            id: it.question_id.as_ref().map(normalize_id).unwrap_or_else(|| i.to_string()),
            db: dir.join("dev_databases").join(&it.db_id).join(format!("{}.sqlite", it.db_id)),
            question: it.question,
            evidence: it.evidence.filter(|e| !e.trim().is_empty()),
            gold_sql: it.sql,
            difficulty: it.difficulty,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::keeps;

    #[test]
    fn the_shard_is_taken_before_the_limit() {
        let kept = |limit, shard| (0..100).filter(|&i| keeps(limit, shard, i)).collect::<Vec<_>>();
        assert_eq!(kept(Some(8), Some((1, 12))), [0, 12, 24, 36, 48, 60, 72, 84]);
        assert_eq!(kept(Some(2), Some((3, 4))), [2, 6]);
        assert_eq!(kept(Some(3), None), [0, 1, 2]);
        assert_eq!(kept(None, Some((2, 50))), [1, 51]);
    }
}
