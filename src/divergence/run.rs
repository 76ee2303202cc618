//! A divergence run in a results folder: `divergence/` beside `episodes.jsonl`, resumed like
//! `eval` (what is on disk is not computed again).
//!
//! - `reference.json`: which reference the folder measures against (a second reference is
//!   refused: its numbers would not be comparable);
//! - `transcripts.jsonl`: one [`Transcript`] per reference episode (the last line of an id wins);
//! - `reference/<hash>.topk`: the reference's top-k per episode ([`super::store`]);
//! - `records.jsonl`: one [`DivergenceRecord`] per (model, question).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::store::RefEpisode;
use super::{measure_episode, DivergenceError, DivergenceRecord, Sequence, Transcript};
use crate::engine::{Engine, Model};
use crate::eval::jsonl;

/// What identifies the reference a folder measures against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceInfo {
    /// Its label in the reports.
    pub label: String,
    /// Bytes of its weights (llama.cpp's model size: the tensors only, so less than the file's
    /// size in `models.json` by the header and vocabulary). Part of the identity a folder is
    /// checked against.
    pub bytes: u64,
    /// Its architecture (`general.architecture`).
    pub architecture: String,
    /// Its vocabulary's fingerprint ([`Model::vocab_fingerprint`]).
    pub vocab: String,
    /// Top entries kept per token.
    pub top_k: usize,
    /// Served by inference servers (its architecture and vocabulary are checked per episode,
    /// against the token ids the server held, instead).
    #[serde(default)]
    pub remote: bool,
}

impl ReferenceInfo {
    /// The identity of `model`, labelled `label`, keeping `top_k` entries per token.
    pub fn of(model: &Model, label: &str, top_k: usize) -> Self {
        ReferenceInfo {
            label: label.to_string(),
            bytes: model.size(),
            architecture: model.meta("general.architecture").unwrap_or_default(),
            vocab: model.vocab_fingerprint(),
            top_k,
            remote: false,
        }
    }

    /// The identity of the model a server pool serves, labelled `label`.
    pub fn remote(pool: &crate::remote::Pool, label: &str, top_k: usize) -> Self {
        ReferenceInfo {
            label: label.to_string(),
            bytes: 0,
            architecture: String::new(),
            vocab: format!("served: {}", pool.model()),
            top_k,
            remote: true,
        }
    }

    /// Whether `model` (labelled `label`) can be measured against this reference: the same
    /// vocabulary, token for token, and the same architecture.
    pub fn check(&self, model: &Model, label: &str) -> Result<(), DivergenceError> {
        let incompatible = |why: String| DivergenceError::Incompatible {
            model: label.to_string(),
            reference: self.label.clone(),
            why,
        };
        if self.remote {
            return Ok(());
        }
        let arch = model.meta("general.architecture").unwrap_or_default();
        if arch != self.architecture {
            return Err(incompatible(format!(
                "its architecture is {arch:?} and the reference's {:?}; compare quantisations of one model",
                self.architecture
            )));
        }
        if model.vocab_fingerprint() != self.vocab {
            return Err(incompatible(format!(
                "its vocabulary ({} tokens) is not the reference's, token for token; distributions over different vocabularies cannot be compared",
                model.n_vocab()
            )));
        }
        Ok(())
    }
}

/// The `divergence/` folder of a results folder.
#[derive(Debug, Clone)]
pub struct DivergenceDir {
    root: PathBuf,
}

/// The largest `reference.json` read (a few hundred bytes).
const MAX_INFO_BYTES: u64 = 1 << 20;

impl DivergenceDir {
    /// The folder inside results folder `out` (not created).
    pub fn new(out: &Path) -> Self {
        DivergenceDir { root: out.join("divergence") }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The transcripts file.
    pub fn transcripts(&self) -> PathBuf {
        self.root.join("transcripts.jsonl")
    }

    /// The records file.
    pub fn records_file(&self) -> PathBuf {
        self.root.join("records.jsonl")
    }

    /// The reference file of question `id` (named by a hash: ids are any text).
    pub fn reference_file(&self, id: &str) -> PathBuf {
        self.root.join("reference").join(format!("{}.topk", &crate::hash::sha256_hex(id)[..24]))
    }

    fn info_file(&self) -> PathBuf {
        self.root.join("reference.json")
    }

    /// Refuses the folder when a file it reads is there but is not a regular file (a link to a
    /// device, a FIFO): the error names it.
    pub fn check(&self) -> std::io::Result<()> {
        [self.info_file(), self.transcripts(), self.records_file()]
            .iter()
            .try_for_each(|f| crate::regular_file::check_if_present(f))
    }

    fn read_info(&self) -> std::io::Result<Vec<u8>> {
        crate::regular_file::read_at_most(&self.info_file(), MAX_INFO_BYTES)
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DivergenceError + '_ {
        move |source| DivergenceError::Store(super::store::StoreError::Io { path: path.to_path_buf(), source })
    }

    /// Creates the folder and records `info` as its reference; refuses another reference.
    pub fn open(out: &Path, info: &ReferenceInfo) -> Result<Self, DivergenceError> {
        let dir = DivergenceDir::new(out);
        let file = dir.info_file();
        std::fs::create_dir_all(dir.root.join("reference")).map_err(DivergenceDir::io(&dir.root))?;
        match dir.read_info() {
            Ok(text) => {
                let theirs: Option<ReferenceInfo> = serde_json::from_slice(&text).ok();
                if theirs.as_ref() != Some(info) {
                    return Err(DivergenceError::OtherReference {
                        folder: out.to_path_buf(),
                        theirs: theirs.map_or_else(|| "an unreadable reference.json".into(), |t| describe(&t)),
                        ours: describe(info),
                    });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let json = serde_json::to_string_pretty(info).unwrap_or_default();
                crate::atomic::write(&file, json).map_err(DivergenceDir::io(&file))?;
            }
            Err(e) => return Err(DivergenceDir::io(&file)(e)),
        }
        Ok(dir)
    }

    /// The reference the folder measures against, if it has one.
    pub fn info(&self) -> Option<ReferenceInfo> {
        serde_json::from_slice(&self.read_info().ok()?).ok()
    }

    /// Every transcript, by question id (the last line of an id wins: a replayed episode).
    pub fn read_transcripts(&self) -> BTreeMap<String, Transcript> {
        jsonl::read::<Transcript>(&self.transcripts()).map(|t| (t.id.clone(), t)).collect()
    }

    /// Appends `t` to the transcripts.
    pub fn append_transcript(&self, t: &Transcript) -> Result<(), DivergenceError> {
        append_line(&self.transcripts(), t)
    }

    /// Every record, each (model, question) once (the first).
    pub fn read_records(&self) -> Vec<DivergenceRecord> {
        let mut seen = HashSet::new();
        jsonl::read::<DivergenceRecord>(&self.records_file())
            .filter(|r| seen.insert((r.model.clone(), r.id.clone())))
            .collect()
    }

    /// Appends `r` to the records.
    pub fn append_record(&self, r: &DivergenceRecord) -> Result<(), DivergenceError> {
        append_line(&self.records_file(), r)
    }
}

/// Joins the `divergence/` folders of results folders `inputs` (shards of one run) into `out`'s:
/// transcripts, reference files and records, each (model, question) once, first folder first.
/// Folders measured against different references are refused. Nothing is written when no input
/// has one.
pub fn merge(inputs: &[&Path], out: &Path) -> Result<(), DivergenceError> {
    let measured: Vec<(DivergenceDir, ReferenceInfo)> =
        inputs.iter().map(|p| DivergenceDir::new(p)).filter_map(|d| d.info().map(|i| (d, i))).collect();
    let Some((_, info)) = measured.first() else { return Ok(()) };
    let info = info.clone();
    if let Some((d, theirs)) = measured.iter().find(|(_, i)| *i != info) {
        return Err(DivergenceError::OtherReference {
            folder: d.root.clone(),
            theirs: describe(theirs),
            ours: describe(&info),
        });
    }
    let dirs: Vec<DivergenceDir> = measured.into_iter().map(|(d, _)| d).collect();
    let target = DivergenceDir::open(out, &info)?;
    let (mut transcripts, mut records) = (BTreeMap::new(), Vec::new());
    let mut seen = HashSet::new();
    for d in &dirs {
        for (id, t) in d.read_transcripts() {
            if let std::collections::btree_map::Entry::Vacant(e) = transcripts.entry(id) {
                let from = d.reference_file(&t.id);
                if from.is_file() {
                    let to = target.reference_file(&t.id);
                    let bytes = crate::regular_file::read_at_most(&from, super::store::MAX_FILE_BYTES)
                        .map_err(DivergenceDir::io(&from))?;
                    crate::atomic::write(&to, bytes).map_err(DivergenceDir::io(&to))?;
                }
                e.insert(t);
            }
        }
        records.extend(d.read_records().into_iter().filter(|r| seen.insert((r.model.clone(), r.id.clone()))));
    }
    write_lines(&target.transcripts(), transcripts.values())?;
    write_lines(&target.records_file(), &records)
}

/// Replaces the JSON Lines file `path` with `values`, whole.
fn write_lines<'a, T: Serialize + 'a>(
    path: &Path,
    values: impl IntoIterator<Item = &'a T>,
) -> Result<(), DivergenceError> {
    let text = jsonl::lines(values).map_err(|e| DivergenceDir::io(path)(std::io::Error::other(e)))?;
    crate::atomic::write(path, text).map_err(DivergenceDir::io(path))
}

fn describe(info: &ReferenceInfo) -> String {
    format!("{} (top {} per token, {} bytes of weights)", info.label, info.top_k, info.bytes)
}

fn append_line<T: Serialize>(path: &Path, value: &T) -> Result<(), DivergenceError> {
    jsonl::append(path, value).map_err(DivergenceDir::io(path))
}

/// Why the reference's episode `t` is not measured, if it is not.
fn unmeasured(t: &Transcript) -> Option<String> {
    (t.ended_by == Some(crate::agent::EndedBy::ContextFull)).then(|| {
        "the reference's episode ended by context_full: its last turn was cut where the context ran out, so it is not measured".to_string()
    })
}

/// The transcripts of `ids` whose reference file is still to be computed (episodes that are
/// not measured have none).
fn references_to_compute(dir: &DivergenceDir, ids: &[&str]) -> Vec<Transcript> {
    let mut transcripts = dir.read_transcripts();
    ids.iter()
        .filter_map(|id| transcripts.remove(*id))
        .filter(|t| unmeasured(t).is_none() && !dir.reference_file(&t.id).is_file())
        .collect()
}

/// The reference's pass: `compute` its distributions (its own teacher-forced pass,
/// [`super::reference_episode`], or a server's, [`super::reference_episode_remote`]) for every
/// episode of `ids` that has a transcript and no reference file yet, each written as it is done.
/// `progress(done, total)` after each; returns how many were computed.
pub fn reference_pass(
    dir: &DivergenceDir,
    ids: &[&str],
    compute: &mut dyn FnMut(&Transcript) -> Result<RefEpisode, DivergenceError>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<usize, DivergenceError> {
    let todo = references_to_compute(dir, ids);
    for (n, t) in todo.iter().enumerate() {
        compute(t)?.write(&dir.reference_file(&t.id))?;
        progress(n + 1, todo.len());
    }
    Ok(todo.len())
}

/// One model's pass (labelled `label`): a record for every episode of `ids` with a transcript
/// and no record of this model yet, appended as each finishes; episodes that can't be measured
/// are recorded as skipped, with why. Returns how many records were written.
pub fn model_pass(
    engine: &mut Engine<'_>,
    label: &str,
    dir: &DivergenceDir,
    ids: &[&str],
    progress: &mut dyn FnMut(usize, usize, &DivergenceRecord),
) -> Result<usize, DivergenceError> {
    let transcripts = dir.read_transcripts();
    let done: HashSet<String> = dir.read_records().into_iter().filter(|r| r.model == label).map(|r| r.id).collect();
    let todo: Vec<&Transcript> =
        ids.iter().filter_map(|id| transcripts.get(*id)).filter(|t| !done.contains(&t.id)).collect();
    let model = engine.model();
    let trained = model.llama().n_ctx_train() as usize;
    let capacity = crate::generate::Generator::context_size(engine);
    for (n, t) in todo.iter().enumerate() {
        let record = if let Some(why) = unmeasured(t) {
            DivergenceRecord::skipped(label, &t.id, why)
        } else {
            let seq = Sequence::of(model, t)?;
            let len = seq.tokens.len();
            if trained > 0 && len > trained {
                DivergenceRecord::skipped(label, &t.id, format!(
                    "the episode holds {len} tokens and the model was trained for a context of {trained}: it cannot hold the reference's context"
                ))
            } else if len > capacity {
                DivergenceRecord::skipped(
                    label,
                    &t.id,
                    format!(
                        "the episode holds {len} tokens and the context is {capacity}: a larger context measures it"
                    ),
                )
            } else {
                let reference = RefEpisode::read(&dir.reference_file(&t.id))?;
                measure_episode(engine, label, &t.id, &seq, &reference)?
            }
        };
        dir.append_record(&record)?;
        progress(n + 1, todo.len(), &record);
    }
    Ok(todo.len())
}
