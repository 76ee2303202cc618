//! A results folder: what `sqale eval` writes, and what `merge` and the reports read back.
//!
//! | file | written by | holds |
//! |---|---|---|
//! | `episodes.jsonl` | each finished episode, appended | one [`Record`] per line, with its trace |
//! | `models.json` | each model's run | [`Models`]: file, size, parameters, last run's speed and memory |
//! | `summary.md`, `summary.csv` | [`write_reports`] | the tables a terminal shows |
//! | `summary.json` | [`write_reports`] | [`SummaryFile`] |
//! | `report.html` | [`write_reports`] | the self-contained report ([`super::html`]) |
//! | `databases/` | `--schema` other than full | cut copies of the benchmark's databases |
//!
//! Every file but `episodes.jsonl` is written whole or not at all ([`crate::atomic`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::report::{self, Paired, Summary};
use super::subset::SchemaCondition;
use super::{read_records, Record};

/// The throughput and memory of one model's run in one invocation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Episodes run at once (`--parallel`).
    pub parallel: u32,
    /// Episodes run (questions already done or with a failing gold query excluded).
    pub episodes: usize,
    /// Wall-clock seconds, model load included.
    pub seconds: f64,
    /// Tokens sampled over all episodes.
    pub generated_tokens: usize,
    /// Peak resident memory of the process during this model's run.
    pub peak_rss_bytes: Option<u64>,
}

impl RunStats {
    /// Counts a finished record into the run (a record without an episode is not one).
    pub fn count(&mut self, record: &Record) {
        self.episodes += record.episode.is_some() as usize;
        self.generated_tokens += record.generated_tokens;
    }

    /// Episodes per minute of wall-clock time.
    pub fn episodes_per_minute(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.episodes as f64 * 60.0 / self.seconds)
    }

    /// Generated tokens per second of wall-clock time, over all episodes together.
    pub fn generated_tokens_per_second(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.generated_tokens as f64 / self.seconds)
    }
}

/// One model of `models.json`: its file and its last run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    /// The GGUF file, as given.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Parameters (from the model's tensors).
    pub params: u64,
    /// The last run of this model into the folder.
    #[serde(default)]
    pub last_run: Option<RunStats>,
    /// The inference servers it ran on (absent for a model run in-process): URL, API, model id
    /// and version of each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<crate::remote::ServerInfo>>,
    /// The type most of its weights are stored in (`q3_k_m` files hold `q3_K` and others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// The importance matrix it was quantised with, as the file records it
    /// (`quantize.imatrix.file`, and its first dataset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imatrix: Option<String>,
    /// Every tensor type the file holds, with its tensors and weights, most weights first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mix: Vec<sqale_convert::mix::TypeCount>,
    /// The tensors that could not take the file's type (rows not a multiple of its blocks), and
    /// what they were stored as instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<sqale_convert::mix::Fallback>,
}

impl ModelEntry {
    /// The entry of the model file `path` with `params` parameters after `run`.
    pub fn new(path: &Path, params: u64, run: RunStats) -> Self {
        ModelEntry { last_run: Some(run), ..ModelEntry::file(path, params) }
    }

    /// The entry of the model file `path` with `params` parameters, without a run of its own
    /// (`eval --kld-only` measures its divergence only).
    pub fn file(path: &Path, params: u64) -> Self {
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let q = quantisation(path);
        ModelEntry {
            path: path.display().to_string(),
            bytes,
            params,
            last_run: None,
            servers: None,
            weights: q.weights,
            imatrix: q.imatrix,
            mix: q.mix,
            fallback: q.fallback,
        }
    }

    /// The file's type as the reports show it: the main weight type, or, for a file whose
    /// tensors fell back from its type, `q3_k_m, mostly q4_0 (fallback)`.
    pub fn type_label(&self) -> Option<String> {
        match &self.fallback {
            Some(f) => Some(f.label(&self.mix)),
            None => self.weights.clone(),
        }
    }

    /// The tensor-type mix in words (`120 q4_0, 58 q5_0, 29 q4_K, 65 f32`); empty when unknown.
    pub fn mix_text(&self) -> String {
        sqale_convert::mix::mix_text(&self.mix)
    }

    /// Bits per weight of the file (its bytes over its parameters), when both are known.
    pub fn bits_per_weight(&self) -> Option<f64> {
        (self.params > 0 && self.bytes > 0).then(|| 8.0 * self.bytes as f64 / self.params as f64)
    }

    /// The entry of a model run on `servers` (its file and size are the servers' business).
    pub fn remote(servers: Vec<crate::remote::ServerInfo>, run: RunStats) -> Self {
        let path = servers.first().map(|s| s.model.clone()).unwrap_or_default();
        ModelEntry {
            path,
            bytes: 0,
            params: 0,
            last_run: Some(run),
            servers: Some(servers),
            weights: None,
            imatrix: None,
            mix: Vec::new(),
            fallback: None,
        }
    }
}

/// What a GGUF file's header says of its quantisation.
#[derive(Default)]
struct Quantisation {
    weights: Option<String>,
    imatrix: Option<String>,
    mix: Vec<sqale_convert::mix::TypeCount>,
    fallback: Option<sqale_convert::mix::Fallback>,
}

/// A GGUF file's main weight type, importance matrix, type mix and fallback, from its header.
fn quantisation(path: &Path) -> Quantisation {
    use sqale_convert::gguf::Value;
    use sqale_convert::quantize::{KEY_IMATRIX_DATASET, KEY_IMATRIX_FILE};
    let Ok(h) = sqale_convert::gguf::read_header(path) else { return Quantisation::default() };
    let weights = sqale_convert::quantize::main_type(&h);
    let imatrix = h.get(KEY_IMATRIX_FILE).and_then(Value::as_str).map(|file| {
        match h.get(KEY_IMATRIX_DATASET).and_then(Value::as_str) {
            Some(d) => format!("{file} ({d})"),
            None => file.to_string(),
        }
    });
    Quantisation {
        weights: weights.map(str::to_string),
        imatrix,
        mix: sqale_convert::mix::type_mix(&h),
        fallback: sqale_convert::mix::fallback(&h),
    }
}

/// `models.json`: model label → entry.
pub type Models = BTreeMap<String, ModelEntry>;

/// `summary.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SummaryFile {
    /// One summary per model, in the order they first appear in `episodes.jsonl`.
    pub models: Vec<Summary>,
    /// Every model against the first, on the questions both answered.
    pub paired: Vec<Paired>,
    /// The models' files and runs (`models.json`).
    pub runs: Models,
    /// Each model's divergence from the reference, when the run had one (`eval --reference`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub divergence: Vec<crate::divergence::report::DivergenceSummary>,
}

/// The reports [`write_reports`] wrote.
#[derive(Debug, Clone)]
pub struct Reports {
    /// What `summary.json` holds.
    pub summary: SummaryFile,
    /// What `summary.md` holds (also what the terminal shows).
    pub markdown: String,
}

/// Why a results folder could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResultsError {
    /// A file or folder could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The divergence measurements of the folders could not be joined.
    #[error("joining divergence measurements: {0}")]
    Divergence(#[source] Box<crate::divergence::DivergenceError>),
    /// A folder given to merge has no `episodes.jsonl`.
    #[error("{0} has no episodes.jsonl: is it a results folder?")]
    NotResults(PathBuf),
    /// The results folder's path names something that is not a folder.
    #[error("{} is {kind}, not a folder: -o takes a results folder (new, or one to resume); name another path", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// A file of the results folder would replace an input.
    #[error("{0}")]
    Output(#[source] Box<crate::atomic::OutputError>),
    /// The merge's output folder is one of its inputs.
    #[error("the output folder {} is also a folder being merged: write the merge to a new folder (-o)", .0.display())]
    MergeIntoInput(PathBuf),
    /// A value could not be written as JSON.
    #[error("writing {path} as JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: serde_json::Error,
    },
}

/// The largest `models.json` read (a few hundred bytes a model).
const MAX_MODELS_BYTES: u64 = 64 << 20;

/// A results folder and the names of its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultsDir {
    path: PathBuf,
}

impl ResultsDir {
    /// The episode records, one JSON line each.
    pub const EPISODES: &'static str = "episodes.jsonl";
    /// The models' files and runs.
    pub const MODELS: &'static str = "models.json";
    /// The summary as Markdown.
    pub const SUMMARY_MD: &'static str = "summary.md";
    /// The summary as CSV, one row per model.
    pub const SUMMARY_CSV: &'static str = "summary.csv";
    /// The summary as JSON ([`SummaryFile`]).
    pub const SUMMARY_JSON: &'static str = "summary.json";
    /// The HTML report.
    pub const REPORT_HTML: &'static str = "report.html";
    /// Cut copies of databases (`--schema`).
    pub const DATABASES: &'static str = "databases";

    /// The folder at `path` (nothing is created).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        ResultsDir { path: path.into() }
    }

    /// The folder at `path`, created if missing; refused when a file it reads is there but is
    /// not a regular file ([`ResultsDir::check`]).
    pub fn create(path: impl Into<PathBuf>) -> Result<Self, ResultsError> {
        let dir = Self::new(path);
        if let Ok(meta) = std::fs::metadata(&dir.path) {
            if !meta.is_dir() {
                return Err(ResultsError::NotAFolder {
                    path: dir.path.clone(),
                    kind: crate::regular_file::kind_of(&meta),
                });
            }
        }
        std::fs::create_dir_all(&dir.path).map_err(|source| ResultsError::Io { path: dir.path.clone(), source })?;
        dir.check()?;
        Ok(dir)
    }

    /// Refuses the folder when a file it reads is not a regular file ([`ResultsDir::check`]), or
    /// a file it writes (`episodes.jsonl`, the summaries, the report) is, once resolved, one of
    /// `inputs` (the benchmark, the predictions, a model): writing it would
    /// destroy that input.
    pub fn check_outputs(&self, inputs: &[crate::atomic::Input<'_>]) -> Result<(), ResultsError> {
        if !self.path.is_dir() {
            // A folder not made yet holds no input.
            return Ok(());
        }
        self.check()?;
        let names =
            [Self::EPISODES, Self::MODELS, Self::SUMMARY_MD, Self::SUMMARY_CSV, Self::SUMMARY_JSON, Self::REPORT_HTML];
        for name in names {
            crate::atomic::check_output(&self.file(name), name, inputs)
                .map_err(|e| ResultsError::Output(Box::new(e)))?;
        }
        Ok(())
    }

    /// Refuses the folder when a file it reads (`episodes.jsonl`, `models.json`, the divergence
    /// folder's) is there but is not a regular file: a link to `/dev/zero` would be read without
    /// end, a FIFO would block.
    pub fn check(&self) -> Result<(), ResultsError> {
        let io = |source: std::io::Error| ResultsError::Io { path: self.path.clone(), source };
        super::jsonl::check_files(&self.path, &[Self::EPISODES, Self::MODELS]).map_err(io)?;
        crate::divergence::run::DivergenceDir::new(&self.path).check().map_err(io)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file of the folder by name (one of the constants).
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// `episodes.jsonl`.
    pub fn episodes(&self) -> PathBuf {
        self.file(Self::EPISODES)
    }

    /// `databases/`.
    pub fn databases(&self) -> PathBuf {
        self.file(Self::DATABASES)
    }

    /// Every (model, question)'s record, settled ([`super::settle`]: a failed episode that was
    /// played again counts once; a line cut by a kill is skipped).
    pub fn records(&self) -> Vec<Record> {
        super::settle(read_records(&self.episodes()))
    }

    /// Replaces `episodes.jsonl` with `records`, whole.
    pub fn write_records(&self, records: &[Record]) -> Result<(), ResultsError> {
        let lines =
            super::jsonl::lines(records).map_err(|source| ResultsError::Json { path: self.episodes(), source })?;
        self.write(Self::EPISODES, lines)
    }

    /// `models.json` (empty when missing or unreadable: the reports then leave sizes out).
    pub fn models(&self) -> Models {
        crate::regular_file::read_at_most(&self.file(Self::MODELS), MAX_MODELS_BYTES)
            .ok()
            .and_then(|t| serde_json::from_slice(&t).ok())
            .unwrap_or_default()
    }

    /// Replaces `models.json`.
    pub fn write_models(&self, models: &Models) -> Result<(), ResultsError> {
        let path = self.file(Self::MODELS);
        let text = serde_json::to_string_pretty(models).map_err(|source| ResultsError::Json { path, source })?;
        self.write(Self::MODELS, text)
    }

    /// Adds (or replaces) model `label` in `models.json`.
    pub fn record_model(&self, label: &str, entry: ModelEntry) -> Result<(), ResultsError> {
        let mut models = self.models();
        models.insert(label.to_string(), entry);
        self.write_models(&models)
    }

    fn write(&self, name: &str, text: impl AsRef<[u8]>) -> Result<(), ResultsError> {
        let path = self.file(name);
        crate::atomic::write(&path, text).map_err(|source| ResultsError::Io { path, source })
    }
}

/// The label of model file `path` in the reports: its file name, with the schema size when it
/// is not the full database (`model.gguf @gold`), so conditions sit side by side like models.
pub fn model_label(path: &Path, condition: SchemaCondition) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
    with_condition(name, condition)
}

/// The label of the model a server pool serves ([`Pool::label`](crate::remote::Pool::label)),
/// with the schema size as [`model_label`] adds it.
pub fn pool_label(pool: &crate::remote::Pool, condition: SchemaCondition) -> String {
    with_condition(pool.label(), condition)
}

/// `label` played under `calls`: marked (`model.gguf +constrained`) unless the calls are free.
pub fn with_calls(label: String, calls: crate::protocol::Calls) -> String {
    match calls {
        crate::protocol::Calls::Free => label,
        other => format!("{label} +{other}"),
    }
}

/// The label of the vote of `k` episodes beside `label`'s lone episodes (`model.gguf +vote5`).
pub fn vote_label(label: &str, k: usize) -> String {
    format!("{label} +vote{k}")
}

fn with_condition(name: String, condition: SchemaCondition) -> String {
    match condition {
        SchemaCondition::Full => name,
        other => format!("{name} @{other}"),
    }
}

/// Joins results folders (of shards, or of models run apart) into `out`: each (model, question)
/// once, first folder first, and the models of every `models.json`. Reports are not written:
/// call [`write_reports`].
pub fn merge(inputs: &[impl AsRef<Path>], out: &Path) -> Result<ResultsDir, ResultsError> {
    for dir in inputs {
        let (a, b) = (std::fs::canonicalize(dir.as_ref()).ok(), std::fs::canonicalize(out).ok());
        if a.is_some() && a == b {
            return Err(ResultsError::MergeIntoInput(out.to_path_buf()));
        }
    }
    let out = ResultsDir::create(out)?;
    let mut records = Vec::new();
    let mut models = Models::new();
    for dir in inputs {
        let dir = ResultsDir::new(dir.as_ref());
        dir.check()?;
        if !dir.episodes().is_file() {
            return Err(ResultsError::NotResults(dir.path.clone()));
        }
        records.extend(dir.records());
        models.extend(dir.models());
    }
    // Divergence measurements first: folders of different references are refused before
    // anything is written.
    let paths: Vec<&Path> = inputs.iter().map(|p| p.as_ref()).collect();
    crate::divergence::run::merge(&paths, out.path()).map_err(|e| ResultsError::Divergence(Box::new(e)))?;
    // Each (model, question) once, first folder first (a played record before a failed one).
    let records = super::settle(records);
    out.write_records(&records)?;
    out.write_models(&models)?;
    Ok(out)
}

/// The divergence of every model from the reference, when `out` has a `divergence/` folder;
/// the execution-accuracy figure comes from the paired comparison against the reference.
fn divergence_summaries(out: &Path, paired: &[report::Paired]) -> Vec<crate::divergence::report::DivergenceSummary> {
    let dir = crate::divergence::run::DivergenceDir::new(out);
    let Some(info) = dir.info() else { return Vec::new() };
    let records = dir.read_records();
    let ex = |model: &str| {
        let p = paired.iter().find(|p| p.b == model && p.a == info.label)?;
        crate::divergence::report::questions_needed(p.n, (p.diff_ci.1 - p.diff_ci.0) / 2.0, p.diff)
    };
    crate::divergence::report::summarise(&records, &info.label, &ex)
}

/// Summarises `out`'s records into `summary.md`, `summary.csv`, `summary.json` and
/// `report.html`, and returns what was written.
pub fn write_reports(out: &Path) -> Result<Reports, ResultsError> {
    let dir = ResultsDir::new(out);
    let records = dir.records();
    let models = report::summarise(&records);
    let paired = report::paired(&records, &models);
    let divergence = divergence_summaries(out, &paired);
    let summary = SummaryFile { models, paired, runs: dir.models(), divergence };
    let markdown = format!(
        "{}\n{}{}",
        report::markdown(&summary.models, &summary.paired),
        report::runs_markdown(&summary.runs, &summary.models),
        crate::divergence::report::markdown(&summary.divergence)
    );
    dir.write(ResultsDir::SUMMARY_MD, &markdown)?;
    dir.write(ResultsDir::SUMMARY_CSV, report::csv(&summary.models))?;
    dir.write(ResultsDir::REPORT_HTML, super::html::report(&summary, &records))?;
    let json_path = dir.file(ResultsDir::SUMMARY_JSON);
    let json =
        serde_json::to_string_pretty(&summary).map_err(|source| ResultsError::Json { path: json_path, source })?;
    dir.write(ResultsDir::SUMMARY_JSON, json)?;
    Ok(Reports { summary, markdown })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_json_keeps_its_shape() {
        let text = r#"{"m.gguf": {"path": "/x/m.gguf", "bytes": 10, "params": 134515008,
            "last_run": {"parallel": 4, "episodes": 3, "seconds": 1.5, "generated_tokens": 90, "peak_rss_bytes": null}}}"#;
        let models: Models = serde_json::from_str(text).unwrap();
        let run = models["m.gguf"].last_run.as_ref().unwrap();
        assert_eq!((run.parallel, run.episodes, run.peak_rss_bytes), (4, 3, None));
        assert_eq!(run.episodes_per_minute(), Some(120.0));
        let back: serde_json::Value = serde_json::to_value(&models).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(text).unwrap(), "written back as read");
    }

    #[test]
    fn labels_carry_the_schema_size() {
        assert_eq!(model_label(Path::new("/m/a.gguf"), SchemaCondition::Full), "a.gguf");
        assert_eq!(model_label(Path::new("/m/a.gguf"), SchemaCondition::Distractors(3)), "a.gguf @distractors:3");
        let gold = model_label(Path::new("a.gguf"), SchemaCondition::Gold);
        assert_eq!(with_calls(gold.clone(), crate::protocol::Calls::Free), "a.gguf @gold");
        let constrained = with_calls(gold, crate::protocol::Calls::Constrained);
        assert_eq!(vote_label(&constrained, 5), "a.gguf @gold +constrained +vote5");
    }

    #[test]
    fn merging_needs_results_folders() {
        let dir = tempfile::tempdir().unwrap();
        let err = merge(&[dir.path()], &dir.path().join("out")).unwrap_err();
        assert!(matches!(err, ResultsError::NotResults(_)), "{err}");
    }
}
