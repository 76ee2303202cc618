//! One benchmark question, and why a benchmark could not be read: the types every benchmark
//! source ([`super::source`], [`super::parquet_pair`]) produces, and nothing else.

use std::path::PathBuf;

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

/// A question id as results key it: a JSON string as it is (`"q1"` → `q1`), any other value
/// as JSON prints it (`7` → `7`). Benchmarks and prediction files write ids either way.
pub fn normalize_id(id: &serde_json::Value) -> String {
    match id {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Why a benchmark could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
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
    /// Not a benchmark sqale knows.
    #[error(
        "{0} is not a benchmark sqale reads: give a JSONL manifest, a BIRD folder (dev.json + dev_databases/), \
         an EHRSQL-style .json file, or sqale[:QUERIES,SCHEMAS]"
    )]
    Unknown(PathBuf),
    /// A SQaLe database could not be built from its schema row.
    #[error("{path}: schema {schema_id}: {source}")]
    Build {
        /// The schemas file.
        path: PathBuf,
        /// The schema.
        schema_id: String,
        /// What failed.
        #[source]
        source: Box<super::parquet_pair::BuildError>,
    },
    /// A dataset could not be fetched from the Hugging Face Hub.
    #[error("fetching the dataset {id}: {source}")]
    Fetch {
        /// The dataset id.
        id: String,
        /// Why.
        #[source]
        source: Box<crate::pull::PullError>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_normalise_from_strings_and_numbers() {
        assert_eq!(normalize_id(&serde_json::json!("q1")), "q1");
        assert_eq!(normalize_id(&serde_json::json!(7)), "7");
        assert_eq!(normalize_id(&serde_json::json!("7")), "7", "a string id and a numeric id match");
        assert_eq!(normalize_id(&serde_json::json!("say \"hi\"")), "say \"hi\"", "inner quotes are kept");
    }
}
