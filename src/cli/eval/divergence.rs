//! `sqale eval --reference`: the reference plays its episodes (recorded), is teacher-forced
//! along them once to keep its distributions, and each model is teacher-forced along the same
//! sequences ([`sqale::divergence`]).

use std::path::Path;

use indicatif::ProgressBar;
use sqale::divergence::run::{self as div, DivergenceDir, ReferenceInfo};
use sqale::engine::BatchedEngine;
use sqale::engine::{Engine, EngineOptions, Model};
use sqale::eval::results::{self, ModelEntry, ResultsDir};
use sqale::eval::{self, GoldCache, Question};
use sqale::speculate::Speculate;

use super::{engine_options, settings, spinner_bar, RunArgs, Tally};

/// The reference a run measures against, once its episodes are played and its distributions
/// kept.
pub(super) struct Reference {
    /// Its identity (what every model is checked against).
    pub(super) info: ReferenceInfo,
    /// The results folder's `divergence/`.
    pub(super) dir: DivergenceDir,
    /// The questions' ids, in order.
    pub(super) ids: Vec<String>,
    /// The servers of a remote reference (its distributions are asked of them, along each
    /// model's tokenization of the episodes).
    pub(super) pool: Option<sqale::remote::Pool>,
}

/// Plays the reference's episodes (recording their token sequences), keeps its distributions
/// along them, and measures it against itself (the check that the measure is 0 there).
pub(super) fn play_reference(
    args: &RunArgs,
    path: &Path,
    ctx: u32,
    questions: &[Question],
    out: &ResultsDir,
    limits: &sqale::env::Limits,
    gold: &mut GoldCache,
) -> anyhow::Result<Reference> {
    let label = results::model_label(path, args.schema);
    sqale::memory::reset_peak();
    let started = std::time::Instant::now();
    let model = Model::load(path, &args.hardware.model_options(false))?;
    let info = ReferenceInfo::of(&model, &label, args.kld_top_k as usize);
    let dir = open(out, &info)?;
    check_recorded(&dir, out, &label, questions)?;
    let mut engine = BatchedEngine::new(&model, engine_options(args, ctx), args.parallel as usize)?;
    let mut tally = Tally::new(&label, questions.len(), out, args);
    eval::run_recorded(
        &mut engine,
        &settings(args, limits),
        &label,
        questions,
        args.seed,
        &out.episodes(),
        gold,
        &dir,
        &mut |_, _, r| tally.count(r),
    )?;
    let run = tally.finish(started);
    out.record_model(&label, ModelEntry::new(path, model.n_params(), run))?;
    drop(engine);
    let ids: Vec<String> = questions.iter().map(|q| q.id.clone()).collect();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut forced = Engine::new(&model, forced_options(args, ctx))?;
    let pb = bar(args, &format!("{label}: reference distributions"));
    let k = args.kld_top_k as usize;
    let mut compute = |t: &sqale::divergence::Transcript| sqale::divergence::reference_episode(&mut forced, t, k);
    div::reference_pass(&dir, &id_refs, &mut compute, &mut |done, total| {
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    })?;
    pb.finish_and_clear();
    let reference = Reference { info, dir, ids, pool: None };
    measure_with(args, &mut forced, &label, &reference)?;
    Ok(reference)
}

/// Plays the reference's episodes on inference servers (recording their token sequences); its
/// distributions are asked of the servers when the first local model is measured.
pub(super) fn play_remote_reference(
    args: &RunArgs,
    pool: sqale::remote::Pool,
    questions: &[Question],
    out: &ResultsDir,
    limits: &sqale::env::Limits,
    gold: &mut GoldCache,
) -> anyhow::Result<Reference> {
    let label = match args.schema {
        sqale::eval::subset::SchemaCondition::Full => pool.label(),
        other => format!("{} @{other}", pool.label()),
    };
    let info = ReferenceInfo::remote(&pool, &label, args.kld_top_k as usize);
    let dir = open(out, &info)?;
    check_recorded(&dir, out, &label, questions)?;
    sqale::memory::reset_peak();
    let started = std::time::Instant::now();
    let mut tally = Tally::new(&label, questions.len(), out, args);
    eval::remote::run(
        &pool,
        args.sampling.remote(),
        args.parallel as usize,
        &settings(args, limits),
        &label,
        questions,
        args.seed,
        &out.episodes(),
        gold,
        Some(&dir),
        &mut |_, _, r| tally.count(r),
    )?;
    let failed = tally.failed;
    let run = tally.finish(started);
    out.record_model(&label, ModelEntry::remote(pool.servers().into_iter().cloned().collect(), run))?;
    if failed > 0 {
        eprintln!(
            "{failed} reference episodes failed on the servers (not measured): run the same command again to play them"
        );
    }
    let ids = questions.iter().map(|q| q.id.clone()).collect();
    Ok(Reference { info, dir, ids, pool: Some(pool) })
}

/// Teacher-forces `model` (labelled `label`) along the reference's episodes (a remote
/// reference's distributions are fetched first, along this model's tokenization).
pub(super) fn measure(args: &RunArgs, model: &Model, label: &str, ctx: u32, r: &Reference) -> anyhow::Result<()> {
    if let Some(pool) = &r.pool {
        let ids: Vec<&str> = r.ids.iter().map(String::as_str).collect();
        let pb = bar(args, &format!("{}: reference distributions", r.info.label));
        let k = args.kld_top_k as usize;
        let mut compute =
            |t: &sqale::divergence::Transcript| sqale::divergence::reference_episode_remote(pool, model, t, k);
        div::reference_pass(&r.dir, &ids, &mut compute, &mut |done, total| {
            pb.set_length(total as u64);
            pb.set_position(done as u64);
        })?;
        pb.finish_and_clear();
    }
    let mut engine = Engine::new(model, forced_options(args, ctx))?;
    measure_with(args, &mut engine, label, r)
}

fn measure_with(args: &RunArgs, engine: &mut Engine<'_>, label: &str, r: &Reference) -> anyhow::Result<()> {
    let ids: Vec<&str> = r.ids.iter().map(String::as_str).collect();
    let pb = bar(args, &format!("{label}: divergence"));
    let mut skipped = 0;
    div::model_pass(engine, label, &r.dir, &ids, &mut |done, total, rec| {
        skipped += rec.skipped.is_some() as usize;
        pb.set_length(total as u64);
        pb.set_position(done as u64);
    })?;
    pb.finish_and_clear();
    if skipped > 0 && !args.json {
        eprintln!("{label}: {skipped} question(s) not measured (why: summary.md)");
    }
    Ok(())
}

/// The results folder's `divergence/`, with the flags that fix a folder of another reference.
fn open(out: &ResultsDir, info: &ReferenceInfo) -> anyhow::Result<DivergenceDir> {
    DivergenceDir::open(out.path(), info).map_err(|e| match e {
        e @ sqale::divergence::DivergenceError::OtherReference { .. } => {
            anyhow::anyhow!("{e} (--out, --reference, --kld-top-k)")
        }
        e => e.into(),
    })
}

/// Refuses a folder holding episodes of the reference `label` played without a reference
/// (their token sequences were not kept, and playing them again would give each question two).
fn check_recorded(dir: &DivergenceDir, out: &ResultsDir, label: &str, questions: &[Question]) -> anyhow::Result<()> {
    let transcripts = dir.read_transcripts();
    let unrecorded: Vec<String> = eval::done_ids(&out.episodes(), label)
        .into_iter()
        .filter(|id| !transcripts.contains_key(id) && questions.iter().any(|q| &q.id == id))
        .collect();
    anyhow::ensure!(
        unrecorded.is_empty(),
        "{} already holds {} episode(s) of {label} played without --reference (e.g. {}), whose token sequences were not kept: use another --out folder",
        out.path().display(),
        unrecorded.len(),
        unrecorded[0]
    );
    Ok(())
}

/// The teacher-forced passes: one sequence, nothing sampled, nothing drafted.
fn forced_options(args: &RunArgs, ctx: u32) -> EngineOptions {
    EngineOptions { speculate: Speculate::Off, ..engine_options(args, ctx) }
}

fn bar(args: &RunArgs, prefix: &str) -> ProgressBar {
    if args.json {
        ProgressBar::hidden()
    } else {
        spinner_bar(0, prefix)
    }
}
