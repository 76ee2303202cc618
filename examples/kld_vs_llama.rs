//! sqale's per-token KL divergence on the tokens `llama-perplexity --kl-divergence` scores, for
//! checking the one against the other (`benches/kld-vs-llama.sh`).
//!
//! llama-perplexity tokenizes the text (beginning-of-sequence token added where the model wants
//! one, special-token markup read as text), cuts it into chunks of `--ctx` tokens and, in each,
//! scores the predictions of tokens `ctx/2 + 1 .. ctx`. This does the same for the first
//! `CHUNKS` chunks (as `--chunks`) with sqale's teacher-forced pass
//! ([`sqale::divergence::force`]) and the whole vocabulary kept, so the KLD is exact, and prints
//! llama-perplexity's statistics as JSON.
//!
//! ```text
//! cargo run --release --example kld_vs_llama -- REF.gguf MODEL.gguf TEXT.txt CTX [CHUNKS]
//! ```

use std::path::Path;

use llama_cpp_2::token::LlamaToken;
use sqale::divergence::measure::{compare, top_k, RefToken};
use sqale::divergence::segment::Place;
use sqale::divergence::{force, Sequence};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::speculate::Speculate;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(
        args.len() == 4 || args.len() == 5,
        "usage: kld_vs_llama REF.gguf MODEL.gguf TEXT.txt CTX [CHUNKS]"
    );
    let ctx: usize = args[3].parse()?;
    let chunks: usize = args.get(4).map_or(Ok(1), |c| c.parse())?;
    let text = std::fs::read_to_string(&args[2])?;
    let options = EngineOptions { ctx: ctx as u32, threads: Some(2), speculate: Speculate::Off, ..Default::default() };
    // One sequence per chunk, as llama-perplexity cuts them: each starts again at position 0,
    // its first token replaced by BOS where the model wants one.
    let sequences = |model: &Model| -> anyhow::Result<Vec<Sequence>> {
        let vocab = model.llama().vocab();
        let tokens: Vec<LlamaToken> = vocab.tokenize(text.as_bytes(), vocab.should_add_bos(), false);
        anyhow::ensure!(
            tokens.len() >= ctx * chunks,
            "{} holds {} tokens; {} are needed",
            args[2],
            tokens.len(),
            ctx * chunks
        );
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
    };
    // The reference's distributions, whole.
    let reference = Model::load(Path::new(&args[0]), &ModelOptions::default())?;
    let seqs = sequences(&reference)?;
    let n_vocab = reference.n_vocab();
    let mut refs = Vec::new();
    {
        let mut engine = Engine::new(&reference, options.clone())?;
        for seq in &seqs {
            force(&mut engine, seq, &mut |g, logits| {
                let token = seq.tokens[seq.sampled[g].0].0 as u32;
                refs.push(RefToken { token, turn: 0, place: Place::Answer, top: top_k(logits, n_vocab) });
            })?;
        }
    }
    drop(reference);
    let model = Model::load(Path::new(&args[1]), &ModelOptions::default())?;
    let seqs_m = sequences(&model)?;
    anyhow::ensure!(
        seqs_m.iter().zip(&seqs).all(|(a, b)| a.tokens == b.tokens),
        "the two models tokenize the text differently"
    );
    let mut engine = Engine::new(&model, options)?;
    let mut kld = Vec::new();
    let mut same = 0usize;
    for seq in &seqs_m {
        force(&mut engine, seq, &mut |_, logits| {
            let c = compare(&refs[kld.len()], logits);
            kld.push(c.kld);
            same += c.top1 as usize;
        })?;
    }
    let n = kld.len();
    let mean = kld.iter().sum::<f64>() / n as f64;
    let mut sorted = kld.clone();
    sorted.sort_unstable_by(f64::total_cmp);
    // llama-perplexity's percentile: interpolated between the values around p · (n - 1).
    let pct = |p: f64| {
        let at = p * (n - 1) as f64;
        let i = at as usize;
        let f = at - i as f64;
        (1.0 - f) * sorted[i] + f * sorted[(i + 1).min(n - 1)]
    };
    let median = if n % 2 == 0 { 0.5 * (sorted[n / 2] + sorted[n / 2 - 1]) } else { sorted[n / 2] };
    let out = serde_json::json!({
        "tokens": n,
        "mean_kld": mean,
        "max_kld": sorted[n - 1],
        "p99_9_kld": pct(0.999),
        "p99_kld": pct(0.99),
        "median_kld": median,
        "same_top_pct": 100.0 * same as f64 / n as f64,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
