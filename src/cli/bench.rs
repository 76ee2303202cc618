//! `sqale bench`: prefill and decode speed through sqale's own engine (comparable with
//! llama.cpp's `llama-bench` pp/tg), what prompt caching and speculative decoding save over a
//! real episode, what speculative decoding can gain at best (`--speculation`), and a benchmark's
//! throughput at several `--parallel` values. The measuring is [`sqale::bench`]'s.

use std::path::PathBuf;

use clap::Args;
use sqale::bench::{
    self, BenchError, LiveSettings, ParallelReport, ParallelSetup, SpeculationReport, SpeculationSetup, SpeedReport,
    SpeedSizes,
};
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
    /// Also replay a six-tool-turn episode with and without the prompt cache, and with
    /// speculation off and on (`--speculate`'s mode).
    #[arg(long)]
    episode: bool,
    /// Also measure speculative decoding: the verify cost of k = 1..8 draft tokens against a
    /// plain step, the oracle ceiling (a drafter that knows the plain run's `--tg` tokens, same
    /// `--seed`) and the speed-up the cost curve predicts at 50/70/90 % acceptance.
    #[arg(long)]
    speculation: bool,
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
    /// Seed for the episode and the speculation runs.
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
    /// Measure decode speed idle and with 1..=N other threads spinning on the CPUs (a busy
    /// machine), each level against idle in the same run.
    #[arg(long, value_name = "N")]
    busy: Option<usize>,
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
    let mut options = args.model.engine_options();
    // The replay decodes known text (no sampling), where speculation is exact at any
    // temperature: `auto` drafts with everything the file allows.
    if options.speculate == sqale::speculate::Speculate::Auto {
        options.speculate =
            if model.has_mtp_head() { sqale::speculate::Speculate::Both } else { sqale::speculate::Speculate::Lookup };
    }
    let mut engine = Engine::new(&model, options.clone())?;
    let sizes = SpeedSizes { pp: args.pp, tg: args.tg, reps: args.reps };
    if let Some(n) = args.busy {
        let report = bench::busy(&mut engine, &options, sizes, n, &mut |level| {
            if !args.json {
                eprintln!("{level} busy thread(s)");
            }
        })
        .map_err(hint)?;
        if args.json {
            return print_json(&report);
        }
        return print_busy(&report);
    }
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
        let mut episode = bench::replay(&mut engine, &args.question, &db, live).map_err(hint)?;
        if !args.json {
            eprintln!("episode: speculation off and on");
        }
        episode.speculation =
            Some(bench::replay_speculation(&mut engine, bench::SIX_TURNS, &args.question, &db).map_err(hint)?);
        report.episode = Some(episode);
    }
    if args.speculation {
        // One context at a time: the measurements make their own.
        drop(engine);
        let setup =
            SpeculationSetup { question: args.question.clone(), tokens: args.tg, reps: args.reps, seed: args.seed };
        let spec = bench::speculation(&model, &options, &setup, &mut |step| {
            if !args.json {
                eprint!("\r{step:<40}");
            }
        })
        .map_err(hint)?;
        if !args.json {
            eprintln!();
        }
        report.speculation = Some(spec);
    }
    if args.json {
        return print_json(&report);
    }
    print_speed(&report)
}

fn print_busy(r: &bench::BusyReport) -> anyhow::Result<()> {
    let t = &r.threading;
    let policy = t.omp_wait_policy.as_deref().map(|p| format!(", OMP_WAIT_POLICY={p}")).unwrap_or_default();
    println!("model        {}", r.model);
    println!("threads      {} of {} CPUs ({}{policy})", r.threads, r.cpus, t.pool);
    println!("{:>5} {:>12} {:>18} {:>10}", "busy", "pp tokens/s", "tg tokens/s", "tg / idle");
    for l in &r.levels {
        println!(
            "{:>5} {:>12.1} {:>11.1} ± {:<4.1} {:>10.2}",
            l.busy, l.pp_tps, l.tg_tps_mean, l.tg_tps_sd, l.tg_over_idle
        );
    }
    Ok(())
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
        if let Some(s) = &e.speculation {
            println!(
                "  speculation off                   {} generated {:>8.2} s (generated tokens {:.2} s)",
                s.generated_tokens, s.off_seconds, s.generated_off_seconds
            );
            println!(
                "  speculation {:<8}              {} generated {:>8.2} s (generated tokens {:.2} s)",
                s.speculate.to_string(),
                s.generated_tokens,
                s.on_seconds,
                s.generated_on_seconds
            );
            println!("  off / on                          {:>17.2}x", s.off_over_on);
            let l = &s.counts.lookup;
            println!(
                "  lookup: {} steps, {} drafted, {} accepted ({:.1} %), {:.2} tokens per verify step",
                l.steps,
                l.drafted,
                l.accepted,
                100.0 * s.lookup_acceptance,
                s.lookup_tokens_per_step
            );
            if s.counts.replays > 0 {
                println!("  sequence rebuilds after rejected drafts: {}", s.counts.replays);
            }
        }
    }
    if let Some(s) = &r.speculation {
        print_speculation(s);
    }
    Ok(())
}

fn print_speculation(s: &SpeculationReport) {
    let c = &s.cost;
    println!(
        "verify cost  after {} tokens of agent prompt, drafts all {} ({} kept by chance), {} reps",
        c.context_tokens, c.drafts, c.drafts_accepted, s.reps
    );
    println!("  plain step {:.2} ms", 1e3 * c.plain_seconds);
    println!("  {:>3} {:>5} {:>11} {:>10} {:>18}", "k", "rows", "verify ms", "plain ms", "cost(k+1)/cost(1)");
    for row in &c.rows {
        println!(
            "  {:>3} {:>5} {:>11.2} {:>10.2} {:>18.2}",
            row.k,
            row.rows,
            1e3 * row.verify_seconds,
            1e3 * row.plain_seconds,
            row.relative_cost
        );
    }
    if c.replays > 0 {
        println!("  sequence rebuilds after rejected drafts: {}", c.replays);
    }
    let o = &s.oracle;
    println!(
        "oracle       {} tokens after a {}-token prompt, seed {}, temperature {}: plain {:.1} tokens/s ({:.2} ± {:.2} s){}",
        o.generated_tokens,
        o.prompt_tokens,
        o.seed,
        o.temperature,
        o.plain_tokens_per_second,
        o.plain_seconds,
        o.plain_seconds_sd,
        if o.plain_repeatable { "" } else { ", plain runs DIFFER" }
    );
    println!(
        "  {:>3} {:>9} {:>9} {:>11} {:>12} {:>10}",
        "k", "tokens/s", "speed-up", "acceptance", "tokens/step", "identical"
    );
    for run in &o.runs {
        println!(
            "  {:>3} {:>9.1} {:>8.2}x {:>10.1}% {:>12.2} {:>10}",
            run.k,
            run.tokens_per_second,
            run.speedup,
            100.0 * run.acceptance,
            run.tokens_per_step,
            if run.identical { "yes" } else { "NO" }
        );
    }
    println!("expected     from the cost curve");
    println!(
        "  {:>10} {:>6} {:>12} {:>6} {:>9} {:>9}",
        "acceptance", "best k", "tokens/step", "cost", "speed-up", "planner k"
    );
    for e in &s.expected {
        println!(
            "  {:>9.0}% {:>6} {:>12.2} {:>6.2} {:>8.2}x {:>9}",
            100.0 * e.acceptance,
            e.best_k,
            e.tokens_per_step,
            e.relative_cost,
            e.speedup,
            e.planner_k
        );
    }
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
