//! Speed benchmarks through sqale's own engine, each returning a typed report:
//!
//! - [`speed`]: prefill and decode tokens/s (comparable with llama.cpp's `llama-bench` pp/tg);
//! - [`busy`]: decode speed idle and beside 1..=N threads spinning on the CPUs, each level
//!   against idle;
//! - [`replay`]: what the prompt cache saves over a six-tool-turn episode (and, optionally, two
//!   live episodes' token counts), and what speculation saves over the same episode;
//! - [`parallel`]: a benchmark's episodes at several sequence counts through one loaded model;
//! - [`speculation`]: the verify cost curve, the oracle ceiling of speculative decoding and the
//!   speed-up the curve predicts.
//!
//! This module holds what they share: [`engine_options`] (how `auto` speculation applies to
//! known text), [`BenchError`] and [`mean_sd`]. The reports serialize to the JSON
//! `sqale bench --json` prints.

pub mod busy;
pub mod parallel;
pub mod replay;
pub mod speculation;
pub mod speed;

pub use busy::{busy, BusyLevel, BusyReport};
pub use parallel::{check_values, parallel, ParallelReport, ParallelRun, ParallelSetup, MAX_PARALLEL};
pub use replay::{
    replay, replay_script, replay_speculation, LiveEpisode, LiveEpisodes, LiveSettings, ReplayReport, ReplayStep,
    SpeculativeReplay, SIX_TURNS,
};
pub use speculation::{speculation, SpeculationReport, SpeculationSetup};
pub use speed::{speed, speed_at_depths, DepthSpeed, SpeedReport, SpeedSizes};

use crate::agent::AgentError;
use crate::engine::{EngineError, EngineOptions, Model};
use crate::eval::EvalError;
use crate::generate::GenerateError;
use crate::prompt::PromptError;
use crate::speculate::Speculate;

/// Why a benchmark could not run. Messages name what failed; the cause is the error's
/// [`source`](std::error::Error::source) (print the chain, e.g. anyhow's `{:#}`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The engine could not decode.
    #[error(transparent)]
    Decode(#[from] GenerateError),
    /// An engine could not be created.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The scripted episode of the replay could not run.
    #[error("scripted episode")]
    Scripted(#[source] AgentError),
    /// A live episode could not run.
    #[error("{which} live episode")]
    Live {
        /// `first` or `second`.
        which: &'static str,
        /// Why.
        #[source]
        source: AgentError,
    },
    /// A parallel run's evaluation stopped.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The agent prompt's user turn could not be made for the question.
    #[error("the agent prompt's user turn")]
    Prompt(#[source] PromptError),
    /// No sequence counts, or one outside 1 to [`MAX_PARALLEL`].
    #[error("sequence counts must be 1-{max}, at least one, got {0:?}", max = MAX_PARALLEL)]
    Parallel(Vec<u32>),
    /// `--depth` named no depth.
    #[error("no depth to measure at: give --depth 0,2048,8192 or leave it out")]
    NoDepth,
}

/// `options` as the benchmarks run them on `model`: they decode known text, where a draft
/// cannot change a token at any temperature, so `auto` drafts with everything the file allows
/// (prompt lookup, plus the MTP head when the file has one). Other modes are kept. They measure
/// decoding, so the system turn is never restored from the prompt cache on disk.
pub fn engine_options(model: &Model, options: &EngineOptions) -> EngineOptions {
    let speculate = match options.speculate {
        Speculate::Auto if model.has_mtp_head() => Speculate::Both,
        Speculate::Auto => Speculate::Lookup,
        other => other,
    };
    EngineOptions { speculate, prompt_cache: None, ..options.clone() }
}

/// Mean and sample standard deviation (0 for fewer than two values).
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_sd() {
        assert_eq!(mean_sd(&[]), (0.0, 0.0));
        assert_eq!(mean_sd(&[5.0]), (5.0, 0.0));
        let (m, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12, "{sd}");
    }
}
