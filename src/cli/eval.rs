//! `sqale eval`: run models over a benchmark and report execution accuracy; `sqale eval score`:
//! score predictions made elsewhere with the same scorer.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sqale::agent::{Agent, Settings};
use sqale::engine::Engine;
use sqale::eval::{self, bench, report, GoldCache};

/// Arguments of `sqale eval`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    sub: Option<EvalSub>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum EvalSub {
    /// Score predictions (`{"id", "sql"}` per line) made by another system.
    Score(ScoreArgs),
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Benchmark: a JSONL manifest or a BIRD folder (dev.json + dev_databases/).
    #[arg(long)]
    bench: Option<PathBuf>,
    /// GGUF models to evaluate (repeat for several).
    #[arg(long = "model", short = 'm')]
    models: Vec<PathBuf>,
    /// First N questions only.
    #[arg(long)]
    limit: Option<usize>,
    /// Results folder (resumed if it exists).
    #[arg(long, short = 'o', default_value = "sqale-eval")]
    out: PathBuf,
    /// Run seed (each episode's seed derives from it and the question id).
    #[arg(long, default_value_t = 0)]
    seed: u32,
    /// Tokens an episode may hold.
    #[arg(long, default_value_t = 12_288)]
    max_episode_tokens: usize,
    /// Context window.
    #[arg(long, default_value_t = 16_384)]
    ctx: u32,
    /// Threads.
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Seconds a statement may run.
    #[arg(long, default_value_t = 5.0)]
    sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ScoreArgs {
    /// Benchmark: a JSONL manifest or a BIRD folder.
    #[arg(long)]
    bench: PathBuf,
    /// Predictions, one `{"id": ..., "sql": ...}` per line.
    #[arg(long)]
    predictions: PathBuf,
    /// Label for the predictions in the report.
    #[arg(long, default_value = "predictions")]
    label: String,
    /// Results folder.
    #[arg(long, short = 'o', default_value = "sqale-eval-score")]
    out: PathBuf,
    /// Seconds a statement may run.
    #[arg(long, default_value_t = 5.0)]
    sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    match args.sub {
        Some(EvalSub::Score(s)) => score(s),
        None => run_models(args.run),
    }
}

fn load(bench_path: &Path, limit: Option<usize>) -> anyhow::Result<Vec<bench::Question>> {
    let mut qs = bench::load(bench_path)?;
    if let Some(n) = limit {
        qs.truncate(n);
    }
    anyhow::ensure!(!qs.is_empty(), "{} holds no questions", bench_path.display());
    Ok(qs)
}

fn write_reports(out: &Path, json: bool) -> anyhow::Result<()> {
    let records = eval::read_records(&out.join("episodes.jsonl"));
    let summaries = report::summarise(&records);
    let pairs = report::paired(&records, &summaries);
    let md = report::markdown(&summaries, &pairs);
    write_atomic(&out.join("summary.md"), &md)?;
    write_atomic(&out.join("summary.csv"), &report::csv(&summaries))?;
    let j = serde_json::json!({"models": summaries, "paired": pairs});
    write_atomic(&out.join("summary.json"), &serde_json::to_string_pretty(&j)?)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!("{md}\nresults in {}", out.display());
    }
    Ok(())
}

fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::fs::write(tmp.path(), text)?;
    tmp.persist(path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn bar(total: usize, json: bool) -> ProgressBar {
    if json {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} EX {msg} ({elapsed}, ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

fn run_models(args: RunArgs) -> anyhow::Result<()> {
    let bench_path = args.bench.as_ref().context("--bench is required (a JSONL manifest or a BIRD folder)")?;
    anyhow::ensure!(!args.models.is_empty(), "give at least one --model file.gguf");
    let questions = load(bench_path, args.limit)?;
    std::fs::create_dir_all(&args.out)?;
    let results = args.out.join("episodes.jsonl");
    let limits = super::limits(args.sql_timeout)?;
    let mut gold = GoldCache::new(limits.clone());
    for path in &args.models {
        let label = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
        let model = sqale::engine::Model::load(path, &sqale::engine::ModelOptions::default())?;
        let options = sqale::engine::EngineOptions { ctx: args.ctx, threads: args.threads, ..Default::default() };
        let engine = Engine::new(&model, options)?;
        let settings = Settings { max_episode_tokens: args.max_episode_tokens, limits: limits.clone(), ..Settings::default() };
        let mut agent = Agent::new(engine, settings);
        let pb = bar(questions.len(), args.json);
        pb.set_prefix(label.clone());
        let already = eval::done_ids(&results, &label).len();
        pb.set_position(already.min(questions.len()) as u64);
        let (mut correct, mut scored) = (0usize, 0usize);
        eval::run(&mut agent, &label, &questions, args.seed, &results, &mut gold, &mut |_, _, r| {
            if r.gold_ok {
                scored += 1;
                correct += r.correct as usize;
            }
            pb.inc(1);
            pb.set_message(format!("{correct}/{scored}"));
        })?;
        pb.finish_and_clear();
    }
    write_reports(&args.out, args.json)
}

#[derive(serde::Deserialize)]
struct Prediction {
    id: serde_json::Value,
    sql: Option<String>,
}

fn score(args: ScoreArgs) -> anyhow::Result<()> {
    let questions = load(&args.bench, None)?;
    let text = std::fs::read_to_string(&args.predictions).with_context(|| format!("reading {}", args.predictions.display()))?;
    let mut preds = std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Prediction = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: expected {{\"id\": ..., \"sql\": ...}}", args.predictions.display(), i + 1))?;
        preds.insert(p.id.to_string().trim_matches('"').to_string(), p.sql);
    }
    std::fs::create_dir_all(&args.out)?;
    let results = args.out.join("episodes.jsonl");
    let _ = std::fs::remove_file(&results);
    let limits = super::limits(args.sql_timeout)?;
    let mut gold = GoldCache::new(limits.clone());
    let mut lines = String::new();
    for q in &questions {
        let sql = preds.get(&q.id).cloned().flatten();
        let r = eval::score_record(&args.label, q, sql.as_deref(), &mut gold, &limits);
        lines.push_str(&serde_json::to_string(&r)?);
        lines.push('\n');
    }
    write_atomic(&results, &lines)?;
    write_reports(&args.out, args.json)
}
