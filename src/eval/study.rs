//! The evaluation study `sqale eval` runs: every model of one [`RunSpec`] over a benchmark's
//! questions, into one results folder ([`super::results`]).
//!
//! In order: the databases are cut to the schema condition ([`super::subset`]); with a
//! reference, its episodes are played and their token sequences recorded, its distributions kept
//! along them, and it is measured against itself (0 by construction: the check that the measure
//! is sound; [`crate::divergence`]); then each model file in turn is checked against the
//! reference before anything of it runs, plays its episodes (unless only its divergence is
//! wanted) and is measured; then the model on inference servers plays. The reports are written
//! last. Everything resumes: what the folder holds is not done again.
//!
//! The study reports what it does through [`StudyEvent`]s (the command line shows them as
//! progress bars) and returns the reports; it prints nothing.

mod runner;

use std::path::PathBuf;
use std::time::Instant;

use super::results::{self, Reports, ResultsDir, ResultsError, RunStats};
use super::subset::{self, SchemaCondition, SubsetError};
use super::{EvalError, GoldCache, Question, Record};
use crate::divergence::DivergenceError;
use crate::engine::{EngineError, EngineOptions, ModelOptions};
use crate::env::Limits;
use crate::protocol::Calls;
use crate::remote::{Pool, PoolError, PoolOptions};
use runner::Runner;

/// Inference servers of one model, probed when the study is made ([`Study::new`]).
#[derive(Debug, Clone)]
pub struct Servers {
    /// Their URLs.
    pub urls: Vec<String>,
    /// How to reach them.
    pub options: PoolOptions,
}

/// The reference every model's divergence is measured against: a full-precision GGUF (bf16, f16,
/// f32), or a model on inference servers (vLLM, for its `prompt_logprobs`).
#[derive(Debug, Clone)]
pub enum Reference {
    /// A GGUF file run in-process.
    File(PathBuf),
    /// Inference servers.
    Servers(Servers),
}

/// Everything one study runs.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// GGUF files evaluated in-process, in order.
    pub models: Vec<PathBuf>,
    /// How they (and a reference file) are loaded.
    pub model_options: ModelOptions,
    /// The engine options of their episodes (the context is cut to one episode per sequence,
    /// [`super::sequence_context`]); the sampling values apply on servers too.
    pub engine: EngineOptions,
    /// Episodes at once: sequences of a local model's batched engine, requests in flight on
    /// servers (results do not depend on it).
    pub parallel: u32,
    /// A model on inference servers, evaluated after the local ones.
    pub servers: Option<Servers>,
    /// The reference of a divergence measurement.
    pub reference: Option<Reference>,
    /// Reference log-probabilities kept per generated token.
    pub kld_top_k: usize,
    /// Measure the models' divergence only, without playing their own episodes.
    pub kld_only: bool,
    /// The run's seed (each episode's derives from it and the question id).
    pub seed: u32,
    /// Tokens an episode may hold, its prompt included.
    pub max_episode_tokens: usize,
    /// How much of each database an episode sees.
    pub schema: SchemaCondition,
    /// The ways of calling tools every model plays under, each an entry of its own in the
    /// reports (`model.gguf +constrained`), paired with the others; the reference plays under
    /// the first.
    pub calls: Vec<Calls>,
    /// Characters of thought a turn under `constrained` calls may hold.
    pub thought_chars: usize,
    /// Each local model's questions played as votes of this many episodes: the vote is an entry
    /// of its own (`model.gguf +vote5`), paired with its first episode alone (the plain entry).
    pub vote: Option<usize>,
    /// Bounds on tool calls and gold queries.
    pub limits: Limits,
    /// The results folder (resumed if it exists).
    pub out: PathBuf,
}

impl RunSpec {
    /// Whether the spec asks for something that can be done.
    pub fn check(&self) -> Result<(), StudyError> {
        if self.models.is_empty() && self.servers.is_none() && self.reference.is_none() {
            return Err(StudyError::NothingToRun);
        }
        if self.kld_only && self.reference.is_none() {
            return Err(StudyError::NoReference);
        }
        if matches!(self.reference, Some(Reference::Servers(_))) && self.models.is_empty() {
            return Err(StudyError::NoLocalModels);
        }
        if self.calls.is_empty() {
            return Err(StudyError::NoCalls);
        }
        let mut labels: Vec<(String, &PathBuf)> = Vec::new();
        for path in self.models.iter().chain(match &self.reference {
            Some(Reference::File(p)) => Some(p),
            _ => None,
        }) {
            let label = results::model_label(path, self.schema);
            if let Some((_, first)) = labels.iter().find(|(l, p)| *l == label && *p != path) {
                return Err(StudyError::SameLabel { label, first: (*first).clone(), second: path.clone() });
            }
            labels.push((label, path));
        }
        if let Some(k) = self.vote {
            if self.servers.is_some() {
                return Err(StudyError::VoteOnServers);
            }
            let ctx = super::sequence_context(self.engine.ctx, self.max_episode_tokens);
            crate::vote::check_size(k * self.parallel as usize, ctx)?;
        }
        Ok(())
    }
}

/// The counts of one model's run as its records come in.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Of [`Self::correct`] and [`Self::scored`], those of episodes already in the results
    /// folder when the run started (a resumed run's EX counts them).
    pub resumed: usize,
    /// The machine's load when the run started.
    load_start: Option<super::load::Sample>,
    /// Scored answers that were correct.
    pub correct: usize,
    /// Answers scored (their gold query ran, their episode did not fail on a server).
    pub scored: usize,
    /// Episodes that failed on a server (recorded with their error, not scored).
    pub failed: usize,
    /// The run's throughput so far.
    pub run: RunStats,
}

/// Milliseconds since the Unix epoch (0 on a clock set before it).
fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Tally {
    fn new(parallel: u32) -> Self {
        Tally {
            run: RunStats { parallel, started_ms: Some(unix_ms()), ..RunStats::default() },
            load_start: super::load::Sample::now(),
            ..Tally::default()
        }
    }

    /// Counts the records already in the folder into EX (not into the run's throughput).
    fn resume(&mut self, records: &[&Record]) {
        for r in records.iter().filter(|r| r.error.is_none() && r.gold_ok) {
            self.scored += 1;
            self.correct += r.correct as usize;
            self.resumed += 1;
        }
    }

    /// Counts a finished record.
    pub fn count(&mut self, r: &Record) {
        if r.error.is_some() {
            self.failed += 1;
        } else if r.gold_ok {
            self.scored += 1;
            self.correct += r.correct as usize;
        }
        self.run.count(r);
    }

    /// The run's stats, timed from `started`, with the process's peak memory.
    fn finish(&self, started: Instant) -> RunStats {
        let load = self.load_start.zip(super::load::Sample::now()).map(|(a, b)| super::load::Load::between(&a, &b));
        RunStats {
            seconds: started.elapsed().as_secs_f64(),
            peak_rss_bytes: crate::memory::peak_bytes(),
            load,
            ..self.run.clone()
        }
    }
}

/// A teacher-forced pass of a divergence measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// The reference's distributions, kept along its episodes.
    Reference,
    /// A model's measure against them.
    Divergence,
}

/// What a study reports as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum StudyEvent<'a> {
    /// Inference servers are probed (before any work, so that a wrong URL or key fails at once).
    Probing {
        /// Their URLs.
        urls: &'a [String],
    },
    /// Databases are being cut to the schema condition: `done` of `total` questions.
    Cutting {
        /// The condition.
        condition: SchemaCondition,
        /// Questions done.
        done: usize,
        /// Questions in all.
        total: usize,
    },
    /// A model's episodes start.
    Playing {
        /// The model's label.
        label: &'a str,
        /// Questions of the benchmark.
        total: usize,
        /// Of which already in the results folder.
        done: usize,
    },
    /// One of its records is written.
    Played {
        /// The model's label.
        label: &'a str,
        /// The record.
        record: &'a Record,
        /// The run so far.
        tally: &'a Tally,
    },
    /// An episode's prompt took more than half of its token budget (said once per model): the
    /// budget counts the prompt, so little is left for the model's turns and tool results.
    PromptLong {
        /// The model's label.
        label: &'a str,
        /// Tokens of the prompt.
        prompt_tokens: usize,
        /// The episode's token budget.
        budget: usize,
    },
    /// Records of the results folder whose gold SQL changed in the benchmark were scored again.
    Rescored {
        /// How many.
        count: usize,
    },
    /// Its episodes are done.
    PlayedAll {
        /// The model's label.
        label: &'a str,
        /// The run.
        tally: &'a Tally,
        /// Played on inference servers (failed episodes are played again by a resumed run).
        served: bool,
        /// The reference of a divergence measurement (its failed episodes are not measured).
        reference: bool,
    },
    /// A teacher-forced pass goes on: `done` of `total` episodes.
    Forcing {
        /// The model forced (the reference's label for [`Pass::Reference`]).
        label: &'a str,
        /// Which pass.
        pass: Pass,
        /// Episodes done.
        done: usize,
        /// Episodes in all.
        total: usize,
    },
    /// The pass is over.
    Forced {
        /// The model forced.
        label: &'a str,
        /// Which pass.
        pass: Pass,
        /// Episodes that could not be measured (why: the divergence summary).
        skipped: usize,
    },
}

/// Why a study stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StudyError {
    /// No model file, reference or server.
    #[error("nothing to evaluate: no model file, reference or inference server")]
    NothingToRun,
    /// Divergence only, without a reference.
    #[error("measuring divergence only needs a reference to measure against")]
    NoReference,
    /// A reference on servers, and no local model to measure against it.
    #[error("a reference on inference servers measures local model files against it, and there are none")]
    NoLocalModels,
    /// No way of calling tools to play under.
    #[error("no way of calling tools to play under: give at least one (free, constrained, triggered)")]
    NoCalls,
    /// Two model files would share a label in the reports.
    #[error("{} and {} share the name {label}, which the reports label models by: rename or link one under another name", first.display(), second.display())]
    SameLabel {
        /// The label.
        label: String,
        /// The first file.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// The results folder holds a model of this label that is another file.
    #[error("{} holds episodes of {label} from another file (sha256 {theirs}, this one {ours}): write to another results folder (-o), or rename the file", folder.display())]
    OtherModel {
        /// The results folder.
        folder: PathBuf,
        /// The label.
        label: String,
        /// The folder's file's hash (its first 12 digits).
        theirs: String,
        /// This file's.
        ours: String,
    },
    /// The results folder holds episodes of this label played with other settings.
    #[error("{} holds episodes of {label} played with other settings ({}, the folder's first): resuming would mix them. Run with the folder's settings, or write to another results folder (-o)", folder.display(), differences.join("; "))]
    OtherSettings {
        /// The results folder.
        folder: PathBuf,
        /// The label.
        label: String,
        /// What differs.
        differences: Vec<String>,
    },
    /// A vote asked of a model on inference servers.
    #[error("a vote batches its episodes in one in-process context; models on inference servers are not voted")]
    VoteOnServers,
    /// A vote that can't run.
    #[error(transparent)]
    Vote(#[from] crate::vote::VoteError),
    /// The results folder holds episodes of the reference played without recording their token
    /// sequences (playing them again would give each question two).
    #[error("{} already holds {count} episode(s) of {label} played without a reference (e.g. {example}), whose token sequences were not kept: write to another results folder", folder.display())]
    Unrecorded {
        /// The results folder.
        folder: PathBuf,
        /// The reference's label.
        label: String,
        /// How many episodes.
        count: usize,
        /// One of their question ids.
        example: String,
    },
    /// Servers could not be reached.
    #[error(transparent)]
    Probe(#[from] PoolError),
    /// A model could not be loaded or an engine made.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Episodes stopped.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The results folder could not be written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The databases could not be cut.
    #[error(transparent)]
    Subset(#[from] SubsetError),
    /// A divergence measurement stopped.
    #[error(transparent)]
    Divergence(#[from] DivergenceError),
}

/// Where the reference's episodes are played.
enum ReferenceSource {
    File(PathBuf),
    Served(Pool),
}

/// A checked [`RunSpec`] with its servers reached: ready to run.
pub struct Study {
    spec: RunSpec,
    reference: Option<ReferenceSource>,
    served: Option<Pool>,
}

impl Study {
    /// Checks `spec` and probes its servers (the reference's first), before any work.
    pub fn new(spec: RunSpec, on_event: &mut dyn FnMut(StudyEvent<'_>)) -> Result<Study, StudyError> {
        spec.check()?;
        let mut probe = |s: &Servers| {
            on_event(StudyEvent::Probing { urls: &s.urls });
            Pool::connect(&s.urls, s.options.clone())
        };
        let reference = match &spec.reference {
            None => None,
            Some(Reference::File(path)) => Some(ReferenceSource::File(path.clone())),
            Some(Reference::Servers(s)) => Some(ReferenceSource::Served(probe(s)?)),
        };
        let served = spec.servers.as_ref().map(probe).transpose()?;
        Ok(Study { spec, reference, served })
    }

    /// Runs the study over `questions` (see the module's documentation) and writes the reports.
    pub fn run(
        self,
        mut questions: Vec<Question>,
        on_event: &mut dyn FnMut(StudyEvent<'_>),
    ) -> Result<Reports, StudyError> {
        let spec = &self.spec;
        let out = ResultsDir::create(&spec.out)?;
        let mut gold = GoldCache::new(spec.limits.clone());
        if spec.schema != SchemaCondition::Full {
            let condition = spec.schema;
            subset::apply(&mut questions, condition, spec.seed, &mut gold, &out.databases(), &mut |done, total| {
                on_event(StudyEvent::Cutting { condition, done, total })
            })?;
        }
        let rescored = results::rescore_changed_gold(&out, &questions, &mut gold, &spec.limits)?;
        if rescored > 0 {
            on_event(StudyEvent::Rescored { count: rescored });
        }
        let mut runner = Runner::new(spec, &questions, &out, gold, on_event);
        let reference = match self.reference {
            Some(ReferenceSource::File(path)) => Some(runner.play_reference_file(&path)?),
            Some(ReferenceSource::Served(pool)) => Some(runner.play_served_reference(pool)?),
            None => None,
        };
        for path in &spec.models {
            runner.evaluate(path, reference.as_ref())?;
        }
        if let Some(pool) = &self.served {
            for &calls in &spec.calls {
                runner.play_served(
                    pool,
                    &results::with_calls(results::pool_label(pool, spec.schema), calls),
                    calls,
                    None,
                )?;
            }
        }
        let selected: Vec<String> = questions.iter().map(|q| q.id.clone()).collect();
        Ok(results::write_reports_for(out.path(), Some(&selected), Vec::new())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RunSpec {
        RunSpec {
            models: Vec::new(),
            model_options: ModelOptions::default(),
            engine: EngineOptions::default(),
            parallel: 1,
            servers: None,
            reference: None,
            kld_top_k: 32,
            kld_only: false,
            seed: 0,
            max_episode_tokens: 4096,
            schema: SchemaCondition::Full,
            calls: vec![Calls::Free],
            thought_chars: 1000,
            vote: None,
            limits: Limits::default(),
            out: "out".into(),
        }
    }

    #[test]
    fn a_spec_asks_for_something_that_can_be_done() {
        assert!(matches!(spec().check(), Err(StudyError::NothingToRun)));
        let one = RunSpec { models: vec!["m.gguf".into()], ..spec() };
        assert!(one.check().is_ok());
        assert!(matches!(RunSpec { kld_only: true, ..one.clone() }.check(), Err(StudyError::NoReference)));
        let file = Some(Reference::File("ref.gguf".into()));
        assert!(RunSpec { kld_only: true, reference: file.clone(), ..one.clone() }.check().is_ok());
        assert!(RunSpec { reference: file, ..spec() }.check().is_ok(), "the reference alone plays");
        let served = Servers { urls: vec!["http://gpu:8000".into()], options: PoolOptions::default() };
        let remote = RunSpec { reference: Some(Reference::Servers(served)), ..spec() };
        assert!(matches!(remote.check(), Err(StudyError::NoLocalModels)));
        assert!(RunSpec { models: one.models.clone(), ..remote }.check().is_ok());
        assert!(matches!(RunSpec { calls: Vec::new(), ..one.clone() }.check(), Err(StudyError::NoCalls)));
        let twins = RunSpec { models: vec!["a/m.gguf".into(), "b/m.gguf".into()], ..spec() };
        let e = twins.check().unwrap_err().to_string();
        assert!(e.contains("a/m.gguf and b/m.gguf share the name m.gguf"), "{e}");
        assert!(RunSpec { models: vec!["a/m.gguf".into(), "a/m.gguf".into()], ..spec() }.check().is_ok());
        assert!(RunSpec { vote: Some(5), ..one.clone() }.check().is_ok());
        let zero = RunSpec { vote: Some(0), ..one.clone() }.check().unwrap_err().to_string();
        assert!(zero.contains("at least one episode"), "{zero}");
        let servers = Some(Servers { urls: vec!["http://gpu:8000".into()], options: PoolOptions::default() });
        assert!(matches!(RunSpec { vote: Some(5), servers, ..one }.check(), Err(StudyError::VoteOnServers)));
    }
}
