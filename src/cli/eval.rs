//! `sqale eval`: run models over a benchmark and report execution accuracy; `sqale eval score`:
//! score predictions made elsewhere with the same scorer.

use sqale::speculate::Speculate;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sqale::agent::Settings;
use sqale::defaults;
use sqale::engine::BatchedEngine;
use sqale::eval::results::{self, ModelEntry, Reports, ResultsDir, RunStats};
use sqale::eval::sqale::Phrasing;
use sqale::eval::subset::{self, SchemaCondition};
use sqale::eval::{self, predictions, source, GoldCache, Question, SourceError};

mod divergence;

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
    /// Join the results folders of shards (`--shard i/n`) into one, and report.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// Results folders to join.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output folder.
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub(super) struct RunArgs {
    /// Benchmark: a JSONL manifest (`id, db, question, evidence?, gold_sql, difficulty?`), a
    /// BIRD folder (dev.json + dev_databases/), an EHRSQL-style .json file, or `sqale` /
    /// `sqale:QUERIES,SCHEMAS` (Hugging Face dataset ids or local parquet files/folders; the
    /// databases are built once into the cache).
    #[arg(long)]
    bench: Option<String>,
    /// SQaLe: which of the eight phrasings to ask, by number (1-8) or style name.
    #[arg(long, default_value = "1")]
    phrasing: Phrasing,
    /// GGUF models to evaluate (repeat for several).
    #[arg(long = "model", short = 'm')]
    models: Vec<PathBuf>,
    /// A full-precision reference (bf16/f16/f32 GGUF): it plays each episode first, and every
    /// `--model` is then teacher-forced along the reference's exact token sequence and its
    /// distributions compared with the reference's at every generated token (KL divergence,
    /// top-1 agreement; docs/evaluation.md, "Divergence from a reference").
    #[arg(long)]
    reference: Option<PathBuf>,
    /// The reference on inference servers instead (vLLM, for its `prompt_logprobs`; repeatable):
    /// e.g. bf16 on a GPU server against quantised files here. `--api-key-file`,
    /// `--server-kind` and `--server-timeout` apply to them too.
    #[arg(long = "reference-server", conflicts_with = "reference")]
    reference_servers: Vec<String>,
    /// Reference log-probabilities kept per generated token (the KLD is exact over them plus one
    /// bucket for the rest of the vocabulary, a lower bound of the full figure).
    #[arg(long, default_value_t = sqale::defaults::KLD_TOP_K, value_parser = clap::value_parser!(u32).range(1..))]
    kld_top_k: u32,
    /// With `--reference`: measure the models' divergence only, without playing their own
    /// episodes (no EX of theirs).
    #[arg(long)]
    kld_only: bool,
    /// Also (or only) evaluate the model served by these inference servers (`--server URL`,
    /// repeatable): one more model in the report, side by side with the local ones.
    #[command(flatten)]
    server: super::ServerArgs,
    #[command(flatten)]
    sampling: super::SamplingArgs,
    /// First N questions only.
    #[arg(long)]
    limit: Option<usize>,
    /// Run only shard i of n (`2/4`): every n-th question, for splitting a benchmark across
    /// machines; join the folders with `sqale eval merge`.
    #[arg(long, value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Results folder (resumed if it exists).
    #[arg(long, short = 'o', default_value = "sqale-eval")]
    out: PathBuf,
    /// Run seed (each episode's seed derives from it and the question id).
    #[arg(long, default_value_t = 0)]
    seed: u32,
    /// Tokens an episode may hold.
    #[arg(long, default_value_t = defaults::MAX_EPISODE_TOKENS)]
    max_episode_tokens: usize,
    /// Context window.
    #[arg(long, default_value_t = defaults::CONTEXT_TOKENS)]
    ctx: u32,
    #[command(flatten)]
    hardware: super::HardwareArgs,
    /// Schema size: the whole database (`full`), only the gold query's tables (`gold`), or
    /// those grown along foreign keys by N more (`distractors:N`). Cut databases are copies,
    /// cached in the results folder; the benchmark's files are never written.
    #[arg(long, default_value = "full")]
    schema: SchemaCondition,
    /// Episodes run at once, as sequences of one llama.cpp context decoded in shared batches
    /// (results do not depend on it; see docs/evaluation.md, "Many episodes at once").
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    parallel: u32,
    /// Speculative decoding: `auto` (prompt lookup, plus the MTP head at `--parallel 1`, where
    /// drafts cannot change a token: on batch-invariant kernels, see `sqale info`; plain
    /// decoding elsewhere), `off`, `lookup` (each sequence for itself), `mtp` or `both`
    /// (`--parallel 1` only). On other kernels the explicit modes may change tokens (docs/speculative-decoding.md).
    #[arg(long, default_value_t = Speculate::Auto)]
    speculate: Speculate,
    /// Longest draft one verify step checks.
    #[arg(long, default_value_t = sqale::defaults::MAX_DRAFT_TOKENS)]
    max_draft: usize,
    /// Seconds a statement may run.
    #[arg(long, default_value_t = defaults::SQL_TIMEOUT_SECONDS)]
    sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct ScoreArgs {
    /// Benchmark, as for `sqale eval --bench`.
    #[arg(long)]
    bench: String,
    /// SQaLe: which phrasing the predictions answered.
    #[arg(long, default_value = "1")]
    phrasing: Phrasing,
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
    #[arg(long, default_value_t = defaults::SQL_TIMEOUT_SECONDS)]
    sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    match args.sub {
        Some(EvalSub::Score(s)) => score(s),
        Some(EvalSub::Merge(m)) => merge(m),
        None => run_models(args.run),
    }
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let err = || format!("--shard takes i/n with 1 <= i <= n, e.g. 2/4; got {s:?}");
    let (i, n) = s.split_once('/').ok_or_else(err)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| err())?, n.trim().parse().map_err(|_| err())?);
    if i == 0 || i > n {
        return Err(err());
    }
    Ok((i, n))
}

fn merge(args: MergeArgs) -> anyhow::Result<()> {
    results::merge(&args.inputs, &args.out)?;
    print_reports(&args.out, args.json)
}

/// The benchmark `spec` names, with `--limit` and `--shard` applied and a progress bar while
/// databases are built.
pub(super) fn load(
    spec: &str,
    limit: Option<usize>,
    shard: Option<(usize, usize)>,
    phrasing: &Phrasing,
    json: bool,
) -> anyhow::Result<Vec<Question>> {
    let pb = if json { ProgressBar::hidden() } else { spinner_bar(0, "building databases") };
    let mut progress = |done: usize, total: usize| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    };
    let mut options = source::LoadOptions {
        limit,
        shard,
        phrasing: phrasing.clone(),
        cache: sqale::cache::root().join("benchmarks"),
        progress: &mut progress,
    };
    let qs = source::open(spec, &mut options).map_err(|e| match e {
        // The library names the formats; the command line adds where they are described.
        SourceError::Unknown(_) => anyhow::anyhow!("{e}; see `sqale eval --help`"),
        e => e.into(),
    })?;
    pb.finish_and_clear();
    anyhow::ensure!(!qs.is_empty(), "{spec} holds no questions (after --limit and --shard)");
    Ok(qs)
}

/// Writes the reports of `out` and prints the summary (Markdown, or JSON with `--json`).
fn print_reports(out: &Path, json: bool) -> anyhow::Result<()> {
    let Reports { summary, markdown } = results::write_reports(out)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!("{markdown}\nresults in {}", out.display());
    }
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

/// One model's progress bar and the counts of its run.
struct Tally {
    pb: ProgressBar,
    run: RunStats,
    correct: usize,
    scored: usize,
    failed: usize,
}

impl Tally {
    /// A bar for `label` over `total` questions, starting at those already in `out`.
    fn new(label: &str, total: usize, out: &ResultsDir, args: &RunArgs) -> Self {
        let pb = bar(total, args.json);
        pb.set_prefix(label.to_string());
        pb.set_position(eval::done_ids(&out.episodes(), label).len().min(total) as u64);
        let run = RunStats { parallel: args.parallel, ..RunStats::default() };
        Tally { pb, run, correct: 0, scored: 0, failed: 0 }
    }

    /// Counts a finished record: EX so far, and episodes that failed on a server.
    fn count(&mut self, r: &eval::Record) {
        if r.error.is_some() {
            self.failed += 1;
        } else if r.gold_ok {
            self.scored += 1;
            self.correct += r.correct as usize;
        }
        self.run.count(r);
        self.pb.inc(1);
        let (c, n) = (self.correct, self.scored);
        self.pb.set_message(if self.failed > 0 {
            format!("{c}/{n}, {} failed", self.failed)
        } else {
            format!("{c}/{n}")
        });
    }

    /// The run's stats, timed from `started`, with the process's peak memory.
    fn finish(self, started: std::time::Instant) -> RunStats {
        self.pb.finish_and_clear();
        RunStats { seconds: started.elapsed().as_secs_f64(), peak_rss_bytes: sqale::memory::peak_bytes(), ..self.run }
    }
}

fn spinner_bar(total: usize, prefix: &str) -> ProgressBar {
    let pb = ProgressBar::new(total as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_prefix(prefix.to_string());
    pb
}

fn run_models(args: RunArgs) -> anyhow::Result<()> {
    let spec = args
        .bench
        .as_deref()
        .context("--bench is required (a JSONL manifest, a BIRD folder, an EHRSQL file or sqale)")?;
    anyhow::ensure!(
        !args.models.is_empty() || args.server.any() || args.reference.is_some(),
        "give at least one --model file.gguf, --reference file.gguf or --server URL"
    );
    let remote_reference = !args.reference_servers.is_empty();
    anyhow::ensure!(
        !args.kld_only || args.reference.is_some() || remote_reference,
        "--kld-only measures divergence from a reference: give --reference file.gguf or --reference-server URL"
    );
    anyhow::ensure!(
        !remote_reference || !args.models.is_empty(),
        "--reference-server measures local models against the served reference: give at least one --model file.gguf"
    );
    let reference_pool =
        if remote_reference { Some(args.server.pool_of(&args.reference_servers, args.json)?) } else { None };
    // Servers are probed before any work, so that a wrong URL or key fails at once.
    let pool = if args.server.any() { Some(args.server.pool(args.json)?) } else { None };
    let mut questions = load(spec, args.limit, args.shard, &args.phrasing, args.json)?;
    let out = ResultsDir::create(&args.out)?;
    let limits = super::limits(args.sql_timeout)?;
    let mut gold = GoldCache::new(limits.clone());
    if args.schema != SchemaCondition::Full {
        let pb = if args.json {
            ProgressBar::hidden()
        } else {
            spinner_bar(questions.len(), &format!("schema {}", args.schema))
        };
        subset::apply(&mut questions, args.schema, args.seed, &mut gold, &out.databases(), &mut |_, _| pb.inc(1))?;
        pb.finish_and_clear();
    }
    let ctx = eval::sequence_context(args.ctx, args.max_episode_tokens);
    let reference = match (&args.reference, reference_pool) {
        (Some(path), _) => Some(divergence::play_reference(&args, path, ctx, &questions, &out, &limits, &mut gold)?),
        (None, Some(pool)) => {
            Some(divergence::play_remote_reference(&args, pool, &questions, &out, &limits, &mut gold)?)
        }
        (None, None) => None,
    };
    for path in &args.models {
        let label = results::model_label(path, args.schema);
        sqale::memory::reset_peak();
        let started = std::time::Instant::now();
        let model = sqale::engine::Model::load(path, &args.hardware.model_options(false))?;
        if let Some(r) = &reference {
            // A model that can't be compared fails before its episodes are played.
            r.info.check(&model, &label)?;
        }
        if !args.kld_only {
            let mut engine = BatchedEngine::new(&model, engine_options(&args, ctx), args.parallel as usize)?;
            let mut tally = Tally::new(&label, questions.len(), &out, &args);
            eval::run(
                &mut engine,
                &settings(&args, &limits),
                &label,
                &questions,
                args.seed,
                &out.episodes(),
                &mut gold,
                &mut |_, _, r| tally.count(r),
            )?;
            let run = tally.finish(started);
            out.record_model(&label, ModelEntry::new(path, model.n_params(), run))?;
        }
        if let Some(r) = &reference {
            divergence::measure(&args, &model, &label, ctx, r)?;
        }
    }
    if let Some(pool) = &pool {
        run_remote(&args, pool, &questions, &out, &limits, &mut gold)?;
    }
    print_reports(out.path(), args.json)
}

/// The engine options of a local model's episodes.
fn engine_options(args: &RunArgs, ctx: u32) -> sqale::engine::EngineOptions {
    sqale::engine::EngineOptions {
        ctx,
        threads: args.hardware.threads,
        temperature: args.sampling.temp,
        top_p: args.sampling.top_p,
        top_k: args.sampling.top_k,
        speculate: args.speculate,
        max_draft: args.max_draft,
        ..Default::default()
    }
}

/// The agent's settings of every episode of the run.
fn settings(args: &RunArgs, limits: &sqale::env::Limits) -> Settings {
    Settings { max_episode_tokens: args.max_episode_tokens, limits: limits.clone(), ..Settings::default() }
}

/// The model on `--server`: `--parallel` episodes in flight across the servers.
fn run_remote(
    args: &RunArgs,
    pool: &sqale::remote::Pool,
    questions: &[Question],
    out: &ResultsDir,
    limits: &sqale::env::Limits,
    gold: &mut GoldCache,
) -> anyhow::Result<()> {
    let label = match args.schema {
        SchemaCondition::Full => pool.label(),
        other => format!("{} @{other}", pool.label()),
    };
    sqale::memory::reset_peak();
    let started = std::time::Instant::now();
    let settings = settings(args, limits);
    let mut tally = Tally::new(&label, questions.len(), out, args);
    eval::remote::run(
        pool,
        args.sampling.remote(),
        args.parallel as usize,
        &settings,
        &label,
        questions,
        args.seed,
        &out.episodes(),
        gold,
        None,
        &mut |_, _, r| tally.count(r),
    )?;
    let failed = tally.failed;
    let run = tally.finish(started);
    let servers = pool.servers().into_iter().cloned().collect();
    out.record_model(&label, ModelEntry::remote(servers, run))?;
    if failed > 0 {
        eprintln!("{failed} episodes failed on the servers (recorded with their error, not scored): run the same command again to play them");
    }
    Ok(())
}

fn score(args: ScoreArgs) -> anyhow::Result<()> {
    let questions = load(&args.bench, None, None, &args.phrasing, args.json)?;
    let preds = predictions::read(&args.predictions)?;
    let out = ResultsDir::create(&args.out)?;
    let records = predictions::score_all(&args.label, &questions, &preds, &super::limits(args.sql_timeout)?);
    out.write_records(&records)?;
    print_reports(out.path(), args.json)
}
