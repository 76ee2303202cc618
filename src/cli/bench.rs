//! `sqale bench`: prefill and decode speed through sqale's own engine (comparable with
//! llama.cpp's `llama-bench` pp/tg), and what prompt caching saves over a real episode.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use llama_cpp_2::token::LlamaToken;
use sqale::agent::{Agent, Settings};
use sqale::engine::Engine;
use sqale::generate::Generator;

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
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Also replay a six-tool-turn episode with and without the prompt cache.
    #[arg(long)]
    episode: bool,
    /// Question for the episode.
    #[arg(long, default_value = "Which supplier shipped the most back-ordered items last quarter?")]
    question: String,
    /// Database for the episode (default: the demo database).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Also run two live episodes (sampling) and report their token counts.
    #[arg(long)]
    live: bool,
    /// Token budget of the live episodes.
    #[arg(long, default_value_t = 12_288)]
    max_episode_tokens: usize,
    /// Seed for the episode.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Run a benchmark's episodes at each of these `--parallel` values instead (e.g. 1,2,4,8):
    /// episodes per minute, aggregate generated tokens/s and peak memory, each against the first
    /// value, and whether every episode came out the same.
    #[arg(long, value_delimiter = ',', requires = "eval_bench")]
    parallel: Vec<u32>,
    /// The benchmark for `--parallel` (as `sqale eval --bench`).
    #[arg(long)]
    eval_bench: Option<String>,
    /// Questions of that benchmark to run.
    #[arg(long, default_value_t = 8)]
    limit: usize,
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
    if let Some(spec) = &args.eval_bench {
        return parallel_bench(&args, spec);
    }
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
        "threads": args.model.hardware.threads,
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
            println!("episode      {} tool turns + final, {} tokens in context ({} generated)", e["tool_turns"], e["context_tokens"], e["generated_tokens"]);
            println!("  cached: each token decoded once   {:>8} tokens {:>8.2} s", e["cached_decoded_tokens"], e["cached_seconds"].as_f64().unwrap_or(0.0));
            println!("  re-decoding every turn            {:>8} tokens {:>8.2} s", e["redecode_decoded_tokens"], e["redecode_seconds"].as_f64().unwrap_or(0.0));
            println!("  re-decode / cached                {:>17.2}x", e["redecode_over_cached"].as_f64().unwrap_or(0.0));
            if let Some(l) = e.get("live") {
                println!("  live episodes: {}", l);
            }
        }
    }
    Ok(())
}

/// A six-tool-turn episode as a SQaLe model would play it on the demo database (thinking, then
/// calls), used to replay a realistic conversation through the real model.
const SIX_TURNS: &[&str] = &[
    "<think>\nThe question asks which supplier shipped the most back-ordered items last quarter. I do not know the schema yet, so I will list the tables first and then look at the ones about suppliers, shipments and orders.\n</think>\n\n{\"tool\": \"list_tables\", \"args\": {}}",
    "<think>\nThere are suppliers, shipments, orders and order_items tables. I need to know how they connect and where the back-ordered status lives. Let me describe orders and order_items.\n</think>\n\n{\"tool\": \"describe_table\", \"args\": {\"table_name\": \"orders\"}}\n{\"tool\": \"describe_table\", \"args\": {\"table_name\": \"order_items\"}}",
    "<think>\norders has a status column and order_items has shipment_id. I should check how suppliers reach order_items along the foreign keys.\n</think>\n\n{\"tool\": \"join_path\", \"args\": {\"table_a\": \"suppliers\", \"table_b\": \"order_items\"}}",
    "<think>\nI need the exact spelling of the back-ordered status value before filtering on it.\n</think>\n\n{\"tool\": \"distinct_values\", \"args\": {\"table_name\": \"orders\", \"column_name\": \"status\"}}",
    "<think>\nThe value is 'back-ordered'. The data seems to end in 2025, so last quarter is 2025 Q4. Let me try a first query joining suppliers, shipments, order_items and orders.\n</think>\n\n{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' GROUP BY su.name ORDER BY 2 DESC LIMIT 3\"}}",
    "<think>\nO'Brien Logistics leads clearly. I will confirm the quarter's upper bound and keep only the top supplier.\n</think>\n\n{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) AS n FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' AND o.order_date < '2026-01-01' GROUP BY su.supplier_id ORDER BY n DESC LIMIT 1\"}}",
    "<think>\nThe query ran and answers the question.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) AS n FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' AND o.order_date < '2026-01-01' GROUP BY su.supplier_id ORDER BY n DESC LIMIT 1\"}}",
];

/// What prompt caching saves on a six-tool-turn episode: the conversation of [`SIX_TURNS`] (tool
/// results from the real demo database, our prompt) is tokenised by the model and replayed twice
/// through the engine: each token decoded once (what sqale does: appended text in batches,
/// generated tokens one by one), and the whole conversation re-decoded from scratch before every
/// assistant turn (what a loop without a cache does). Sampling is left out of both.
/// With `--live`, also runs two real episodes to count decoded tokens against context length.
fn episode_bench(mut engine: Engine<'_>, args: &BenchArgs) -> anyhow::Result<serde_json::Value> {
    let db = super::db_or_demo(args.db.clone())?;
    let mut scripted = Agent::new(sqale::generate::ScriptedGenerator::new(SIX_TURNS.iter().copied()), Settings::default());
    let ep = scripted.run(&args.question, &db).context("scripted episode")?;
    let model = engine.model();
    let mut segments: Vec<(Vec<llama_cpp_2::token::LlamaToken>, bool)> = Vec::new();
    for (i, (text, generated)) in scripted.generator().segments().iter().enumerate() {
        segments.push((model.tokenize(text, i == 0), *generated));
    }
    let context: usize = segments.iter().map(|s| s.0.len()).sum();
    let generated: usize = segments.iter().filter(|s| s.1).map(|s| s.0.len()).sum();

    let decode_segment = |engine: &mut Engine<'_>, tokens: &[llama_cpp_2::token::LlamaToken], one_by_one: bool| -> anyhow::Result<()> {
        if one_by_one {
            for t in tokens {
                engine.decode(std::slice::from_ref(t))?;
            }
        } else {
            engine.decode(tokens)?;
        }
        Ok(())
    };
    engine.clear();
    let t = Instant::now();
    for (tokens, gen) in &segments {
        decode_segment(&mut engine, tokens, *gen)?;
    }
    let cached = t.elapsed().as_secs_f64();
    let cached_decoded = engine.counters().decoded_tokens;

    let t = Instant::now();
    let mut redecoded = 0;
    for (i, (tokens, gen)) in segments.iter().enumerate() {
        if !gen {
            continue;
        }
        engine.clear();
        let before: Vec<_> = segments[..i].iter().flat_map(|s| s.0.iter().copied()).collect();
        engine.decode(&before)?;
        decode_segment(&mut engine, tokens, true)?;
        redecoded += engine.counters().decoded_tokens;
    }
    let redecode = t.elapsed().as_secs_f64();

    let mut out = serde_json::json!({
        "question": args.question,
        "scripted_ended_by": ep.ended_by.as_str(),
        "tool_turns": ep.tool_turns,
        "turns": ep.turns.len(),
        "context_tokens": context,
        "generated_tokens": generated,
        "cached_decoded_tokens": cached_decoded,
        "redecode_decoded_tokens": redecoded,
        "cached_seconds": cached,
        "redecode_seconds": redecode,
        "redecode_over_cached": redecode / cached,
    });
    if args.live {
        engine.clear();
        let settings = Settings { seed: args.seed, max_episode_tokens: args.max_episode_tokens, ..Settings::default() };
        let mut agent = Agent::new(engine, settings);
        let first = agent.run(&args.question, &db).context("first live episode")?;
        let second = agent.run(&args.question, &db).context("second live episode")?;
        out["live"] = serde_json::json!({
            "first": {"ended_by": first.ended_by.as_str(), "turns": first.turns.len(), "context_tokens": first.tokens.context_tokens,
                      "decoded_tokens": first.tokens.decoded_tokens, "reused_tokens": first.tokens.reused_tokens, "seconds": first.seconds},
            "second": {"ended_by": second.ended_by.as_str(), "turns": second.turns.len(), "context_tokens": second.tokens.context_tokens,
                       "decoded_tokens": second.tokens.decoded_tokens, "reused_tokens": second.tokens.reused_tokens, "seconds": second.seconds},
        });
    }
    Ok(out)
}

/// One `--parallel` value's run of the benchmark.
#[derive(serde::Serialize)]
struct ParallelRun {
    parallel: u32,
    episodes: usize,
    seconds: f64,
    generated_tokens: usize,
    decoded_tokens: usize,
    episodes_per_minute: f64,
    generated_tokens_per_second: f64,
    peak_rss_bytes: Option<u64>,
    /// Against the first `--parallel` value.
    speedup: f64,
    /// Every episode equal (completions, calls, answer) to the first value's.
    same_episodes: bool,
}

/// Runs the same questions at each `--parallel` value through one loaded model.
fn parallel_bench(args: &BenchArgs, spec: &str) -> anyhow::Result<()> {
    anyhow::ensure!(!args.parallel.is_empty() && args.parallel.iter().all(|&n| (1..=64).contains(&n)), "--parallel takes values 1-64, e.g. --parallel 1,2,4,8");
    let questions = super::eval::load(spec, Some(args.limit), None, &Default::default(), args.json)?;
    let model = args.model.load()?;
    let limits = sqale::env::Limits::default();
    let settings = Settings { max_episode_tokens: args.max_episode_tokens, limits: limits.clone(), ..Settings::default() };
    let mut engine_options = args.model.engine_options();
    engine_options.ctx = sqale::eval::sequence_context(engine_options.ctx, args.max_episode_tokens);
    let mut gold = sqale::eval::GoldCache::new(limits);
    let scratch = tempfile::tempdir()?;
    let mut runs: Vec<ParallelRun> = Vec::new();
    let mut first: Option<Vec<serde_json::Value>> = None;
    for &n in &args.parallel {
        let results = scratch.path().join(format!("p{n}.jsonl"));
        sqale::memory::reset_peak();
        let mut engine = sqale::batched::BatchedEngine::new(&model, engine_options.clone(), n as usize)?;
        let t = Instant::now();
        sqale::eval::run(&mut engine, &settings, "bench", &questions, args.seed, &results, &mut gold, &mut |d, total, _| {
            if !args.json {
                eprint!("\r--parallel {n}: {d}/{total} episodes");
            }
        })?;
        let seconds = t.elapsed().as_secs_f64();
        if !args.json {
            eprintln!();
        }
        drop(engine);
        let mut recs = sqale::eval::read_records(&results);
        recs.sort_by(|a, b| a.id.cmp(&b.id));
        let episodes: Vec<serde_json::Value> = recs
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "sql": r.sql, "turns": r.turn_signature()}))
            .collect();
        let same = first.get_or_insert_with(|| episodes.clone()) == &episodes;
        let generated: usize = recs.iter().map(|r| r.generated_tokens).sum();
        let decoded: usize = recs.iter().map(|r| r.decoded_tokens).sum();
        let eps = recs.iter().filter(|r| r.episode.is_some()).count();
        let base = runs.first().map(|r| r.seconds).unwrap_or(seconds);
        runs.push(ParallelRun {
            parallel: n,
            episodes: eps,
            seconds,
            generated_tokens: generated,
            decoded_tokens: decoded,
            episodes_per_minute: eps as f64 * 60.0 / seconds,
            generated_tokens_per_second: generated as f64 / seconds,
            peak_rss_bytes: sqale::memory::peak_bytes(),
            speedup: base / seconds,
            same_episodes: same,
        });
    }
    let params = model.n_params();
    let decoded_per_q = runs.first().map(|r| r.decoded_tokens as f64 / r.episodes.max(1) as f64).unwrap_or(0.0);
    let report = serde_json::json!({
        "model": model.path().display().to_string(),
        "params": params,
        "benchmark": spec,
        "questions": questions.len(),
        "max_episode_tokens": args.max_episode_tokens,
        "runs": runs,
        "decoded_tokens_per_question": decoded_per_q,
        // Forward-pass compute per question: 2 FLOPs per parameter per decoded token.
        "tflops_per_question": 2.0 * params as f64 * decoded_per_q / 1e12,
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("model {} ({} params), {} questions from {spec}, episodes of at most {} tokens", model.path().display(), params, questions.len(), args.max_episode_tokens);
    println!("{:>9} {:>9} {:>10} {:>12} {:>14} {:>12} {:>9} {:>6}", "parallel", "episodes", "seconds", "episodes/min", "gen tokens/s", "peak MiB", "speedup", "same");
    for r in &runs {
        println!(
            "{:>9} {:>9} {:>10.1} {:>12.2} {:>14.1} {:>12.0} {:>8.2}x {:>6}",
            r.parallel,
            r.episodes,
            r.seconds,
            r.episodes_per_minute,
            r.generated_tokens_per_second,
            r.peak_rss_bytes.unwrap_or(0) as f64 / (1 << 20) as f64,
            r.speedup,
            if r.same_episodes { "yes" } else { "NO" }
        );
    }
    println!("compute per question: 2 x {params} params x {decoded_per_q:.0} decoded tokens = {:.4} TFLOPs", 2.0 * params as f64 * decoded_per_q / 1e12);
    Ok(())
}
