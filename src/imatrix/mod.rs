//! Importance matrices from the agent's own episodes (`sqale imatrix`): the activation
//! statistics llama.cpp's quantiser weighs rounding errors by, collected while teacher-forcing
//! recorded agent episodes (the divergence transcripts), episodes played from a benchmark
//! first, or plain text, and written in llama.cpp's GGUF imatrix form
//! ([`sqale_convert::imatrix`]), which `llama-quantize --imatrix` reads.
//!
//! Every episode starts with the same system turn. Counted in every episode it would outweigh
//! the rest, so a prefix that repeats the previous episode's is decoded (the rest depends on it)
//! but counted once. Text is cut into chunks of [`ImatrixSetup::chunk`] tokens, each decoded from
//! an empty context and starting with the beginning-of-sequence token, as `llama-imatrix` does.

mod collect;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sqale_convert::imatrix::{Entry, Imatrix};

use crate::agent::Settings;
use crate::divergence::run::DivergenceDir;
use crate::divergence::{Sequence, Transcript};
use crate::engine::{BatchedEngine, EngineOptions, Model};
use crate::eval::{self, GoldCache, Plan, Question, Sink};

/// Why an importance matrix could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImatrixError {
    /// The model could not be loaded, or no context made for it.
    #[error("{0}")]
    Model(String),
    /// The collection stopped.
    #[error("collecting activations failed: {0}")]
    Collect(String),
    /// A calibration source could not be read.
    #[error("{path}: {why}")]
    Source {
        /// The source.
        path: PathBuf,
        /// What is wrong, and what to do.
        why: String,
    },
    /// A path given for recorded episodes holds none.
    #[error("{}: no recorded episodes here: give the results folder of an evaluation against a reference model (it holds divergence/transcripts.jsonl), or that file", .0.display())]
    NoEpisodes(PathBuf),
    /// No calibration token was counted.
    #[error("the calibration sources hold no tokens: give recorded episodes, a benchmark to play, or a text file")]
    Empty,
    /// Playing the benchmark failed.
    #[error(transparent)]
    Eval(#[from] eval::EvalError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// A recorded episode does not fit the model.
    #[error(transparent)]
    Divergence(#[from] crate::divergence::DivergenceError),
}

/// Where calibration tokens come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Recorded episodes: the results folder of an evaluation against a reference model (its
    /// `divergence/transcripts.jsonl`), that folder itself, or a transcripts file.
    Episodes(PathBuf),
    /// The questions of a benchmark, played by the model first (episodes sampled as `eval`
    /// samples them), then teacher-forced.
    Bench {
        /// The benchmark as named (a manifest, a BIRD folder, a hub id).
        name: String,
        /// Its questions.
        questions: Vec<Question>,
    },
    /// A plain text file.
    Text(PathBuf),
}

impl Source {
    /// How the file's `imatrix.datasets` names it.
    pub fn describe(&self) -> String {
        match self {
            Source::Episodes(p) => format!("episodes:{}", p.display()),
            Source::Bench { name, questions } => format!("bench:{name} ({} questions)", questions.len()),
            Source::Text(p) => format!("text:{}", p.display()),
        }
    }
}

/// How to collect.
#[derive(Debug, Clone)]
pub struct ImatrixSetup {
    /// Tokens per chunk of text (and the unit of the file's `imatrix.chunk_count`).
    pub chunk: usize,
    /// Chunks of text to use at most (`None`: all), as llama-imatrix's `--chunks`.
    pub max_chunks: Option<usize>,
    /// Longest sequence decoded (longer episodes are cut: they would not fit a context).
    pub ctx: u32,
    /// Tokens decoded per batch.
    pub batch: u32,
    /// CPU threads (default: every core this process may use).
    pub threads: Option<i32>,
    /// The engine's settings for playing a benchmark first.
    pub engine: EngineOptions,
    /// Token budget of each played episode.
    pub max_episode_tokens: usize,
    /// Seed of the played episodes.
    pub seed: u32,
}

impl Default for ImatrixSetup {
    fn default() -> Self {
        ImatrixSetup {
            chunk: 512,
            max_chunks: None,
            ctx: 16_384,
            batch: 512,
            threads: None,
            engine: EngineOptions::default(),
            max_episode_tokens: crate::defaults::MAX_EPISODE_TOKENS,
            seed: 0,
        }
    }
}

/// What a collection reports as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImatrixEvent<'a> {
    /// An episode of a benchmark was played (`done` of `total`).
    Played {
        /// Episodes played.
        done: usize,
        /// Episodes to play.
        total: usize,
    },
    /// Tokens decoded so far, of all.
    Decoded {
        /// Tokens decoded.
        done: usize,
        /// Tokens to decode.
        total: usize,
    },
    /// A source was read.
    Source {
        /// Its description.
        source: &'a str,
        /// Sequences it holds.
        sequences: usize,
        /// Their tokens.
        tokens: usize,
    },
}

/// What a collection did.
#[derive(Debug, Clone, Serialize)]
pub struct ImatrixReport {
    /// The model.
    pub model: String,
    /// The sources, as `imatrix.datasets` names them.
    pub datasets: Vec<String>,
    /// Sequences decoded (episodes and chunks).
    pub sequences: usize,
    /// Tokens decoded.
    pub decoded_tokens: usize,
    /// Tokens whose activations were counted (a repeated prefix is decoded, counted once).
    pub counted_tokens: usize,
    /// Sequences cut to the context.
    pub cut: usize,
    /// Weights with statistics.
    pub entries: usize,
    /// Seconds spent playing benchmark episodes.
    pub play_seconds: f64,
    /// Seconds spent collecting.
    pub collect_seconds: f64,
    /// Peak resident memory of the process, where the system tells it.
    pub peak_rss_bytes: Option<u64>,
}

/// A token sequence to decode, and where its counting starts.
struct Tokens {
    ids: Vec<i32>,
    count_from: usize,
}

/// The largest calibration text or recorded-episodes file read.
pub const MAX_SOURCE_BYTES: u64 = 1 << 30;

/// Recorded episodes at `path`: a results folder, its `divergence` folder, or a transcripts file.
pub fn read_episodes(path: &Path) -> Result<Vec<Transcript>, ImatrixError> {
    let file = [path.join("divergence").join("transcripts.jsonl"), path.join("transcripts.jsonl"), path.to_path_buf()]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| ImatrixError::NoEpisodes(path.to_path_buf()))?;
    let text = crate::regular_file::read_text_at_most(&file, MAX_SOURCE_BYTES)
        .map_err(|e| ImatrixError::Source { path: file.clone(), why: e.to_string() })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let t: Transcript = serde_json::from_str(line).map_err(|e| ImatrixError::Source {
            path: file.clone(),
            why: format!("line {}: not a recorded episode ({e})", i + 1),
        })?;
        out.push(t);
    }
    if out.is_empty() {
        return Err(ImatrixError::Source { path: file, why: "it holds no episodes".into() });
    }
    Ok(out)
}

/// Plays `questions` on `model` as `eval` does (one sequence, no prompt cache), recording each
/// episode's token sequence.
fn play(
    model: &Model,
    questions: &[Question],
    setup: &ImatrixSetup,
    on_event: &mut dyn FnMut(ImatrixEvent<'_>),
) -> Result<Vec<Transcript>, ImatrixError> {
    let tmp =
        tempfile::tempdir().map_err(|e| ImatrixError::Source { path: std::env::temp_dir(), why: e.to_string() })?;
    let dir = DivergenceDir::new(tmp.path());
    std::fs::create_dir_all(dir.path())
        .map_err(|e| ImatrixError::Source { path: dir.path().into(), why: e.to_string() })?;
    let settings = Settings { max_episode_tokens: setup.max_episode_tokens, ..Settings::default() };
    let mut options = setup.engine.clone();
    options.ctx = eval::sequence_context(options.ctx, setup.max_episode_tokens);
    options.prompt_cache = None;
    let mut engine = BatchedEngine::new(model, options, 1)?;
    let mut gold = GoldCache::new(settings.limits.clone());
    let plan = Plan { settings: &settings, label: "imatrix", questions, seed: setup.seed };
    {
        let mut sink = Sink::memory()
            .with_transcripts(&dir)
            .with_progress(|done, total, _| on_event(ImatrixEvent::Played { done, total }));
        eval::run(&mut engine, &plan, &mut gold, &mut sink)?;
    }
    let mut episodes: Vec<Transcript> = dir.read_transcripts().into_values().collect();
    episodes.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(episodes)
}

/// Teacher-forcing sequences of `episodes`, each counted from where its prefix stops repeating
/// the one before.
fn episode_tokens(model: &Model, episodes: &[Transcript], out: &mut Vec<Tokens>) -> Result<(), ImatrixError> {
    let mut last_prefix: Option<crate::generate::Markup> = None;
    for t in episodes {
        let seq = Sequence::of(model, t)?;
        let repeated = last_prefix.as_ref() == Some(&seq.prefix);
        let count_from = if repeated { seq.prefix_tokens } else { 0 };
        last_prefix = Some(seq.prefix.clone());
        out.push(Tokens { ids: seq.tokens.iter().map(|t| t.0).collect(), count_from });
    }
    Ok(())
}

/// `text` in chunks of `chunk` tokens, each starting with the beginning-of-sequence token.
fn text_tokens(model: &Model, path: &Path, setup: &ImatrixSetup, out: &mut Vec<Tokens>) -> Result<(), ImatrixError> {
    let chunk = setup.chunk.max(2);
    let text = crate::regular_file::read_text_at_most(path, MAX_SOURCE_BYTES)
        .map_err(|e| ImatrixError::Source { path: path.to_path_buf(), why: e.to_string() })?;
    // Data, not markup: a special-token string in the text is plain characters (as
    // llama-imatrix reads its text).
    let plain = crate::generate::Markup::new().plain(&text);
    let ids: Vec<i32> = model.tokenize_markup(&plain, true).iter().map(|t| t.0).collect();
    // The beginning-of-sequence token, where the model wants one.
    let bos = model.tokenize("", true).first().map(|t| t.0);
    if ids.len() < chunk {
        return Err(ImatrixError::Source {
            path: path.to_path_buf(),
            why: format!("{} tokens, fewer than one chunk of {chunk}: give more text or a smaller --chunk", ids.len()),
        });
    }
    for c in ids.chunks_exact(chunk).take(setup.max_chunks.unwrap_or(usize::MAX)) {
        let mut c = c.to_vec();
        if let Some(b) = bos {
            c[0] = b;
        }
        out.push(Tokens { ids: c, count_from: 0 });
    }
    Ok(())
}

/// Collects an importance matrix for the GGUF `model` over `sources`.
pub fn imatrix(
    model: &Model,
    sources: &[Source],
    setup: &ImatrixSetup,
    on_event: &mut dyn FnMut(ImatrixEvent<'_>),
) -> Result<(Imatrix, ImatrixReport), ImatrixError> {
    crate::memory::reset_peak();
    let mut seqs = Vec::new();
    let mut datasets = Vec::new();
    let t = Instant::now();
    for source in sources {
        let before = seqs.len();
        match source {
            Source::Episodes(p) => episode_tokens(model, &read_episodes(p)?, &mut seqs)?,
            Source::Bench { questions, .. } => {
                episode_tokens(model, &play(model, questions, setup, on_event)?, &mut seqs)?
            }
            Source::Text(p) => text_tokens(model, p, setup, &mut seqs)?,
        }
        let name = source.describe();
        let tokens = seqs[before..].iter().map(|s| s.ids.len()).sum();
        on_event(ImatrixEvent::Source { source: &name, sequences: seqs.len() - before, tokens });
        datasets.push(name);
    }
    let play_seconds = t.elapsed().as_secs_f64();
    let longest = seqs.iter().map(|s| s.ids.len()).max().ok_or(ImatrixError::Empty)?;
    let n_ctx = (longest.div_ceil(256) * 256).min(setup.ctx as usize).max(256) as u32;
    let threads = setup.threads.unwrap_or_else(crate::engine::default_threads);
    let t = Instant::now();
    let mut collector = collect::Collector::new(model.path(), n_ctx, setup.batch, threads)?;
    let total: usize = seqs.iter().map(|s| s.ids.len().min(collector.n_ctx())).sum();
    let (mut decoded, mut counted, mut cut) = (0, 0, 0);
    for s in &seqs {
        cut += usize::from(s.ids.len() > collector.n_ctx());
        counted += s.ids.len().min(collector.n_ctx()).saturating_sub(s.count_from);
        collector.sequence(&s.ids, s.count_from, &mut |n| {
            decoded += n;
            on_event(ImatrixEvent::Decoded { done: decoded, total });
        })?;
    }
    let sums = collector.take();
    drop(collector);
    if counted == 0 || sums.is_empty() {
        return Err(ImatrixError::Empty);
    }
    let entries = sums
        .into_iter()
        .map(|(name, s)| {
            let entry = Entry {
                sums: s.squares.iter().map(|&v| v as f32).collect(),
                counts: s.counts.iter().map(|&c| c as f32).collect(),
            };
            (name, entry)
        })
        .collect();
    let chunk = setup.chunk.max(1);
    let m = Imatrix {
        entries,
        datasets: datasets.clone(),
        chunk_count: (counted / chunk) as u32,
        chunk_size: chunk as u32,
    };
    let report = ImatrixReport {
        model: model.path().display().to_string(),
        datasets,
        sequences: seqs.len(),
        decoded_tokens: decoded,
        counted_tokens: counted,
        cut,
        entries: m.entries.len(),
        play_seconds,
        collect_seconds: t.elapsed().as_secs_f64(),
        peak_rss_bytes: crate::memory::peak_bytes(),
    };
    Ok((m, report))
}
