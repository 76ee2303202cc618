//! Prefill and decode speed, as llama.cpp's `llama-bench` measures them (`-p`, `-n`, `-d`):
//! random tokens decoded in one go, then one at a time, each repetition from a sequence holding
//! `depth` tokens already (decoded untimed first; an agent episode decodes deep in its context).

use std::time::Instant;

use llama_cpp_2::token::LlamaToken;
use serde::Serialize;

use super::{mean_sd, BenchError};
use crate::engine::{Engine, EngineOptions};

/// Prompt tokens of the prefill measurement by default (llama-bench's `-p`).
pub const PROMPT_TOKENS: usize = 512;

/// Tokens of the decode measurement by default (llama-bench's `-n`).
pub const GENERATED_TOKENS: usize = 128;

/// Timed repetitions by default.
pub const REPETITIONS: u64 = 3;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpeedSizes {
    /// Prompt tokens decoded in one go.
    pub pp: usize,
    /// Tokens decoded one at a time.
    pub tg: usize,
    /// Timed repetitions, after one untimed warm-up.
    pub reps: u64,
    /// Tokens already in the sequence when each measurement starts (llama-bench's `-d`).
    pub depth: usize,
}

impl Default for SpeedSizes {
    fn default() -> Self {
        SpeedSizes { pp: PROMPT_TOKENS, tg: GENERATED_TOKENS, reps: REPETITIONS, depth: 0 }
    }
}

/// Prefill and decode speed at one depth.
#[derive(Debug, Clone, Serialize)]
pub struct DepthSpeed {
    /// Tokens in the sequence before each measurement.
    pub depth: usize,
    /// Prefill tokens/s, mean over the repetitions.
    pub pp_tps_mean: f64,
    /// Its sample standard deviation.
    pub pp_tps_sd: f64,
    /// Decode tokens/s, mean over the repetitions.
    pub tg_tps_mean: f64,
    /// Its sample standard deviation.
    pub tg_tps_sd: f64,
}

/// Prefill and decode speed of one model on one engine.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedReport {
    /// The model file.
    pub model: String,
    /// Its parameters.
    pub params: u64,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// Threads asked for (`None`: the engine's default).
    pub threads: Option<i32>,
    /// Tokens per prefill batch.
    pub batch: u32,
    /// The KV cache's element type (`f32`, `f16`).
    pub kv_type: String,
    /// Prompt tokens per prefill measurement.
    pub pp_tokens: usize,
    /// Prefill tokens/s, mean over the repetitions.
    pub pp_tps_mean: f64,
    /// Its sample standard deviation.
    pub pp_tps_sd: f64,
    /// Tokens per decode measurement.
    pub tg_tokens: usize,
    /// Decode tokens/s, mean over the repetitions.
    pub tg_tps_mean: f64,
    /// Its sample standard deviation.
    pub tg_tps_sd: f64,
    /// Tokens in the sequence before each measurement of the figures above.
    pub depth: usize,
    /// The same measurements at each depth asked for (`sqale bench --depth`), the first being
    /// the figures above; empty when only one depth was measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depths: Vec<DepthSpeed>,
    /// The prompt-cache replay, when one was run on the same engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episode: Option<super::ReplayReport>,
    /// What speculative decoding can gain ([`super::speculation`]), when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculation: Option<super::SpeculationReport>,
}

/// Deterministic pseudo-random token ids (xorshift), as llama-bench feeds random tokens.
pub fn random_tokens(n: usize, vocab: i32) -> Vec<LlamaToken> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let vocab = vocab.max(1) as u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            LlamaToken::new((x % vocab) as i32)
        })
        .collect()
}

/// Measures prefill (`sizes.pp` tokens in one decode) and generation (`sizes.tg` single-token
/// decodes) on `engine`, `sizes.reps` times after one warm-up. `options` are the options the
/// engine was created with (reported, not applied). `progress(rep, reps)` is called after each
/// repetition, the warm-up being repetition 0.
pub fn speed(
    engine: &mut Engine<'_>,
    options: &EngineOptions,
    sizes: SpeedSizes,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<SpeedReport, BenchError> {
    let model = engine.model();
    let tokens = random_tokens(sizes.depth + sizes.pp.max(sizes.tg), model.llama().n_vocab());
    let (filler, tokens) = tokens.split_at(sizes.depth);
    let mut pp = Vec::new();
    let mut tg = Vec::new();
    // The filler is decoded once per repetition and copied (a hybrid model's recurrent state
    // can't be cut back to a position); the warm-up runs at depth 0.
    for rep in 0..=sizes.reps {
        let filler = if rep == 0 { &[][..] } else { filler };
        engine.clear();
        engine.decode(filler)?;
        let mark = engine.mark()?;
        let t = Instant::now();
        engine.decode(&tokens[..sizes.pp])?;
        let pp_rate = sizes.pp as f64 / t.elapsed().as_secs_f64();
        match &mark {
            Some(m) => engine.rewind(m)?,
            None => {
                engine.clear();
                engine.decode(filler)?;
            }
        }
        let t = Instant::now();
        for &tok in &tokens[..sizes.tg] {
            engine.decode_sampled(&[tok])?;
        }
        let tg_rate = sizes.tg as f64 / t.elapsed().as_secs_f64();
        if rep > 0 {
            pp.push(pp_rate);
            tg.push(tg_rate);
        }
        progress(rep, sizes.reps);
    }
    let (pp_tps_mean, pp_tps_sd) = mean_sd(&pp);
    let (tg_tps_mean, tg_tps_sd) = mean_sd(&tg);
    Ok(SpeedReport {
        model: model.path().display().to_string(),
        params: model.n_params(),
        size_bytes: model.size(),
        threads: options.threads,
        batch: options.batch,
        kv_type: options.kv_type.resolve().to_string(),
        pp_tokens: sizes.pp,
        pp_tps_mean,
        pp_tps_sd,
        tg_tokens: sizes.tg,
        tg_tps_mean,
        tg_tps_sd,
        depth: sizes.depth,
        depths: Vec::new(),
        episode: None,
        speculation: None,
    })
}

/// [`speed`] at each of `depths` in turn (`sizes.depth` is ignored): the report of the first, with
/// every depth's figures in [`SpeedReport::depths`]. `progress(depth, rep, reps)`.
pub fn speed_at_depths(
    engine: &mut Engine<'_>,
    options: &EngineOptions,
    sizes: SpeedSizes,
    depths: &[usize],
    progress: &mut dyn FnMut(usize, u64, u64),
) -> Result<SpeedReport, BenchError> {
    let mut first: Option<SpeedReport> = None;
    let mut all = Vec::new();
    for &depth in depths {
        let r = speed(engine, options, SpeedSizes { depth, ..sizes }, &mut |rep, reps| progress(depth, rep, reps))?;
        all.push(DepthSpeed {
            depth,
            pp_tps_mean: r.pp_tps_mean,
            pp_tps_sd: r.pp_tps_sd,
            tg_tps_mean: r.tg_tps_mean,
            tg_tps_sd: r.tg_tps_sd,
        });
        first.get_or_insert(r);
    }
    let mut report = first.ok_or(BenchError::NoDepth)?;
    if all.len() > 1 {
        report.depths = all;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tokens_are_deterministic_and_in_the_vocabulary() {
        let a = random_tokens(1000, 49_152);
        assert_eq!(a, random_tokens(1000, 49_152));
        assert!(a.iter().all(|t| (0..49_152).contains(&t.0)));
        let distinct: std::collections::HashSet<_> = a.iter().map(|t| t.0).collect();
        assert!(distinct.len() > 900, "{}", distinct.len());
    }
}
