//! Benchmark sources: a plain JSONL manifest and the BIRD layout.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One benchmark question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Stable id (results are keyed by it, for resuming and comparing).
    pub id: String,
    /// The SQLite file.
    pub db: PathBuf,
    /// The question.
    pub question: String,
    /// Evidence (BIRD's hint), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// The gold SQL.
    pub gold_sql: String,
    /// Difficulty label, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
}

/// Why a benchmark could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A line or file is not what the format expects.
    #[error("{path}:{line}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 for the whole file).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// Neither a manifest nor a BIRD folder.
    #[error("{0} is neither a JSONL manifest nor a BIRD-layout folder (dev.json + dev_databases/); see `sqale eval --help`")]
    Unknown(PathBuf),
}

/// Reads a benchmark: a `.jsonl` manifest (`id, db, question, evidence?, gold_sql,
/// difficulty?`; `db` relative to the manifest's folder) or a BIRD folder (`dev.json` and
/// `dev_databases/<db_id>/<db_id>.sqlite`).
pub fn load(source: &Path) -> Result<Vec<Question>, BenchError> {
    if source.is_file() && source.extension().is_some_and(|e| e == "jsonl") {
        return load_manifest(source);
    }
    if source.is_dir() && source.join("dev.json").is_file() {
        return load_bird(source);
    }
    Err(BenchError::Unknown(source.to_path_buf()))
}

fn read(path: &Path) -> Result<String, BenchError> {
    std::fs::read_to_string(path).map_err(|e| BenchError::Io { path: path.to_path_buf(), source: e })
}

fn load_manifest(path: &Path) -> Result<Vec<Question>, BenchError> {
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, line) in read(path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut q: Question = serde_json::from_str(line).map_err(|e| BenchError::Format {
            path: path.to_path_buf(),
            line: i + 1,
            reason: format!("{e} (expected {{\"id\", \"db\", \"question\", \"gold_sql\", \"evidence\"?, \"difficulty\"?}})"),
        })?;
        if q.db.is_relative() {
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

fn load_bird(dir: &Path) -> Result<Vec<Question>, BenchError> {
    let path = dir.join("dev.json");
    let items: Vec<BirdItem> = serde_json::from_str(&read(&path)?).map_err(|e| BenchError::Format {
        path: path.clone(),
        line: 0,
        reason: e.to_string(),
    })?;
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, it)| Question {
            id: it.question_id.map(|v| v.to_string().trim_matches('"').to_string()).unwrap_or_else(|| i.to_string()),
            db: dir.join("dev_databases").join(&it.db_id).join(format!("{}.sqlite", it.db_id)),
            question: it.question,
            evidence: it.evidence.filter(|e| !e.trim().is_empty()),
            gold_sql: it.sql,
            difficulty: it.difficulty,
        })
        .collect())
}
