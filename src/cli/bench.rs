//! `sqale bench`: prefill and decode speed through sqale's own engine (comparable with
//! llama.cpp's `llama-bench` pp/tg), what prompt caching and speculative decoding save over a
//! real episode, what speculative decoding can gain at best (`--speculation`), and a benchmark's
//! throughput at several `--parallel` values. The measuring is [`sqale::bench`]'s.

use std::path::PathBuf;

use clap::Args;
use sqale::bench::{self, BenchError, LiveSettings, ParallelSetup, SpeculationSetup, SpeedSizes};
use sqale::engine::Engine;
use sqale::generate::GenerateError;

use super::progress::{plain, Lines, EVERY};
use super::ModelArgs;

mod print;

/// Arguments of `sqale bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Prompt tokens decoded in one go (like llama-bench -p).
    #[arg(long, default_value_t = bench::speed::PROMPT_TOKENS)]
    pp: usize,
    /// Tokens decoded one at a time (like llama-bench -n).
    #[arg(long, default_value_t = bench::speed::GENERATED_TOKENS)]
    tg: usize,
    /// Timed repetitions (after one warm-up).
    #[arg(long, default_value_t = bench::speed::REPETITIONS, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Measure with this many tokens already in the context, as llama-bench's -d (each
    /// repetition decodes them first, untimed); several, comma-separated: 0,2048,8192.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    depth: Vec<usize>,
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
            "the measurement does not fit the context window: raise --ctx (or lower --depth, --pp, --tg)"
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
    let options = bench::engine_options(&model, &args.model.engine.engine_options());
    let mut engine = Engine::new(&model, options.clone())?;
    let sizes = SpeedSizes { pp: args.pp, tg: args.tg, reps: args.reps, depth: 0 };
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
        print::busy(&report);
        return Ok(());
    }
    // When stderr is not a terminal, plain lines instead of a count redrawn in place.
    let mut lines = plain(args.json).then(|| Lines::new(EVERY));
    let mut report =
        bench::speed_at_depths(&mut engine, &options, sizes, &args.depth, &mut |depth, rep, reps| match &mut lines {
            Some(l) => l.say(&format!("depth {depth}"), rep, reps, "reps"),
            None if !args.json => eprint!("\rdepth {depth}: rep {rep}/{reps}   "),
            None => {}
        })
        .map_err(hint)?;
    if !args.json && lines.is_none() {
        eprintln!();
    }
    if args.episode {
        let db = super::db_or_demo(args.db.clone())?;
        let live = args.live.then_some(LiveSettings { seed: args.seed, max_episode_tokens: args.max_episode_tokens });
        // Each part's turns (or live episodes) as they end: plain lines, or a count redrawn in place.
        let mut on_step = |step: bench::ReplayStep| match &mut lines {
            Some(l) => l.say(&format!("episode {}", step.what), step.done as u64, step.total as u64, "turns"),
            None if !args.json => eprint!("\repisode {}: {}/{}        ", step.what, step.done, step.total),
            None => {}
        };
        let mut episode = bench::replay(&mut engine, &args.question, &db, live, &mut on_step).map_err(hint)?;
        let speculation = bench::replay_speculation(&mut engine, bench::SIX_TURNS, &args.question, &db, &mut on_step);
        episode.speculation = Some(speculation.map_err(hint)?);
        if !args.json && lines.is_none() {
            eprintln!();
        }
        report.episode = Some(episode);
    }
    if args.speculation {
        // One context at a time: the measurements make their own.
        drop(engine);
        let setup =
            SpeculationSetup { question: args.question.clone(), tokens: args.tg, reps: args.reps, seed: args.seed };
        let spec = bench::speculation(&model, &options, &setup, &mut |step| match &lines {
            Some(_) => eprintln!("{}", sqale::printable::escape_line(step)),
            None if !args.json => eprint!("\r{step:<40}"),
            None => {}
        })
        .map_err(hint)?;
        if !args.json && lines.is_none() {
            eprintln!();
        }
        report.speculation = Some(spec);
    }
    if args.json {
        return print_json(&report);
    }
    print::speed(&report)
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
    let mut lines = plain(args.json).then(|| Lines::new(EVERY));
    let report =
        bench::parallel(&model, args.model.engine.engine_options(), &questions, &setup, &mut |n, done, total| {
            match &mut lines {
                Some(l) => l.say(&format!("--parallel {n}"), done as u64, total as u64, "episodes"),
                None if !args.json => {
                    eprint!("\r--parallel {n}: {done}/{total} episodes");
                    if done == total {
                        eprintln!();
                    }
                }
                None => {}
            }
        })
        .map_err(hint)?;
    if args.json {
        return print_json(&report);
    }
    print::parallel(&report);
    Ok(())
}
