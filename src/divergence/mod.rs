//! How far a model's distributions are from a reference's along the reference's own agent
//! episodes: the cost of a quantisation seen token by token, long before execution accuracy
//! can see it (docs/evaluation.md, "Divergence from a reference").
//!
//! 1. The reference plays an episode as `eval` always does; a [`Recorder`] keeps its exact
//!    token sequence ([`Transcript`]): prompt and tool results as text, completions as the ids
//!    sampled.
//! 2. The reference is teacher-forced along that sequence ([`force`]: the whole episode decoded
//!    as known text, in batches, at prefill speed), and at every token it generated its top `k`
//!    log-probabilities are kept on disk ([`store`]). Only one model is ever loaded: the 2B
//!    takes 3.90 GiB at bf16 and 1.57 GiB at q4_k_m with a 16,384-token context
//!    (docs/measurements.md, "Memory"), together more than a 4 GB board has and most of an 8 GB
//!    one; the stored top 32 take about 0.8 MB per 3,000 generated tokens (docs/evaluation.md).
//! 3. Each model is teacher-forced along the same sequence, and at every generated token its
//!    distribution is compared with the reference's ([`measure`]): KL divergence, whether the
//!    most probable tokens agree, and the probability the model gives the reference's token;
//!    per turn, where the model's most probable token first parts from the reference's
//!    ([`segment`] says whether that is in the thinking, the call, its SQL or the answer).
//!
//! The reference is compared with its own teacher-forced pass, not with the logits it sampled
//! from while playing: llama.cpp rounds a token decoded in a batch differently from the same
//! token decoded alone (docs/speculative-decoding.md), and every model must be measured under
//! the same batching for the reference against itself to be exactly 0.

pub mod measure;
pub mod report;
pub mod run;
pub mod segment;
pub mod store;
pub mod text;
pub mod transcript;

use std::collections::BTreeMap;

use llama_cpp_2::token::LlamaToken;
use serde::{Deserialize, Serialize};

use crate::engine::{Engine, Model};
use crate::generate::{GenerateError, Generator};
use measure::{compare, top_k, RefToken};
use segment::Place;
use store::RefEpisode;
pub use transcript::{Piece, Recorder, Transcript};

/// Errors of a divergence run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DivergenceError {
    /// The model cannot be compared with the reference at all.
    #[error("{model} cannot be compared with the reference {reference}: {why}")]
    Incompatible {
        /// The model.
        model: String,
        /// The reference.
        reference: String,
        /// What differs, and what to do.
        why: String,
    },
    /// The results folder holds divergence data of another reference.
    #[error("{folder} holds divergence data against {theirs}, not {ours}: measure against that reference, or write to another results folder")]
    OtherReference {
        /// The results folder.
        folder: std::path::PathBuf,
        /// The reference the folder was made with.
        theirs: String,
        /// The reference given now.
        ours: String,
    },
    /// A transcript does not start with its prefix, or its reference file does not match it.
    #[error("question {id}: {why}")]
    Mismatch {
        /// The question.
        id: String,
        /// What does not match.
        why: String,
    },
    /// Decoding failed.
    #[error("teacher-forcing question {id}: {source}")]
    Decode {
        /// The question.
        id: String,
        /// The engine's error.
        #[source]
        source: GenerateError,
    },
    /// A file of the results folder could not be read or written.
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

/// A transcript's tokens as a model tokenizes them, and where its sampled tokens are.
#[derive(Debug, Clone)]
pub struct Sequence {
    /// The prefix (restored from the engine's prefix snapshot when it can be).
    pub prefix: crate::generate::Markup,
    /// Tokens of the prefix.
    pub prefix_tokens: usize,
    /// The whole sequence.
    pub tokens: Vec<LlamaToken>,
    /// `(position, turn)` of every sampled token, in order.
    pub sampled: Vec<(usize, u32)>,
}

impl Sequence {
    /// `t` tokenized by `model` exactly as the engine tokenized it while playing: the prefix
    /// with the beginning-of-sequence token, each appended text alone, sampled ids as they are.
    pub fn of(model: &Model, t: &Transcript) -> Result<Sequence, DivergenceError> {
        let mismatch = |why: &str| DivergenceError::Mismatch { id: t.id.clone(), why: why.to_string() };
        let Some(Piece::Prefix(prefix)) = t.pieces.first() else {
            return Err(mismatch("the transcript does not start with its prompt prefix"));
        };
        let mut tokens = model.tokenize_markup(prefix, true);
        let prefix_tokens = tokens.len();
        let mut sampled = Vec::new();
        let mut turn = 0u32;
        for p in &t.pieces[1..] {
            match p {
                Piece::Prefix(_) => return Err(mismatch("the transcript has two prompt prefixes")),
                Piece::Text(text) => tokens.extend(model.tokenize_markup(text, false)),
                Piece::Sampled(ids) => {
                    for &id in ids {
                        sampled.push((tokens.len(), turn));
                        tokens.push(LlamaToken(id as i32));
                    }
                    turn += 1;
                }
            }
        }
        if let Some(held) = &t.ids {
            if held.len() != tokens.len() || held.iter().zip(&tokens).any(|(a, b)| *a != b.0 as u32) {
                let at = held
                    .iter()
                    .zip(&tokens)
                    .position(|(a, b)| *a != b.0 as u32)
                    .unwrap_or(held.len().min(tokens.len()));
                return Err(mismatch(&format!(
                    "{} tokenizes the episode otherwise than the reference's server did (first at token {at}; {} tokens against {}): their vocabularies differ, and distributions over different vocabularies cannot be compared",
                    model.path().display(),
                    tokens.len(),
                    held.len()
                )));
            }
        }
        if sampled.first().is_some_and(|s| s.0 == 0) {
            return Err(mismatch("a sampled token at position 0 has nothing before it to predict it"));
        }
        Ok(Sequence { prefix: prefix.clone(), prefix_tokens, tokens, sampled })
    }
}

/// Teacher-forces `seq` through `engine` and hands `on_token(g, logits)` the logits that
/// predicted the `g`-th sampled token, for every one in order. The prefix comes from the
/// engine's snapshot when no sampled token needs its logits.
pub fn force(
    engine: &mut Engine<'_>,
    seq: &Sequence,
    on_token: &mut dyn FnMut(usize, &[f32]),
) -> Result<(), GenerateError> {
    let from = if seq.prefix_tokens > 0 && seq.sampled.first().is_some_and(|s| s.0 > seq.prefix_tokens) {
        engine.begin_markup(&seq.prefix, 0)?;
        seq.prefix_tokens
    } else {
        engine.clear();
        0
    };
    let rest = &seq.tokens[from..];
    let mut scored = vec![false; rest.len()];
    for &(pos, _) in &seq.sampled {
        // The logits after token `pos - 1` predict token `pos`.
        scored[pos - 1 - from] = true;
    }
    let mut g = 0;
    engine.decode_scored(rest, &scored, &mut |_, logits| {
        on_token(g, logits);
        g += 1;
    })
}

/// The reference's pass over one episode: its top `k` at every sampled token, with the token's
/// turn and place.
pub fn reference_episode(engine: &mut Engine<'_>, t: &Transcript, k: usize) -> Result<RefEpisode, DivergenceError> {
    let model = engine.model();
    let seq = Sequence::of(model, t)?;
    let places = places(model, &seq);
    let mut tokens = Vec::with_capacity(seq.sampled.len());
    force(engine, &seq, &mut |g, logits| {
        let (pos, turn) = seq.sampled[g];
        tokens.push(RefToken { token: seq.tokens[pos].0 as u32, turn, place: places[g], top: top_k(logits, k) });
    })
    .map_err(|source| DivergenceError::Decode { id: t.id.clone(), source })?;
    Ok(RefEpisode { n_vocab: model.n_vocab() as u32, k: k as u32, tokens })
}

/// The reference's pass over one episode on an inference server (vLLM's `prompt_logprobs`):
/// the same top `k` per sampled token as [`reference_episode`], the sequence tokenized by the
/// local `model` (checked against the ids the server held, [`Sequence::of`]).
pub fn reference_episode_remote(
    pool: &crate::remote::Pool,
    model: &Model,
    t: &Transcript,
    k: usize,
) -> Result<RefEpisode, DivergenceError> {
    let seq = Sequence::of(model, t)?;
    let places = places(model, &seq);
    let ids: Vec<u32> = seq.tokens.iter().map(|t| t.0 as u32).collect();
    let lp = pool
        .prompt_logprobs(&ids, k)
        .map_err(|e| DivergenceError::Decode { id: t.id.clone(), source: crate::remote::remote_failed(e) })?;
    let mut tokens = Vec::with_capacity(seq.sampled.len());
    for (g, &(pos, turn)) in seq.sampled.iter().enumerate() {
        let top = lp.get(pos).cloned().flatten().ok_or_else(|| DivergenceError::Mismatch {
            id: t.id.clone(),
            why: format!("the server gave no log-probabilities at position {pos}"),
        })?;
        tokens.push(RefToken { token: ids[pos], turn, place: places[g], top });
    }
    Ok(RefEpisode { n_vocab: model.n_vocab() as u32, k: k as u32, tokens })
}

/// The place of every sampled token of `seq`, turn by turn.
fn places(model: &Model, seq: &Sequence) -> Vec<Place> {
    let mut out = Vec::with_capacity(seq.sampled.len());
    let mut i = 0;
    while i < seq.sampled.len() {
        let turn = seq.sampled[i].1;
        let end = seq.sampled[i..].iter().position(|s| s.1 != turn).map_or(seq.sampled.len(), |n| i + n);
        let pieces: Vec<Vec<u8>> = seq.sampled[i..end].iter().map(|&(pos, _)| model.piece(seq.tokens[pos])).collect();
        out.extend(segment::places_of_tokens(&pieces));
        i = end;
    }
    out
}

/// Sums of the measures over the tokens of one place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PlaceSums {
    /// Tokens.
    pub tokens: usize,
    /// Sum of their KL divergences.
    pub kld: f64,
    /// Tokens whose most probable token agreed.
    pub top1: usize,
    /// Sum of the probabilities given to the reference's tokens.
    pub p_token: f64,
    /// Sum of the changes in the reference token's probability, model minus reference (Δp).
    #[serde(default)]
    pub dp: f64,
    /// Sum of the squares of those changes.
    #[serde(default)]
    pub dp2: f64,
    /// Sum of `ln p_ref − ln p_model` at the reference's tokens (the log perplexity ratio,
    /// summed).
    #[serde(default)]
    pub log_ratio: f64,
}

/// One model's measures on one question (a line of `divergence/records.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DivergenceRecord {
    /// The model's label.
    pub model: String,
    /// The question's id.
    pub id: String,
    /// Why the question was not measured, when it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Sums per place (keys as [`Place::as_str`] in snake case).
    #[serde(default)]
    pub by_place: BTreeMap<Place, PlaceSums>,
    /// Per turn, where the model's most probable token first parted from the reference's
    /// (`None`: it never did).
    #[serde(default)]
    pub first_divergence: Vec<Option<Place>>,
    /// KL divergence at every generated token, in order.
    #[serde(default)]
    pub kld: Vec<f32>,
    /// The change in the probability of the reference's token at every generated token, model
    /// minus reference (absent in records written before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dp: Vec<f32>,
    /// `−ln` of the probability the model gives the reference's token, at every generated token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nll: Vec<f32>,
    /// `−ln` of the probability the reference gives it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nll_base: Vec<f32>,
    /// Seconds the teacher-forced pass took.
    #[serde(default)]
    pub seconds: f64,
}

impl DivergenceRecord {
    /// A question that could not be measured, and why.
    pub fn skipped(model: &str, id: &str, why: String) -> Self {
        DivergenceRecord {
            model: model.to_string(),
            id: id.to_string(),
            skipped: Some(why),
            by_place: BTreeMap::new(),
            first_divergence: Vec::new(),
            kld: Vec::new(),
            dp: Vec::new(),
            nll: Vec::new(),
            nll_base: Vec::new(),
            seconds: 0.0,
        }
    }

    /// Sums over every place.
    pub fn total(&self) -> PlaceSums {
        self.by_place.values().fold(PlaceSums::default(), |a, s| PlaceSums {
            tokens: a.tokens + s.tokens,
            kld: a.kld + s.kld,
            top1: a.top1 + s.top1,
            p_token: a.p_token + s.p_token,
            dp: a.dp + s.dp,
            dp2: a.dp2 + s.dp2,
            log_ratio: a.log_ratio + s.log_ratio,
        })
    }
}

/// A model's pass over question `id`'s episode `seq` (as the engine's model tokenizes it,
/// [`Sequence::of`]), compared token by token with `reference`.
pub fn measure_episode(
    engine: &mut Engine<'_>,
    label: &str,
    id: &str,
    seq: &Sequence,
    reference: &RefEpisode,
) -> Result<DivergenceRecord, DivergenceError> {
    let started = std::time::Instant::now();
    if reference.tokens.len() != seq.sampled.len()
        || reference.tokens.iter().zip(&seq.sampled).any(|(r, s)| r.token != seq.tokens[s.0].0 as u32)
    {
        return Err(DivergenceError::Mismatch {
            id: id.to_string(),
            why: "the reference file does not match the transcript's sampled tokens; delete the results folder's divergence/reference and run again".into(),
        });
    }
    let turns = reference.tokens.last().map_or(0, |r| r.turn as usize + 1);
    let mut r = DivergenceRecord::skipped(label, id, String::new());
    r.skipped = None;
    r.first_divergence = vec![None; turns];
    r.kld = Vec::with_capacity(reference.tokens.len());
    let mut parted = vec![false; turns];
    force(engine, seq, &mut |g, logits| {
        let rt = &reference.tokens[g];
        let c = compare(rt, logits);
        let sums = r.by_place.entry(rt.place).or_default();
        sums.tokens += 1;
        sums.kld += c.kld;
        sums.top1 += c.top1 as usize;
        sums.p_token += c.p_token;
        let dp = c.p_token - c.p_ref;
        sums.dp += dp;
        sums.dp2 += dp * dp;
        sums.log_ratio += c.log_ratio;
        r.kld.push(c.kld as f32);
        r.dp.push(dp as f32);
        r.nll.push(-c.p_token.max(1e-30).ln() as f32);
        r.nll_base.push(-c.p_ref.max(1e-30).ln() as f32);
        let turn = rt.turn as usize;
        if !c.top1 && !parted[turn] {
            parted[turn] = true;
            r.first_divergence[turn] = Some(rt.place);
        }
    })
    .map_err(|source| DivergenceError::Decode { id: id.to_string(), source })?;
    r.seconds = started.elapsed().as_secs_f64();
    Ok(r)
}
