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
    /// How busy the machine was during the run (absent where `/proc` is not there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<super::load::Load>,
    /// When the run started, in milliseconds since the Unix epoch: what tells the run apart from
    /// the others of the folder (a run's stats are written as its episodes finish, so that a run
    /// that is killed leaves them too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
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

    /// Several runs as one: episodes, seconds and tokens summed, the highest peak memory, and the
    /// machine's load weighed by each run's seconds (the load averages of the first start and the
    /// last end); `parallel` is the last run's. `None` for no runs.
    pub fn combine<'a>(runs: impl IntoIterator<Item = &'a RunStats>) -> Option<RunStats> {
        let runs: Vec<&RunStats> = runs.into_iter().collect();
        let last = *runs.last()?;
        let seconds: f64 = runs.iter().map(|r| r.seconds).sum();
        let loads: Vec<(f64, super::load::Load)> = runs.iter().filter_map(|r| Some((r.seconds, r.load?))).collect();
        let load = (loads.len() == runs.len() && seconds > 0.0).then(|| {
            let weighed = |f: fn(&super::load::Load) -> f64| loads.iter().map(|(s, l)| s * f(l)).sum::<f64>() / seconds;
            super::load::Load {
                loadavg_start: loads[0].1.loadavg_start,
                loadavg_end: loads[loads.len() - 1].1.loadavg_end,
                cpus: loads[loads.len() - 1].1.cpus,
                others: weighed(|l| l.others),
                steal: weighed(|l| l.steal),
            }
        });
        Some(RunStats {
            parallel: last.parallel,
            episodes: runs.iter().map(|r| r.episodes).sum(),
            seconds,
            generated_tokens: runs.iter().map(|r| r.generated_tokens).sum(),
            peak_rss_bytes: runs.iter().filter_map(|r| r.peak_rss_bytes).max(),
            load,
            started_ms: runs[0].started_ms,
        })
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
    /// The runs before the last that played this model's episodes into the folder (a run that
    /// was stopped, then resumed), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_runs: Vec<RunStats>,
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
    /// The SHA-256 of the file's content: what the model is (its name may be another's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The settings its episodes were played with (absent in folders written before they were
    /// recorded, and for `--kld-only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<EpisodeSettings>,
}

/// Every setting that changes an episode beyond what a label says (the schema size, the calls
/// and the vote are in the label): a resumed run and a merge compare them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeSettings {
    /// The run's seed (each episode's derives from it and the question id).
    pub seed: u32,
    /// Sampling temperature.
    pub temperature: f32,
    /// Nucleus sampling.
    pub top_p: f32,
    /// Top-k sampling.
    pub top_k: i32,
    /// Tokens an episode may hold, its prompt included.
    pub max_episode_tokens: usize,
    /// Characters of thought a turn under constrained calls may hold.
    pub thought_chars: usize,
    /// The system prompt's hash.
    pub prompt: String,
}

impl EpisodeSettings {
    /// What differs from `other`, one `name: mine against theirs` each (`seed: 1 against 2`).
    pub fn differences(&self, other: &EpisodeSettings) -> Vec<String> {
        let (a, b) = (serde_json::to_value(self).unwrap_or_default(), serde_json::to_value(other).unwrap_or_default());
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else { return Vec::new() };
        a.iter()
            .filter_map(|(k, v)| {
                let w = b.get(k).cloned().unwrap_or_default();
                (*v != w).then(|| format!("{} {v} against {w}", k.replace('_', "-")))
            })
            .collect()
    }

    /// The settings in one line, for the reports: `seed 0, temperature 0.7, …`.
    pub fn line(&self) -> String {
        let v = serde_json::to_value(self).unwrap_or_default();
        let Some(o) = v.as_object() else { return String::new() };
        o.iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.chars().take(12).collect(),
                    v => v.to_string(),
                };
                format!("{} {v}", k.replace('_', "-"))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The SHA-256 of a file's content, hex ([`crate::pull::sha256_file`]); `None` when it cannot
/// be read. Computed once per file (path, size and modification time) in a process.
pub fn file_sha256(path: &Path) -> Option<String> {
    use std::sync::{Mutex, OnceLock};
    type Key = (PathBuf, u64, Option<std::time::SystemTime>);
    static DONE: OnceLock<Mutex<std::collections::HashMap<Key, String>>> = OnceLock::new();
    let meta = std::fs::metadata(path).ok()?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    let done = DONE.get_or_init(Default::default);
    if let Some(h) = done.lock().ok()?.get(&key) {
        return Some(h.clone());
    }
    let hex = crate::pull::sha256_file(path).ok()?;
    done.lock().ok()?.insert(key, hex.clone());
    Some(hex)
}

impl ModelEntry {
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
            earlier_runs: Vec::new(),
            servers: None,
            weights: q.weights,
            imatrix: q.imatrix,
            mix: q.mix,
            fallback: q.fallback,
            sha256: file_sha256(path),
            settings: None,
        }
    }

    /// Every run that played this model's episodes into the folder, oldest first.
    pub fn runs(&self) -> impl Iterator<Item = &RunStats> {
        self.earlier_runs.iter().chain(self.last_run.iter())
    }

    /// Every run of the model into the folder as one ([`RunStats::combine`]): what its episodes
    /// cost, however many invocations played them.
    pub fn all_runs(&self) -> Option<RunStats> {
        RunStats::combine(self.runs())
    }

    /// Takes the runs of `before` (the folder's entry of the same model) into this entry: a
    /// run that played nothing keeps `before`'s runs; one that played episodes comes after those
    /// of them that played episodes, and replaces its own earlier record of itself (same
    /// [`RunStats::started_ms`]).
    pub fn after(mut self, before: Option<&ModelEntry>) -> Self {
        let Some(before) = before else { return self };
        match &self.last_run {
            Some(run) if run.episodes > 0 => {
                let itself = |r: &RunStats| r.started_ms.is_some() && r.started_ms == run.started_ms;
                self.earlier_runs = before.runs().filter(|r| r.episodes > 0 && !itself(r)).cloned().collect();
            }
            _ => {
                self.last_run = before.last_run.clone().or(self.last_run);
                self.earlier_runs = before.earlier_runs.clone();
            }
        }
        self
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
            earlier_runs: Vec::new(),
            servers: Some(servers),
            weights: None,
            imatrix: None,
            mix: Vec::new(),
            fallback: None,
            sha256: None,
            settings: None,
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
    /// What the reports left out of the folder, and why (records of questions not selected now,
    /// duplicate records, lines that are not records, questions without a prediction).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pairs of files compared with each other (not only with the first or the reference): by
    /// default each file quantised with an importance matrix against the file of the same type
    /// without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairwise: Vec<super::compare::Comparison>,
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
    /// A model asked for is not in the folder.
    #[error("{} holds no model {name}: it holds {}", folder.display(), known.join(", "))]
    UnknownModel {
        /// The folder.
        folder: PathBuf,
        /// The name asked for.
        name: String,
        /// The models it holds.
        known: Vec<String>,
    },
    /// Two folders hold the same label played otherwise (another file, or other settings).
    #[error("{label} in {} and in {} differ: {}; merging would drop one's episodes. Merge folders made with the same model and settings, or pass --keep-both to keep both as separate entries", first.display(), second.display(), differences.join("; "))]
    MergeConflict {
        /// The label.
        label: String,
        /// The folder it first appears in.
        first: PathBuf,
        /// The folder that differs.
        second: PathBuf,
        /// What differs.
        differences: Vec<String>,
    },
    /// A folder holds the reference's episodes without their divergence measurement, beside a
    /// folder measured against it.
    #[error("{} was made with --reference {label}, {} holds episodes of {label} without it (their token sequences were not kept): the merged reference would cover other questions for EX than for divergence. Merge folders made alike", with.display(), without.display())]
    MergeReference {
        /// The reference's label.
        label: String,
        /// The folder with the measurement.
        with: PathBuf,
        /// The folder without it.
        without: PathBuf,
    },
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

    /// [`Self::records`], with what was left out said: lines that are not records, and records
    /// of a (model, question) that already has one.
    pub fn records_checked(&self) -> (Vec<Record>, Vec<String>) {
        let (records, unreadable) = super::jsonl::read_counted::<Record>(&self.episodes());
        let mut notes = Vec::new();
        if !unreadable.is_empty() {
            notes.push(format!(
                "{} line(s) of {} are not records (cut by a kill, or not written by sqale) and were left out: line {}",
                unreadable.len(),
                Self::EPISODES,
                unreadable.iter().take(5).map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
        let (records, duplicates) = super::settle_counted(records);
        if !duplicates.is_empty() {
            notes.push(format!(
                "{} duplicate record(s) of a model and question that already had one were left out (the first kept): {}",
                duplicates.len(),
                duplicates.iter().take(5).map(|(m, id)| format!("{m} {id}")).collect::<Vec<_>>().join(", ")
            ));
        }
        (records, notes)
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
/// once, first folder first, and the models of every `models.json`. A label played otherwise in
/// two folders (another file, other settings, other seeds) is refused, or with `keep_both`
/// kept as two entries (the later one's label marked with what differs: `model.gguf (seed 2)`);
/// a folder holding the reference's episodes without its divergence measurement, beside one
/// measured against it, is refused. Reports are not written: call [`write_reports`].
pub fn merge(inputs: &[impl AsRef<Path>], out: &Path, keep_both: bool) -> Result<ResultsDir, ResultsError> {
    for dir in inputs {
        let (a, b) = (std::fs::canonicalize(dir.as_ref()).ok(), std::fs::canonicalize(out).ok());
        if a.is_some() && a == b {
            return Err(ResultsError::MergeIntoInput(out.to_path_buf()));
        }
    }
    let mut folders: Vec<(PathBuf, Vec<Record>, Models)> = Vec::new();
    for dir in inputs {
        let dir = ResultsDir::new(dir.as_ref());
        dir.check()?;
        if !dir.episodes().is_file() {
            return Err(ResultsError::NotResults(dir.path.clone()));
        }
        folders.push((dir.path.clone(), dir.records(), dir.models()));
    }
    check_references(&folders)?;
    let measured = folders.iter().any(|(p, ..)| crate::divergence::run::DivergenceDir::new(p).info().is_some());
    // Each label's first folder: its entry and its records' seeds.
    let mut first: BTreeMap<String, (PathBuf, ModelEntry, BTreeMap<String, u32>)> = BTreeMap::new();
    let mut records = Vec::new();
    let mut models = Models::new();
    for (path, mut recs, mut entries) in folders {
        let labels: std::collections::BTreeSet<String> =
            entries.keys().cloned().chain(recs.iter().map(|r| r.model.clone())).collect();
        let mut renamed: BTreeMap<String, String> = BTreeMap::new();
        for label in labels {
            if renamed.contains_key(&label) {
                continue;
            }
            let entry = entries.get(&label).cloned();
            let seeds: BTreeMap<String, u32> = recs
                .iter()
                .filter(|r| r.model == label && r.episode.is_some())
                .map(|r| (r.id.clone(), r.seed))
                .collect();
            match first.get(&label) {
                None => {
                    let e = entry.unwrap_or_else(|| ModelEntry::remote(Vec::new(), RunStats::default()));
                    first.insert(label.clone(), (path.clone(), e, seeds));
                }
                Some((first_path, first_entry, first_seeds)) => {
                    let differences = conflicts(first_entry, entry.as_ref(), first_seeds, &seeds);
                    if differences.is_empty() {
                        continue;
                    }
                    if !keep_both || measured {
                        return Err(ResultsError::MergeConflict {
                            label,
                            first: first_path.clone(),
                            second: path.clone(),
                            differences,
                        });
                    }
                    let mark = entry
                        .as_ref()
                        .and_then(|e| e.settings.as_ref())
                        .zip(first_entry.settings.as_ref())
                        .map(|(mine, theirs)| {
                            mine.differences(theirs)
                                .iter()
                                .filter_map(|d| d.split_once(" against ").map(|(a, _)| a.to_string()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
                        .filter(|m| !m.is_empty())
                        .unwrap_or_else(|| {
                            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                        });
                    renamed.insert(label.clone(), format!("{label} ({mark})"));
                }
            }
        }
        for r in &mut recs {
            if let Some(new) = renamed.get(&r.model) {
                r.model = new.clone();
            }
        }
        for (old, new) in &renamed {
            if let Some(e) = entries.remove(old) {
                entries.insert(new.clone(), e);
            }
        }
        records.extend(recs);
        for (label, e) in entries {
            models.entry(label).or_insert(e);
        }
    }
    let out = ResultsDir::create(out)?;
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

/// What differs between a label's entry (and its episodes' seeds) in one folder and in
/// another: the file's content, the settings, the seed of a question both played.
fn conflicts(
    first: &ModelEntry,
    second: Option<&ModelEntry>,
    first_seeds: &BTreeMap<String, u32>,
    seeds: &BTreeMap<String, u32>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(second) = second {
        if let (Some(a), Some(b)) = (&first.sha256, &second.sha256) {
            if a != b {
                out.push(format!("another file (sha256 {} against {})", &a[..12.min(a.len())], &b[..12.min(b.len())]));
            }
        }
        if let (Some(a), Some(b)) = (&first.settings, &second.settings) {
            out.extend(a.differences(b));
        }
    }
    if out.is_empty() {
        if let Some((id, a, b)) =
            first_seeds.iter().find_map(|(id, a)| seeds.get(id).filter(|b| *b != a).map(|b| (id, a, b)))
        {
            out.push(format!("episode seeds differ (question {id}: {a} against {b}): the runs' --seed differ"));
        }
    }
    out
}

/// Refuses folders where one measured against a reference and another holds that reference's
/// episodes without the measurement.
fn check_references(folders: &[(PathBuf, Vec<Record>, Models)]) -> Result<(), ResultsError> {
    let infos: Vec<Option<crate::divergence::run::ReferenceInfo>> =
        folders.iter().map(|(p, ..)| crate::divergence::run::DivergenceDir::new(p).info()).collect();
    let Some((with, info)) = folders.iter().zip(&infos).find_map(|((p, ..), i)| i.as_ref().map(|i| (p, i))) else {
        return Ok(());
    };
    for ((path, records, _), i) in folders.iter().zip(&infos) {
        if i.is_none() && records.iter().any(|r| r.model == info.label) {
            return Err(ResultsError::MergeReference {
                label: info.label.clone(),
                with: with.clone(),
                without: path.clone(),
            });
        }
    }
    Ok(())
}

/// Scores again, against the gold SQL of `questions` as it is now, every record of `dir` whose
/// recorded gold SQL differs (the benchmark changed since it was played): its answer and episode
/// kept, its score new. Returns how many; `episodes.jsonl` is rewritten whole only when there
/// are some, its other lines (those that are not records too) as they were.
pub fn rescore_changed_gold(
    dir: &ResultsDir,
    questions: &[super::Question],
    gold: &mut super::GoldCache,
    limits: &crate::env::Limits,
) -> Result<usize, ResultsError> {
    let path = dir.episodes();
    let Ok(lines) = crate::regular_file::lines_at_most(&path, super::jsonl::MAX_LINE_BYTES) else { return Ok(0) };
    let by_id: std::collections::HashMap<&str, &super::Question> =
        questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let (mut text, mut changed) = (String::new(), 0usize);
    for line in lines {
        let line = line.map_err(|source| ResultsError::Io { path: path.clone(), source })?;
        let parsed: Option<Record> = serde_json::from_slice(&line).ok();
        let stale = parsed.as_ref().and_then(|r| {
            let q = by_id.get(r.id.as_str())?;
            (r.error.is_none() && r.gold_sql.as_deref().is_some_and(|g| g != q.gold_sql)).then_some((r, *q))
        });
        match stale {
            Some((r, q)) => {
                let new = super::rescore(r, q, gold.get(q), limits);
                text.push_str(
                    &serde_json::to_string(&new).map_err(|source| ResultsError::Json { path: path.clone(), source })?,
                );
                changed += 1;
            }
            None => text.push_str(&String::from_utf8_lossy(&line)),
        }
        text.push('\n');
    }
    if changed > 0 {
        dir.write(ResultsDir::EPISODES, text)?;
    }
    Ok(changed)
}

/// The divergence of every model from the reference, when `out` has a `divergence/` folder;
/// the execution-accuracy figure comes from the paired comparison against the reference.
fn divergence_summaries(
    out: &Path,
    paired: &[report::Paired],
    selected: Option<&std::collections::HashSet<&str>>,
) -> Vec<crate::divergence::report::DivergenceSummary> {
    let dir = crate::divergence::run::DivergenceDir::new(out);
    let Some(info) = dir.info() else { return Vec::new() };
    let mut records = dir.read_records();
    if let Some(ids) = selected {
        records.retain(|r| ids.contains(r.id.as_str()));
    }
    let ex = |model: &str| {
        let p = paired.iter().find(|p| p.b == model && p.a == info.label)?;
        crate::divergence::report::questions_needed(p.n, (p.diff_ci.1 - p.diff_ci.0) / 2.0, p.diff)
    };
    crate::divergence::report::summarise(&records, &info.label, &ex)
}

/// Model `b` of the results folder `dir` against its model `a` ([`super::compare`]); either
/// unknown is an error naming the models the folder holds.
pub fn compare(dir: &Path, a: &str, b: &str) -> Result<super::compare::Comparison, ResultsError> {
    let folder = ResultsDir::new(dir);
    folder.check()?;
    if !folder.episodes().is_file() {
        return Err(ResultsError::NotResults(dir.to_path_buf()));
    }
    let records = folder.records();
    let models = report::summarise(&records);
    let paired = report::paired(&records, &models);
    let divergence = divergence_summaries(dir, &paired, None);
    let mut known: Vec<String> = models.iter().map(|m| m.model.clone()).collect();
    known.extend(divergence.iter().map(|d| d.model.clone()).filter(|m| !models.iter().any(|x| x.model == *m)));
    for name in [a, b] {
        if !known.iter().any(|k| k == name) {
            return Err(ResultsError::UnknownModel { folder: dir.to_path_buf(), name: name.to_string(), known });
        }
    }
    Ok(super::compare::compare(&records, &models, &divergence, a, b, "asked for"))
}

/// Summarises `out`'s records into `summary.md`, `summary.csv`, `summary.json` and
/// `report.html`, and returns what was written.
pub fn write_reports(out: &Path) -> Result<Reports, ResultsError> {
    write_reports_for(out, None, Vec::new())
}

/// [`write_reports`] over the questions `selected` only (those of the run: `--limit`, `--shard`
/// and the benchmark as it is now), when given: records of other questions are left out and
/// said so. `notes` are added to what the reports say was left out.
pub fn write_reports_for(
    out: &Path,
    selected: Option<&[String]>,
    mut notes: Vec<String>,
) -> Result<Reports, ResultsError> {
    let dir = ResultsDir::new(out);
    let (mut records, read_notes) = dir.records_checked();
    notes.extend(read_notes);
    let selected: Option<std::collections::HashSet<&str>> = selected.map(|s| s.iter().map(String::as_str).collect());
    if let Some(ids) = &selected {
        let before = records.len();
        let mut others: Vec<String> =
            records.iter().filter(|r| !ids.contains(r.id.as_str())).map(|r| r.id.clone()).collect();
        others.sort();
        others.dedup();
        records.retain(|r| ids.contains(r.id.as_str()));
        if records.len() < before {
            notes.push(format!(
                "{} record(s) of {} question(s) not selected now (--limit, --shard, or not in the benchmark as it is now) were left out: {}",
                before - records.len(),
                others.len(),
                others.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let models = report::summarise(&records);
    let paired = report::paired(&records, &models);
    let divergence = divergence_summaries(out, &paired, selected.as_ref());
    let runs = dir.models();
    let pairwise = super::compare::default_pairs(&records, &models, &runs, &divergence);
    let summary = SummaryFile { models, paired, runs, divergence, notes, pairwise };
    let markdown = format!(
        "{}\n{}{}{}{}",
        report::markdown(&summary.models, &summary.paired),
        report::runs_markdown(&summary.runs, &summary.models),
        super::compare::markdown(&summary.pairwise),
        crate::divergence::report::markdown(&summary.divergence),
        report::notes_markdown(&summary.notes)
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

    /// A run resumed after a kill keeps the killed run's stats (written as its episodes finished),
    /// replaces its own earlier record of itself, and a run that played nothing keeps them all.
    #[test]
    fn runs_of_a_resumed_model_add_up() {
        let run = |started, episodes, seconds, peak, others| RunStats {
            parallel: 1,
            episodes,
            seconds,
            generated_tokens: 10 * episodes,
            peak_rss_bytes: Some(peak),
            load: Some(super::super::load::Load { cpus: 2, others, ..Default::default() }),
            started_ms: Some(started),
        };
        let entry =
            |r: Option<RunStats>| ModelEntry { last_run: r, ..ModelEntry::remote(Vec::new(), RunStats::default()) };
        // The killed run, as its last episode left it; then the resumed run, twice (so far, then done).
        let killed = entry(Some(run(1, 2, 10.0, 100, 0.0)));
        let so_far = entry(Some(run(2, 1, 5.0, 300, 0.6))).after(Some(&killed));
        let done = entry(Some(run(2, 3, 30.0, 200, 0.6))).after(Some(&so_far));
        assert_eq!(done.earlier_runs, vec![run(1, 2, 10.0, 100, 0.0)]);
        let all = done.all_runs().unwrap();
        assert_eq!((all.episodes, all.seconds, all.generated_tokens, all.peak_rss_bytes), (5, 40.0, 50, Some(200)));
        assert!((all.load.unwrap().others - 0.45).abs() < 1e-9, "weighed by seconds: {all:?}");
        assert_eq!(all.episodes_per_minute(), Some(7.5));
        // Nothing played: both runs stay.
        let idle = entry(Some(run(3, 0, 1.0, 50, 0.0))).after(Some(&done));
        assert_eq!(
            (idle.earlier_runs.clone(), idle.last_run.clone()),
            (done.earlier_runs.clone(), done.last_run.clone())
        );
        // A run that kept nothing before it has no earlier runs.
        assert!(entry(Some(run(4, 1, 1.0, 1, 0.0))).after(None).earlier_runs.is_empty());
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
        let err = merge(&[dir.path()], &dir.path().join("out"), false).unwrap_err();
        assert!(matches!(err, ResultsError::NotResults(_)), "{err}");
    }
}
