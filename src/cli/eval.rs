//! `sqale eval`: run models over a benchmark and report execution accuracy (the study is
//! [`sqale::eval::study`]'s; here are its flags, its progress and its printing); `sqale eval
//! score`: score predictions made elsewhere with the same scorer; `sqale eval merge`: join shards.

use std::path::Path;

use anyhow::Context;
use clap::{Args, Subcommand};
use sqale::eval::parquet_pair::Phrasing;
use sqale::eval::results::{self, Reports, ResultsDir};
use sqale::eval::study::StudyError;
use sqale::eval::{predictions, source, Question, Study};

mod args;
mod progress;

use args::{CompareArgs, MergeArgs, RunArgs, ScoreArgs};

/// Arguments of `sqale eval`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    sub: Option<EvalSub>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum EvalSub {
    /// Score predictions (`{"id", "sql"}` per line) made by another system.
    Score(ScoreArgs),
    /// Join the results folders of shards (`--shard i/n`) into one, and report.
    Merge(MergeArgs),
    /// Compare two models of a results folder with each other: paired EX difference and, with a
    /// reference, the mean KLD difference with a bootstrap interval over questions.
    Compare(CompareArgs),
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    match args.sub {
        Some(EvalSub::Score(s)) => score(s),
        Some(EvalSub::Merge(m)) => merge(m),
        Some(EvalSub::Compare(c)) => compare(c),
        None => study(args.run),
    }
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
    let pb = progress::spinner_bar(0, "building databases", json);
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
    let qs = source::open(spec, &mut options)?;
    pb.finish_and_clear();
    anyhow::ensure!(!qs.is_empty(), "{spec} holds no questions (after --limit and --shard)");
    Ok(qs)
}

/// The study the flags ask for: flags → spec, then the study with its progress shown, then the
/// summary printed.
fn study(args: RunArgs) -> anyhow::Result<()> {
    let bench = args
        .bench
        .as_deref()
        .context("--bench is required (a JSONL manifest, a BIRD folder, an EHRSQL file or sqale)")?;
    check_outputs(&args.out, bench, &args.models.iter().chain(&args.reference).collect::<Vec<_>>(), None)?;
    let mut progress = progress::Progress::new(args.json);
    let study = Study::new(args.spec()?, &mut |e| progress.show(e)).map_err(cause_first)?;
    let questions = load(bench, args.limit, args.shard, &args.phrasing, args.json)?;
    let reports = study.run(questions, &mut |e| progress.show(e)).map_err(cause_first)?;
    print(&reports, &args.out, args.json)
}

/// Refuses a results folder `out` whose files would replace one of the command's inputs: the
/// benchmark `bench` (a file, or a BIRD folder's `dev.json`), the `models`, the `predictions`.
fn check_outputs(
    out: &Path,
    bench: &str,
    models: &[&std::path::PathBuf],
    predictions: Option<&Path>,
) -> anyhow::Result<()> {
    use sqale::atomic::Input;
    let bench = Path::new(bench);
    let dev_json = bench.join("dev.json");
    let bench_file = if bench.is_dir() { dev_json.as_path() } else { bench };
    let mut inputs = vec![Input::file("the benchmark", bench_file)];
    inputs.extend(models.iter().map(|m| Input::file("a model", m)));
    inputs.extend(predictions.map(|p| Input::file("the predictions", p)));
    Ok(ResultsDir::new(out).check_outputs(&inputs)?)
}

/// The study's error, with an engine's, a server pool's or a divergence folder's error itself on
/// top, where the flag hints ([`super::errors`]) find it.
fn cause_first(e: StudyError) -> anyhow::Error {
    match e {
        StudyError::Engine(e) => e.into(),
        StudyError::Probe(e) => e.into(),
        StudyError::Divergence(e) => e.into(),
        e => e.into(),
    }
}

fn merge(args: MergeArgs) -> anyhow::Result<()> {
    results::merge(&args.inputs, &args.out, args.keep_both)?;
    print(&results::write_reports(&args.out)?, &args.out, args.json)
}

fn compare(args: CompareArgs) -> anyhow::Result<()> {
    let c = results::compare(&args.dir, &args.a, &args.b)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        let text = format!("{} against {}\nEX: {}\nmean KLD: {}", c.b, c.a, c.ex_cell(), c.kld_cell());
        println!("{}", sqale::printable::escape_controls(&text));
    }
    Ok(())
}

fn score(args: ScoreArgs) -> anyhow::Result<()> {
    let questions = load(&args.bench, None, None, &args.phrasing, args.json)?;
    check_outputs(&args.out, &args.bench, &[], Some(&args.predictions))?;
    let existing = ResultsDir::new(&args.out).episodes();
    anyhow::ensure!(
        args.replace || !existing.exists(),
        "{} already holds results ({}): eval score writes a new results folder; name another with -o, or pass --replace to replace them",
        args.out.display(),
        existing.display()
    );
    let preds = predictions::read_all(&args.predictions)?;
    let out = ResultsDir::create(&args.out)?;
    let scored = predictions::score_all(&args.label, &questions, &preds.predictions, &super::limits(args.sql_timeout)?);
    let notes = scored.notes(&preds.repeated);
    for n in &notes {
        eprintln!("warning: {}", sqale::printable::escape_line(n));
    }
    out.write_records(&scored.records)?;
    print(&results::write_reports_for(out.path(), None, notes)?, out.path(), args.json)
}

/// Prints the summary of the reports written to `out` (Markdown, or JSON with `--json`).
fn print(reports: &Reports, out: &Path, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(&reports.summary)?);
    } else {
        let text = format!("{}\nresults in {}", reports.markdown, out.display());
        println!("{}", sqale::printable::escape_controls(&text));
    }
    Ok(())
}
