//! A benchmark's episodes at several sequence counts through one loaded model: episodes per
//! minute, aggregate generated tokens/s and peak memory, each against the first count, and
//! whether every episode came out the same.

use std::time::Instant;

use serde::Serialize;

use super::BenchError;
use crate::agent::Settings;
use crate::engine::BatchedEngine;
use crate::engine::{EngineOptions, Model};
use crate::env::Limits;
use crate::eval::{self, GoldCache, Plan, Question, Record, Sink};

/// The most sequences one run may decode at once.
pub const MAX_PARALLEL: u32 = 64;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParallelSetup {
    /// The benchmark's name, as reported.
    pub benchmark: String,
    /// Sequence counts, one run each, in order (the first is the baseline).
    pub values: Vec<u32>,
    /// The run's seed (each episode's derives from it and the question id).
    pub seed: u32,
    /// Token budget of each episode.
    pub max_episode_tokens: usize,
}

/// One sequence count's run of the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct ParallelRun {
    /// Sequences decoded at once.
    pub parallel: u32,
    /// Episodes run (questions whose gold query failed have none).
    pub episodes: usize,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Tokens sampled, all episodes.
    pub generated_tokens: usize,
    /// Tokens decoded, all episodes.
    pub decoded_tokens: usize,
    /// Episodes per minute.
    pub episodes_per_minute: f64,
    /// Aggregate generated tokens/s.
    pub generated_tokens_per_second: f64,
    /// Peak resident memory during the run, where the system tells.
    pub peak_rss_bytes: Option<u64>,
    /// Against the first run.
    pub speedup: f64,
    /// Every episode equal (completions, calls, answer) to the first run's.
    pub same_episodes: bool,
}

/// The runs at every sequence count.
#[derive(Debug, Clone, Serialize)]
pub struct ParallelReport {
    /// The model file.
    pub model: String,
    /// Its parameters.
    pub params: u64,
    /// The benchmark's name.
    pub benchmark: String,
    /// Questions run.
    pub questions: usize,
    /// Token budget of each episode.
    pub max_episode_tokens: usize,
    /// One per sequence count, in order.
    pub runs: Vec<ParallelRun>,
    /// Tokens decoded per episode in the first run.
    pub decoded_tokens_per_question: f64,
    /// Forward-pass compute per question: 2 FLOPs per parameter per decoded token, in TFLOPs.
    pub tflops_per_question: f64,
}

/// Checks sequence counts: at least one, each 1 to [`MAX_PARALLEL`].
pub fn check_values(values: &[u32]) -> Result<(), BenchError> {
    if values.is_empty() || !values.iter().all(|n| (1..=MAX_PARALLEL).contains(n)) {
        return Err(BenchError::Parallel(values.to_vec()));
    }
    Ok(())
}

/// Whether two runs (their records sorted by question) took the same episodes: each question's
/// answer and every turn's completion and calls ([`Record::turn_signature`]).
fn same_episodes(a: &[Record], b: &[Record]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.id == y.id && x.sql == y.sql && x.turn_signature() == y.turn_signature())
}

/// Runs `questions` at each of `setup.values` sequences at once through `model` (a batched
/// engine of `options`, its context cut to one episode per sequence, no prompt cache on disk).
/// `progress(parallel, done, total)` is called after each episode.
pub fn parallel(
    model: &Model,
    options: EngineOptions,
    questions: &[Question],
    setup: &ParallelSetup,
    progress: &mut dyn FnMut(u32, usize, usize),
) -> Result<ParallelReport, BenchError> {
    check_values(&setup.values)?;
    let limits = Limits::default();
    let settings =
        Settings { max_episode_tokens: setup.max_episode_tokens, limits: limits.clone(), ..Settings::default() };
    let mut options = options;
    options.ctx = eval::sequence_context(options.ctx, setup.max_episode_tokens);
    // Every run decodes its system turn once, as the first run did: none from the disk cache.
    options.prompt_cache = None;
    let mut gold = GoldCache::new(limits);
    let plan = Plan { settings: &settings, label: "bench", questions, seed: setup.seed };
    let mut runs: Vec<ParallelRun> = Vec::new();
    let mut first: Option<Vec<Record>> = None;
    for &n in &setup.values {
        crate::memory::reset_peak();
        let mut engine = BatchedEngine::new(model, options.clone(), n as usize)?;
        let t = Instant::now();
        let mut sink = Sink::memory().with_progress(|done, total, _| progress(n, done, total));
        eval::run(&mut engine, &plan, &mut gold, &mut sink)?;
        let seconds = t.elapsed().as_secs_f64();
        drop(engine);
        let mut records = sink.into_records();
        records.sort_by(|a, b| a.id.cmp(&b.id));
        let same_episodes = first.as_deref().is_none_or(|f| same_episodes(f, &records));
        let generated_tokens: usize = records.iter().map(|r| r.generated_tokens).sum();
        let decoded_tokens: usize = records.iter().map(|r| r.decoded_tokens).sum();
        let ran = records.iter().filter(|r| r.episode.is_some()).count();
        let base = runs.first().map(|r| r.seconds).unwrap_or(seconds);
        runs.push(ParallelRun {
            parallel: n,
            episodes: ran,
            seconds,
            generated_tokens,
            decoded_tokens,
            episodes_per_minute: ran as f64 * 60.0 / seconds,
            generated_tokens_per_second: generated_tokens as f64 / seconds,
            peak_rss_bytes: crate::memory::peak_bytes(),
            speedup: base / seconds,
            same_episodes,
        });
        first.get_or_insert(records);
    }
    let params = model.n_params();
    let decoded_tokens_per_question =
        runs.first().map(|r| r.decoded_tokens as f64 / r.episodes.max(1) as f64).unwrap_or(0.0);
    Ok(ParallelReport {
        model: model.path().display().to_string(),
        params,
        benchmark: setup.benchmark.clone(),
        questions: questions.len(),
        max_episode_tokens: setup.max_episode_tokens,
        runs,
        decoded_tokens_per_question,
        tflops_per_question: 2.0 * params as f64 * decoded_tokens_per_question / 1e12,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_counts_are_checked() {
        assert!(check_values(&[1, 2, 4, 64]).is_ok());
        let cases: [&[u32]; 3] = [&[], &[0], &[1, 65]];
        for bad in cases {
            let e = check_values(bad).unwrap_err();
            assert!(matches!(&e, BenchError::Parallel(v) if v == bad), "{e}");
        }
    }
}
