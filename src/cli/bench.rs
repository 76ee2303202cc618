//! `sqale bench`: prefill and decode speed through sqale's own engine (comparable with
//! llama.cpp's `llama-bench` pp/tg), and what prompt caching saves over a real episode.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use llama_cpp_2::token::LlamaToken;
use sqale::agent::{Agent, Settings};
use sqale::engine::Engine;

use super::ModelArgs;

/// Arguments of `sqale bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Prompt tokens decoded in one go (like llama-bench -p).
    #[arg(long, default_value_t = 512)]
    pp: usize,
    /// Tokens decoded one at a time (like llama-bench -n).
    #[arg(long, default_value_t = 128)]
    tg: usize,
    /// Timed repetitions (after one warm-up).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Also run an episode and replay its token sequence with and without the cache.
    #[arg(long)]
    episode: bool,
    /// Question for the episode.
    #[arg(long, default_value = "Which supplier shipped the most back-ordered items last quarter?")]
    question: String,
    /// Database for the episode (default: the demo database).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Token budget of the episode.
    #[arg(long, default_value_t = 12_288)]
    max_episode_tokens: usize,
    /// Seed for the episode.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Print results as JSON.
    #[arg(long)]
    json: bool,
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// Deterministic pseudo-random token ids (xorshift), as llama-bench feeds random tokens.
fn random_tokens(n: usize, vocab: i32) -> Vec<LlamaToken> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            LlamaToken::new((x % vocab as u64) as i32)
        })
        .collect()
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let model = args.model.load()?;
    let mut engine = Engine::new(&model, args.model.engine_options())?;
    let tokens = random_tokens(args.pp.max(args.tg), model.llama().n_vocab());

    let mut pp = Vec::new();
    let mut tg = Vec::new();
    for rep in 0..=args.reps {
        engine.clear();
        let t = Instant::now();
        engine.decode(&tokens[..args.pp])?;
        let pp_rate = args.pp as f64 / t.elapsed().as_secs_f64();
        engine.clear();
        let t = Instant::now();
        for tok in &tokens[..args.tg] {
            engine.decode(std::slice::from_ref(tok))?;
        }
        let tg_rate = args.tg as f64 / t.elapsed().as_secs_f64();
        if rep > 0 {
            pp.push(pp_rate);
            tg.push(tg_rate);
        }
        if !args.json {
            eprint!("\rrep {rep}/{}", args.reps);
        }
    }
    if !args.json {
        eprintln!();
    }
    let (pp_mean, pp_sd) = mean_sd(&pp);
    let (tg_mean, tg_sd) = mean_sd(&tg);
    let mut report = serde_json::json!({
        "model": model.path().display().to_string(),
        "params": model.n_params(),
        "size_bytes": model.size(),
        "threads": args.model.threads,
        "batch": args.model.batch,
        "pp_tokens": args.pp, "pp_tps_mean": pp_mean, "pp_tps_sd": pp_sd,
        "tg_tokens": args.tg, "tg_tps_mean": tg_mean, "tg_tps_sd": tg_sd,
    });

    if args.episode {
        report["episode"] = episode_bench(engine, &args)?;
    }

    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("model        {}", model.path().display());
        println!("pp{:<10} {:>8.1} ± {:.1} tokens/s", args.pp, pp_mean, pp_sd);
        println!("tg{:<10} {:>8.1} ± {:.1} tokens/s", args.tg, tg_mean, tg_sd);
        if let Some(e) = report.get("episode") {
            println!("episode      ended_by {} after {} turns, {} tokens in context", e["ended_by"], e["turns"], e["context_tokens"]);
            println!("  tokens decoded: first episode {} (context {}), second episode {} + {} reused (context {})",
                e["first_decoded"], e["first_context"], e["second_decoded"], e["second_reused"], e["second_context"]);
            println!("  decode time, cached (each token once)      {:>8.2} s", e["cached_seconds"].as_f64().unwrap_or(0.0));
            println!("  decode time, re-decoding every turn        {:>8.2} s", e["redecode_seconds"].as_f64().unwrap_or(0.0));
            println!("  re-decode / cached                         {:>8.2}x", e["redecode_over_cached"].as_f64().unwrap_or(0.0));
        }
    }
    Ok(())
}

/// Runs two episodes (the second reuses the system-prompt snapshot), then replays the second's
/// token sequence twice: decoding each token once (what the engine does), and re-decoding the
/// whole conversation before every generated span (what a loop without a cache does).
fn episode_bench(engine: Engine<'_>, args: &BenchArgs) -> anyhow::Result<serde_json::Value> {
    let db = super::db_or_demo(args.db.clone())?;
    let settings = Settings {
        seed: args.seed,
        max_episode_tokens: args.max_episode_tokens,
        ..Settings::default()
    };
    let mut agent = Agent::new(engine, settings);
    let first = agent.run(&args.question, &db).context("first episode")?;
    let second = agent.run(&args.question, &db).context("second episode")?;
    let engine = agent.generator_mut();
    let tokens = engine.tokens().to_vec();
    let spans = engine.generated_spans().to_vec();

    // Cached: every token decoded once, appended text in batches, generated tokens one by one.
    engine.clear();
    let t = Instant::now();
    let mut pos = 0;
    for &(start, len) in &spans {
        engine.decode(&tokens[pos..start])?;
        for tok in &tokens[start..start + len] {
            engine.decode(std::slice::from_ref(tok))?;
        }
        pos = start + len;
    }
    engine.decode(&tokens[pos..])?;
    let cached = t.elapsed().as_secs_f64();

    // No cache: before each generated span, decode the whole conversation so far from scratch.
    let t = Instant::now();
    for &(start, len) in &spans {
        engine.clear();
        engine.decode(&tokens[..start])?;
        for tok in &tokens[start..start + len] {
            engine.decode(std::slice::from_ref(tok))?;
        }
    }
    let redecode = t.elapsed().as_secs_f64();
    engine.clear();

    Ok(serde_json::json!({
        "question": args.question,
        "ended_by": second.ended_by.as_str(),
        "turns": second.turns.len(),
        "tool_turns": second.tool_turns,
        "context_tokens": tokens.len(),
        "first_decoded": first.tokens.decoded_tokens,
        "first_context": first.tokens.context_tokens,
        "second_decoded": second.tokens.decoded_tokens,
        "second_reused": second.tokens.reused_tokens,
        "second_context": second.tokens.context_tokens,
        "first_episode_seconds": first.seconds,
        "second_episode_seconds": second.seconds,
        "cached_seconds": cached,
        "redecode_seconds": redecode,
        "redecode_over_cached": redecode / cached,
    }))
}
