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
    Ok(read_all(path)?.predictions)
}

/// The predictions of a file, and the ids given more than once (the last line kept).
#[derive(Debug, Clone, Default)]
pub struct Predictions {
    /// By question id.
    pub predictions: HashMap<String, Option<String>>,
    /// Ids on more than one line, in the order first repeated.
    pub repeated: Vec<String>,
}

/// [`read`], with the ids given more than once.
pub fn read_all(path: &Path) -> Result<Predictions, PredictionsError> {
    let text = crate::regular_file::read_text_at_most(path, super::source::MAX_BENCHMARK_BYTES)
        .map_err(|source| PredictionsError::Io { path: path.to_path_buf(), source })?;
    let mut out = Predictions::default();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Prediction = serde_json::from_str(line).map_err(|source| PredictionsError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            source,
        })?;
        let id = normalize_id(&p.id);
        if out.predictions.insert(id.clone(), p.sql).is_some() && !out.repeated.contains(&id) {
            out.repeated.push(id);
        }
    }
    Ok(out)
}

/// Scored predictions, and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Scored {
    /// One record per question with a prediction.
    pub records: Vec<Record>,
    /// Questions without a prediction: missing, not scored (neither right nor wrong).
    pub missing: Vec<String>,
    /// Predictions for ids that are not questions of the benchmark (as selected).
    pub unknown: Vec<String>,
}

impl Scored {
    /// What was left out, in sentences for the reports (none when nothing was).
    pub fn notes(&self, repeated: &[String]) -> Vec<String> {
        let list = |ids: &[String]| {
            let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
            format!("{}{}", shown.join(", "), if ids.len() > 5 { ", …" } else { "" })
        };
        let mut notes = Vec::new();
        if !self.missing.is_empty() {
            notes.push(format!(
                "{} question(s) have no prediction: counted as missing, not as wrong: {}",
                self.missing.len(),
                list(&self.missing)
            ));
        }
        if !self.unknown.is_empty() {
            notes.push(format!(
                "{} prediction(s) are for ids that are not questions of the benchmark, and were not scored: {}",
                self.unknown.len(),
                list(&self.unknown)
            ));
        }
        if !repeated.is_empty() {
            notes.push(format!(
                "{} id(s) have more than one prediction (the last line scored): {}",
                repeated.len(),
                list(repeated)
            ));
        }
        notes
    }
}

/// One record per question with a prediction, scored under `label`; questions without one are
/// missing (not wrong), and predictions of ids that are not questions are set aside.
pub fn score_all(
    label: &str,
    questions: &[Question],
    predictions: &HashMap<String, Option<String>>,
    limits: &Limits,
) -> Scored {
    let mut gold = GoldCache::new(limits.clone());
    let mut out = Scored::default();
    for q in questions {
        match predictions.get(&q.id) {
            Some(sql) => out.records.push(score_record(label, q, sql.as_deref(), gold.get(q), limits)),
            None => out.missing.push(q.id.clone()),
        }
    }
    let ids: std::collections::HashSet<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    out.unknown = predictions.keys().filter(|id| !ids.contains(id.as_str())).cloned().collect();
    out.unknown.sort();
    out
}
