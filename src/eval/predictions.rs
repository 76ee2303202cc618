//! Scoring SQL made by another system (`{"id": ..., "sql": ...}` per line) with the same scorer
//! and gold results as a live run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::question::normalize_id;
use super::{score_record, GoldCache, Question, Record};
use crate::env::Limits;

/// Why predictions could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PredictionsError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not `{"id": ..., "sql": ...}`.
    #[error("{path}:{line}: expected {{\"id\": ..., \"sql\": ...}}: {source}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}

#[derive(serde::Deserialize)]
struct Prediction {
    id: serde_json::Value,
    sql: Option<String>,
}

/// The predictions of a JSONL file, by question id ([`normalize_id`]: `7` and `"7"` are the same
/// question). A later line for the same id replaces an earlier one; `"sql": null` is no answer.
pub fn read(path: &Path) -> Result<HashMap<String, Option<String>>, PredictionsError> {
    let text = crate::regular_file::read_text_at_most(path, super::source::MAX_BENCHMARK_BYTES)
        .map_err(|source| PredictionsError::Io { path: path.to_path_buf(), source })?;
    let mut preds = HashMap::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Prediction = serde_json::from_str(line).map_err(|source| PredictionsError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            source,
        })?;
        preds.insert(normalize_id(&p.id), p.sql);
    }
    Ok(preds)
}

/// One record per question, scoring its prediction (none counts as wrong) under `label`.
pub fn score_all(
    label: &str,
    questions: &[Question],
    predictions: &HashMap<String, Option<String>>,
    limits: &Limits,
) -> Vec<Record> {
    let mut gold = GoldCache::new(limits.clone());
    questions
        .iter()
        .map(|q| {
            let sql = predictions.get(&q.id).cloned().flatten();
            score_record(label, q, sql.as_deref(), gold.get(q), limits)
        })
        .collect()
}
