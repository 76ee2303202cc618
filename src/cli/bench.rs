//! `sqale bench`: prefill and decode speed through sqale's own engine (comparable with
//! llama.cpp's `llama-bench` pp/tg), what prompt caching saves over a real episode, and a
//! benchmark's throughput at several `--parallel` values. The measuring is [`sqale::bench`]'s.

use std::path::PathBuf;

use clap::Args;
use sqale::bench::{self, BenchError, LiveSettings, ParallelReport, ParallelSetup, SpeedReport, SpeedSizes};
use sqale::engine::Engine;
use sqale::generate::GenerateError;

use super::ModelArgs;

/// Arguments of `sqale bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Prompt tokens decoded in one go (like llama-bench -p).
    #[arg(long, default_value_t = bench::speed::PROMPT_TOKENS)]
    pp: usize,
    /// Tokens decoded one at a time (like llama-bench -n).
    #[arg(long, default_value_t = bench::speed::GENERATED_TOKENS)]
    tg: usize,
    /// Timed repetitions (after one warm-up).
    #[arg(long, default_value_t = bench::speed::REPETITIONS, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Also replay a six-tool-turn episode with and without the prompt cache.
    #[arg(long)]
    episode: bool,
    /// Question for the episode.
    #[arg(long, default_value = bench::replay::QUESTION)]
    question: String,
    /// Database for the episode (default: the demo database).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Also run two live episodes (sampling) and report their token counts.
    #[arg(long)]
    live: bool,
    /// Token budget of the live episodes.
    #[arg(long, default_value_t = sqale::defaults::MAX_EPISODE_TOKENS)]
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

/// Prints a report as pretty JSON, through a `Value` so that keys come sorted, as they always have.
fn print_json(report: &impl serde::Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(&serde_json::to_value(report)?)?);
    Ok(())
}

/// A library error, with the flags that lead to it named where that helps.
fn hint(e: BenchError) -> anyhow::Error {
    let hint = match &e {
        BenchError::Parallel(_) => "--parallel takes values 1-64, e.g. --parallel 1,2,4,8",
        BenchError::Decode(GenerateError::ContextFull { .. }) => {
            "the measurement does not fit the context window: raise --ctx (or lower --pp, --tg)"
        }
        _ => return e.into(),
    };
    anyhow::Error::new(e).context(hint)
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if let Some(spec) = &args.eval_bench {
        return parallel(&args, spec);
    }
    let model = args.model.load()?;
    let options = args.model.engine_options();
    let mut engine = Engine::new(&model, options.clone())?;
    let sizes = SpeedSizes { pp: args.pp, tg: args.tg, reps: args.reps };
    let mut report = bench::speed(&mut engine, &options, sizes, &mut |rep, reps| {
        if !args.json {
            eprint!("\rrep {rep}/{reps}");
        }
    })
    .map_err(hint)?;
    if !args.json {
        eprintln!();
    }
    if args.episode {
        let db = super::db_or_demo(args.db.clone())?;
        let live = args.live.then_some(LiveSettings { seed: args.seed, max_episode_tokens: args.max_episode_tokens });
        report.episode = Some(bench::replay(&mut engine, &args.question, &db, live).map_err(hint)?);
    }
    if args.json {
        return print_json(&report);
    }
    print_speed(&report)
}

fn print_speed(r: &SpeedReport) -> anyhow::Result<()> {
    println!("model        {}", r.model);
    println!("pp{:<10} {:>8.1} ± {:.1} tokens/s", r.pp_tokens, r.pp_tps_mean, r.pp_tps_sd);
    println!("tg{:<10} {:>8.1} ± {:.1} tokens/s", r.tg_tokens, r.tg_tps_mean, r.tg_tps_sd);
    if let Some(e) = &r.episode {
        println!(
            "episode      {} tool turns + final, {} tokens in context ({} generated)",
            e.tool_turns, e.context_tokens, e.generated_tokens
        );
        // The token counts print unpadded, as they always have.
        println!("  cached: each token decoded once   {} tokens {:>8.2} s", e.cached_decoded_tokens, e.cached_seconds);
        println!(
            "  re-decoding every turn            {} tokens {:>8.2} s",
            e.redecode_decoded_tokens, e.redecode_seconds
        );
        println!("  re-decode / cached                {:>17.2}x", e.redecode_over_cached);
        if let Some(l) = &e.live {
            println!("  live episodes: {}", serde_json::to_value(l)?);
        }
    }
    Ok(())
}

/// Runs the same questions at each `--parallel` value through one loaded model.
fn parallel(args: &BenchArgs, spec: &str) -> anyhow::Result<()> {
    bench::check_values(&args.parallel).map_err(hint)?;
    let questions = super::eval::load(spec, Some(args.limit), None, &Default::default(), args.json)?;
    let model = args.model.load()?;
    let setup = ParallelSetup {
        benchmark: spec.to_string(),
        values: args.parallel.clone(),
        seed: args.seed,
        max_episode_tokens: args.max_episode_tokens,
    };
    let report = bench::parallel(&model, args.model.engine_options(), &questions, &setup, &mut |n, done, total| {
        if !args.json {
            eprint!("\r--parallel {n}: {done}/{total} episodes");
            if done == total {
                eprintln!();
            }
        }
    })
    .map_err(hint)?;
    if args.json {
        return print_json(&report);
    }
    print_parallel(&report);
    Ok(())
}

fn print_parallel(r: &ParallelReport) {
    println!(
        "model {} ({} params), {} questions from {}, episodes of at most {} tokens",
        r.model, r.params, r.questions, r.benchmark, r.max_episode_tokens
    );
    println!(
        "{:>9} {:>9} {:>10} {:>12} {:>14} {:>12} {:>9} {:>6}",
        "parallel", "episodes", "seconds", "episodes/min", "gen tokens/s", "peak MiB", "speedup", "same"
    );
    for run in &r.runs {
        println!(
            "{:>9} {:>9} {:>10.1} {:>12.2} {:>14.1} {:>12.0} {:>8.2}x {:>6}",
            run.parallel,
            run.episodes,
            run.seconds,
            run.episodes_per_minute,
            run.generated_tokens_per_second,
            run.peak_rss_bytes.unwrap_or(0) as f64 / (1 << 20) as f64,
            run.speedup,
            if run.same_episodes { "yes" } else { "NO" }
        );
    }
    println!(
        "compute per question: 2 x {} params x {:.0} decoded tokens = {:.4} TFLOPs",
        r.params, r.decoded_tokens_per_question, r.tflops_per_question
    );
}
