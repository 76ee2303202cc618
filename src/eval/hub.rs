//! Benchmark datasets fetched from the Hugging Face Hub: the only network path of the
//! evaluation layer, taken when a SQaLe half is named by dataset id rather than a local file.

use std::path::PathBuf;

use super::question::SourceError;

/// The SQaLe datasets on the Hugging Face Hub, read for the benchmark spec `sqale`.
pub const SQALE_DATASETS: (&str, &str) = ("trl-lab/SQaLe-2-text-to-SQL-Queries", "trl-lab/SQaLe-2-text-to-SQL-Schemas");

/// The local folder of dataset `id`'s parquet files: found in the standard Hugging Face cache,
/// or fetched into it (offline with `HF_HUB_OFFLINE=1` once there).
pub fn fetch(id: &str) -> Result<PathBuf, SourceError> {
    crate::pull::fetch_dataset(id, true)
        .map_err(|source| SourceError::Fetch { id: id.to_string(), source: Box::new(source) })
}
