//! llama-perplexity's `--kl-divergence` on a plain text, done by sqale: the text cut into chunks
//! as llama-perplexity cuts it, each teacher-forced through the reference and through a model
//! ([`super::force`]), the reference's whole vocabulary kept (so the KLD is exact), and the
//! table of [`PerplexityTable`]. It is how the reports' figures are checked against llama.cpp's
//! own on the same tokens (`tests/divergence.rs`, `benches/kld-vs-llama.sh`).

use std::path::Path;

use llama_cpp_2::token::LlamaToken;

use super::measure::{compare, top_k, RefToken};
use super::report::PerplexityTable;
use super::segment::Place;
use super::{force, Sequence};
use crate::engine::{Engine, EngineError, EngineOptions, Model, ModelOptions};
use crate::generate::GenerateError;
use crate::speculate::Speculate;

/// Why the table could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// A model could not be loaded or an engine made.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Decoding failed.
    #[error(transparent)]
    Decode(#[from] GenerateError),
    /// The text is shorter than the chunks asked for.
    #[error("the text holds {tokens} tokens; {chunks} chunk(s) of {ctx} need {}", ctx * chunks)]
    TooShort {
        /// Tokens of the text.
        tokens: usize,
        /// Chunks asked for.
        chunks: usize,
        /// Tokens per chunk.
        ctx: usize,
    },
    /// The two models tokenize the text differently.
    #[error("the reference and the model tokenize the text differently: their vocabularies differ")]
    Vocabulary,
    /// No token was scored.
    #[error("no token was scored (a chunk of {0} tokens scores its second half)")]
    Empty(usize),
}

/// The first `chunks` chunks of `ctx` tokens of `text`, as llama-perplexity cuts them: each starts
/// again at position 0, its first token replaced by the beginning-of-sequence token where the
/// model wants one, and tokens `ctx/2 + 1 .. ctx` scored.
fn sequences(model: &Model, text: &str, ctx: usize, chunks: usize) -> Result<Vec<Sequence>, TextError> {
    let vocab = model.llama().vocab();
    let tokens: Vec<LlamaToken> = vocab.tokenize(text.as_bytes(), vocab.should_add_bos(), false);
    if tokens.len() < ctx * chunks {
        return Err(TextError::TooShort { tokens: tokens.len(), chunks, ctx });
    }
    let first = ctx / 2;
    Ok((0..chunks)
        .map(|c| {
            let mut t = tokens[c * ctx..(c + 1) * ctx].to_vec();
            if vocab.should_add_bos() {
                t[0] = vocab.bos();
            }
            Sequence {
                prefix: Default::default(),
                prefix_tokens: 0,
                tokens: t,
                sampled: (first + 1..ctx).map(|p| (p, 0)).collect(),
            }
        })
        .collect())
}

/// llama-perplexity's table of `model` against `reference` on the first `chunks` chunks of `ctx`
/// tokens of `text`, on `threads` threads.
pub fn table(
    reference: &Path,
    model: &Path,
    text: &str,
    ctx: usize,
    chunks: usize,
    threads: i32,
) -> Result<PerplexityTable, TextError> {
    let options =
        EngineOptions { ctx: ctx as u32, threads: Some(threads), speculate: Speculate::Off, ..Default::default() };
    let base = Model::load(reference, &ModelOptions::default())?;
    let seqs = sequences(&base, text, ctx, chunks)?;
    let n_vocab = base.n_vocab();
    let mut refs = Vec::new();
    {
        let mut engine = Engine::new(&base, options.clone())?;
        for seq in &seqs {
            force(&mut engine, seq, &mut |g, logits| {
                let token = seq.tokens[seq.sampled[g].0].0 as u32;
                refs.push(RefToken { token, turn: 0, place: Place::Answer, top: top_k(logits, n_vocab) });
            })?;
        }
    }
    drop(base);
    let quantised = Model::load(model, &ModelOptions::default())?;
    let seqs_m = sequences(&quantised, text, ctx, chunks)?;
    if seqs_m.iter().zip(&seqs).any(|(a, b)| a.tokens != b.tokens) {
        return Err(TextError::Vocabulary);
    }
    let mut engine = Engine::new(&quantised, options)?;
    let (mut kld, mut dp, mut nll, mut nll_base) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut same = 0usize;
    for seq in &seqs_m {
        force(&mut engine, seq, &mut |_, logits| {
            let c = compare(&refs[kld.len()], logits);
            kld.push(c.kld);
            dp.push(c.p_token - c.p_ref);
            nll.push(-c.p_token.max(1e-30).ln());
            nll_base.push(-c.p_ref.max(1e-30).ln());
            same += c.top1 as usize;
        })?;
    }
    PerplexityTable::of(&kld, &dp, &nll, &nll_base, same).ok_or(TextError::Empty(ctx))
}
