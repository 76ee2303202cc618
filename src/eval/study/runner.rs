//! A study in progress: its folder, its gold results and its events, and the steps that play and
//! measure each model (in-process or on servers, as a model or as the reference).

use std::path::Path;
use std::time::Instant;

use super::{Pass, RunSpec, StudyError, StudyEvent, Tally};
use crate::agent::Settings;
use crate::divergence::run::{self as div, DivergenceDir, ReferenceInfo};
use crate::divergence::store::RefEpisode;
use crate::divergence::{self, DivergenceError, Transcript};
use crate::engine::{BatchedEngine, Engine, EngineOptions, Model};
use crate::eval::results::{self, EpisodeSettings, ModelEntry, ResultsDir, RunStats};
use crate::eval::{self, EvalError, GoldCache, Plan, Question, Sink};
use crate::protocol::Calls;
use crate::remote::{Pool, Sampling};
use crate::speculate::Speculate;

/// The reference a study measures against, once its episodes are played.
pub(super) struct Measured {
    /// Its identity (what every model is checked against).
    info: ReferenceInfo,
    /// The results folder's `divergence/`.
    dir: DivergenceDir,
    /// The servers of a remote reference (its distributions are asked of them along each
    /// model's tokenization of the episodes).
    pool: Option<Pool>,
}

/// The study's state while it runs.
pub(super) struct Runner<'s, 'e> {
    spec: &'s RunSpec,
    questions: &'s [Question],
    out: &'s ResultsDir,
    gold: GoldCache,
    /// The KV cache of one sequence: one episode, within the context window.
    ctx: u32,
    on_event: &'e mut dyn FnMut(StudyEvent<'_>),
}

impl<'s, 'e> Runner<'s, 'e> {
    pub(super) fn new(
        spec: &'s RunSpec,
        questions: &'s [Question],
        out: &'s ResultsDir,
        gold: GoldCache,
        on_event: &'e mut dyn FnMut(StudyEvent<'_>),
    ) -> Self {
        let ctx = eval::sequence_context(spec.engine.ctx, spec.max_episode_tokens);
        Runner { spec, questions, out, gold, ctx, on_event }
    }

    /// Plays the reference file's episodes (recording their token sequences), keeps its
    /// distributions along them, and measures it against itself.
    pub(super) fn play_reference_file(&mut self, path: &Path) -> Result<Measured, StudyError> {
        let calls = self.spec.calls[0];
        let label = results::with_calls(results::model_label(path, self.spec.schema), calls);
        crate::memory::reset_peak();
        let started = Instant::now();
        let model = Model::load(path, &self.spec.model_options)?;
        let info = ReferenceInfo::of(&model, &label, self.spec.kld_top_k);
        let dir = DivergenceDir::open(self.out.path(), &info)?;
        self.check_recorded(&dir, &label)?;
        self.play_local(path, &model, &label, calls, Some(&dir), started)?;
        let reference = Measured { info, dir, pool: None };
        let mut forced = Engine::new(&model, self.forced_options())?;
        let k = self.spec.kld_top_k;
        self.reference_pass(&reference, &mut |t| divergence::reference_episode(&mut forced, t, k))?;
        // The reference against itself: 0 at every token, or the measure is not sound.
        self.model_pass(&mut forced, &label, &reference)?;
        Ok(reference)
    }

    /// Plays the reference's episodes on its servers (recording their token sequences); its
    /// distributions are asked of the servers when the first model is measured.
    pub(super) fn play_served_reference(&mut self, pool: Pool) -> Result<Measured, StudyError> {
        let calls = self.spec.calls[0];
        let label = results::with_calls(results::pool_label(&pool, self.spec.schema), calls);
        let info = ReferenceInfo::remote(&pool, &label, self.spec.kld_top_k);
        let dir = DivergenceDir::open(self.out.path(), &info)?;
        self.check_recorded(&dir, &label)?;
        self.play_served(&pool, &label, calls, Some(&dir))?;
        Ok(Measured { info, dir, pool: Some(pool) })
    }

    /// One model file: loaded, checked against the reference (a model that can't be compared
    /// fails before its episodes are played), its episodes played under each way of calling
    /// tools (as votes too, with `--vote`) unless only its divergence is wanted, and measured
    /// (once: the divergence is the file's, along the reference's episodes).
    pub(super) fn evaluate(&mut self, path: &Path, reference: Option<&Measured>) -> Result<(), StudyError> {
        let base = results::model_label(path, self.spec.schema);
        let label = results::with_calls(base.clone(), self.spec.calls[0]);
        crate::memory::reset_peak();
        let mut started = Instant::now();
        let model = Model::load(path, &self.spec.model_options)?;
        if let Some(r) = reference {
            r.info.check(&model, &label)?;
        }
        if self.spec.kld_only {
            // Its file still goes into models.json (size, type, importance matrix), keeping the
            // run an earlier invocation recorded.
            self.check_folder(&label, Some(path), false)?;
            let models = self.out.models();
            let mut entry = ModelEntry::file(path, model.n_params()).after(models.get(&label));
            entry.settings = models.get(&label).and_then(|e| e.settings.clone());
            self.out.record_model(&label, entry)?;
        } else {
            for &calls in &self.spec.calls {
                let played = results::with_calls(base.clone(), calls);
                match self.spec.vote {
                    None => self.play_local(path, &model, &played, calls, None, started)?,
                    Some(k) => self.play_vote(path, &model, &played, calls, k, started)?,
                }
                crate::memory::reset_peak();
                started = Instant::now();
            }
        }
        if let Some(r) = reference {
            self.measure(&model, &label, r)?;
        }
        Ok(())
    }

    /// Plays `model`'s episodes in-process (its transcripts into `transcripts` for a reference)
    /// and records its run, timed from `started`.
    fn play_local(
        &mut self,
        path: &Path,
        model: &Model,
        label: &str,
        calls: Calls,
        transcripts: Option<&DivergenceDir>,
        started: Instant,
    ) -> Result<(), StudyError> {
        self.check_folder(label, Some(path), false)?;
        let mut engine = BatchedEngine::new(model, self.engine_options(), self.spec.parallel as usize)?;
        let entry = ModelEntry::file(path, model.n_params());
        let tally = self.play(label, calls, false, transcripts, (&entry, started), |plan, gold, sink| {
            eval::run(&mut engine, plan, gold, sink)
        })?;
        let run = tally.finish(started);
        drop(engine);
        self.record(label, ModelEntry { last_run: Some(run), ..entry })
    }

    /// Plays `model`'s questions as votes of `k` episodes, `k` times `--parallel` sequences of
    /// one context ([`eval::run_vote`]): the vote's run is recorded under its own label, the
    /// first episodes under `label` without a run of their own (they ran inside the vote).
    fn play_vote(
        &mut self,
        path: &Path,
        model: &Model,
        label: &str,
        calls: Calls,
        k: usize,
        started: Instant,
    ) -> Result<(), StudyError> {
        let vote_label = results::vote_label(label, k);
        self.check_folder(label, Some(path), false)?;
        self.check_folder(&vote_label, Some(path), false)?;
        let sequences = k * self.spec.parallel as usize;
        let mut engine = BatchedEngine::new(model, self.engine_options(), sequences)?;
        let entry = ModelEntry::file(path, model.n_params());
        let tally = self.play(&vote_label, calls, false, None, (&entry, started), |plan, gold, sink| {
            let plan = Plan { label, ..*plan };
            eval::run_vote(&mut engine, &plan, k, &vote_label, gold, sink)
        })?;
        let run = tally.finish(started);
        drop(engine);
        self.record(&vote_label, ModelEntry { last_run: Some(run), ..entry })?;
        let first = ModelEntry::file(path, model.n_params()).after(self.out.models().get(label));
        self.record(label, first)
    }

    /// Plays the served model's episodes, `parallel` in flight across `pool` (its transcripts
    /// into `transcripts` for a reference), and records its run.
    pub(super) fn play_served(
        &mut self,
        pool: &Pool,
        label: &str,
        calls: Calls,
        transcripts: Option<&DivergenceDir>,
    ) -> Result<(), StudyError> {
        crate::memory::reset_peak();
        let started = Instant::now();
        let e = &self.spec.engine;
        let sampling = Sampling { temperature: e.temperature, top_p: e.top_p, top_k: e.top_k };
        let parallel = self.spec.parallel as usize;
        let entry = ModelEntry::remote(pool.servers().into_iter().cloned().collect(), RunStats::default());
        let entry = ModelEntry { last_run: None, ..entry };
        let tally = self.play(label, calls, true, transcripts, (&entry, started), |plan, gold, sink| {
            eval::remote::run(pool, sampling, parallel, plan, gold, sink)
        })?;
        let servers = pool.servers().into_iter().cloned().collect();
        self.record(label, ModelEntry::remote(servers, tally.finish(started)))
    }

    /// The settings every episode of this study is played with.
    fn settings(&self) -> EpisodeSettings {
        let e = &self.spec.engine;
        EpisodeSettings {
            seed: self.spec.seed,
            temperature: e.temperature,
            top_p: e.top_p,
            top_k: e.top_k,
            max_episode_tokens: self.spec.max_episode_tokens,
            thought_chars: self.spec.thought_chars,
            prompt: Settings::default().prompt.hash(),
        }
    }

    /// Records `label`'s entry in `models.json` with this study's settings, after the runs the
    /// folder holds ([`ModelEntry::after`]): a run that played nothing (everything was in the
    /// folder) keeps the throughput and the settings of the runs that played it; a resumed run
    /// keeps theirs beside its own.
    fn record(&self, label: &str, entry: ModelEntry) -> Result<(), StudyError> {
        let models = self.out.models();
        let before = models.get(label);
        let played_nothing = entry.last_run.as_ref().is_none_or(|r| r.episodes == 0);
        let mut entry = entry.after(before);
        entry.settings = Some(self.settings());
        if played_nothing {
            entry.settings = before.and_then(|b| b.settings.clone()).or(entry.settings);
        }
        self.out.record_model(label, entry)?;
        Ok(())
    }

    /// Refuses to add to `label`'s episodes in the folder when they are another file's (`file`'s
    /// content hash differs from the one recorded) or were played with other settings (those
    /// recorded, or, in a folder written before settings were, the seeds of its episodes); with
    /// `episodes` false only the file is compared (before a model's run, whose settings
    /// [`Self::play`] compares).
    fn check_folder(&self, label: &str, file: Option<&Path>, episodes: bool) -> Result<(), StudyError> {
        let models = self.out.models();
        let Some(entry) = models.get(label) else { return Ok(()) };
        let folder = self.out.path().to_path_buf();
        if let (Some(theirs), Some(ours)) = (&entry.sha256, file.and_then(results::file_sha256)) {
            if *theirs != ours {
                let short = |h: &str| h.chars().take(12).collect::<String>();
                return Err(StudyError::OtherModel {
                    folder,
                    label: label.to_string(),
                    theirs: short(theirs),
                    ours: short(&ours),
                });
            }
        }
        if !episodes {
            return Ok(());
        }
        let now = self.settings();
        let differences = match &entry.settings {
            Some(before) => before.differences(&now),
            None => eval::read_records(&self.out.episodes())
                .iter()
                .filter(|r| r.model == label && r.episode.is_some() && r.vote.is_none())
                .find(|r| r.seed != eval::episode_seed(now.seed, &r.id))
                .map(|r| vec![format!("question {}: its episode's seed is not --seed {}'s", r.id, now.seed)])
                .unwrap_or_default(),
        };
        if differences.is_empty() {
            return Ok(());
        }
        Err(StudyError::OtherSettings { folder, label: label.to_string(), differences })
    }

    /// What every run shares: the plan, one sink into the results folder (and the transcripts),
    /// the tally and the events around `run`. As each episode finishes, `models.json` gets the
    /// run so far (`entry`'s, timed from `started`), so that a run that is killed leaves its
    /// throughput for the one that resumes it.
    fn play(
        &mut self,
        label: &str,
        calls: Calls,
        served: bool,
        transcripts: Option<&DivergenceDir>,
        (entry, started): (&ModelEntry, Instant),
        run: impl FnOnce(&Plan<'_>, &mut GoldCache, &mut Sink<'_>) -> Result<usize, EvalError>,
    ) -> Result<Tally, StudyError> {
        let settings = Settings {
            max_episode_tokens: self.spec.max_episode_tokens,
            limits: self.spec.limits.clone(),
            calls,
            thought_chars: self.spec.thought_chars,
            ..Settings::default()
        };
        let plan = Plan { settings: &settings, label, questions: self.questions, seed: self.spec.seed };
        let total = self.questions.len();
        let selected: std::collections::HashSet<&str> = self.questions.iter().map(|q| q.id.as_str()).collect();
        let before: Vec<eval::Record> = self
            .out
            .records()
            .into_iter()
            .filter(|r| r.model == label && r.error.is_none() && selected.contains(r.id.as_str()))
            .collect();
        let done = before.len().min(total);
        // Not beside episodes played otherwise, even when nothing is left to play: the reports
        // would credit this run's settings with them.
        self.check_folder(label, None, true)?;
        let folder_before = self.out.models().get(label).cloned();
        let episode_settings = self.settings();
        let out = &self.out;
        let on_event = &mut *self.on_event;
        on_event(StudyEvent::Playing { label, total, done });
        let mut tally = Tally::new(self.spec.parallel);
        tally.resume(&before.iter().collect::<Vec<_>>());
        let budget = self.spec.max_episode_tokens;
        let mut warned = false;
        let mut sink = Sink::file(self.out.episodes()).with_progress(|_, _, record| {
            // A vote writes its first episode's record too, under another label: only the
            // vote's own count (and show) as this run's.
            if record.model != label {
                return;
            }
            tally.count(record);
            let so_far = ModelEntry {
                last_run: Some(tally.finish(started)),
                settings: Some(episode_settings.clone()),
                ..entry.clone()
            };
            // One that cannot be written is left out: the run's end writes the entry again, and
            // says why it could not.
            let _ = out.record_model(label, so_far.after(folder_before.as_ref()));
            let prompt = record.episode.as_ref().and_then(|e| e.prompt_tokens).unwrap_or(0);
            if !warned && 2 * prompt > budget {
                warned = true;
                on_event(StudyEvent::PromptLong { label, prompt_tokens: prompt, budget });
            }
            on_event(StudyEvent::Played { label, record, tally: &tally });
        });
        if let Some(dir) = transcripts {
            sink = sink.with_transcripts(dir);
        }
        run(&plan, &mut self.gold, &mut sink)?;
        drop(sink);
        on_event(StudyEvent::PlayedAll { label, tally: &tally, served, reference: transcripts.is_some() });
        Ok(tally)
    }

    /// Teacher-forces `model` along the reference's episodes (a remote reference's
    /// distributions are fetched first, along this model's tokenization).
    fn measure(&mut self, model: &Model, label: &str, r: &Measured) -> Result<(), StudyError> {
        if let Some(pool) = &r.pool {
            let k = self.spec.kld_top_k;
            self.reference_pass(r, &mut |t| divergence::reference_episode_remote(pool, model, t, k))?;
        }
        let mut engine = Engine::new(model, self.forced_options())?;
        self.model_pass(&mut engine, label, r)
    }

    /// The reference's distributions along every episode that has none yet.
    fn reference_pass(
        &mut self,
        r: &Measured,
        compute: &mut dyn FnMut(&Transcript) -> Result<RefEpisode, DivergenceError>,
    ) -> Result<(), StudyError> {
        let ids = self.ids();
        let label = r.info.label.as_str();
        let on_event = &mut *self.on_event;
        div::reference_pass(&r.dir, &ids, compute, &mut |done, total| {
            on_event(StudyEvent::Forcing { label, pass: Pass::Reference, done, total })
        })?;
        on_event(StudyEvent::Forced { label, pass: Pass::Reference, skipped: 0 });
        Ok(())
    }

    /// `label`'s measure against the reference on every episode it has none of yet.
    fn model_pass(&mut self, engine: &mut Engine<'_>, label: &str, r: &Measured) -> Result<(), StudyError> {
        let ids = self.ids();
        let on_event = &mut *self.on_event;
        let mut skipped = 0;
        div::model_pass(engine, label, &r.dir, &ids, &mut |done, total, record| {
            skipped += record.skipped.is_some() as usize;
            on_event(StudyEvent::Forcing { label, pass: Pass::Divergence, done, total })
        })?;
        on_event(StudyEvent::Forced { label, pass: Pass::Divergence, skipped });
        Ok(())
    }

    /// Refuses a folder holding episodes of the reference `label` played without a reference
    /// (their token sequences were not kept, and playing them again would give each question
    /// two).
    fn check_recorded(&self, dir: &DivergenceDir, label: &str) -> Result<(), StudyError> {
        let transcripts = dir.read_transcripts();
        let unrecorded: Vec<String> = eval::done_ids(&self.out.episodes(), label)
            .into_iter()
            .filter(|id| !transcripts.contains_key(id) && self.questions.iter().any(|q| &q.id == id))
            .collect();
        match unrecorded.first() {
            None => Ok(()),
            Some(example) => Err(StudyError::Unrecorded {
                folder: self.out.path().to_path_buf(),
                label: label.to_string(),
                count: unrecorded.len(),
                example: example.clone(),
            }),
        }
    }

    /// The questions' ids, in order.
    fn ids(&self) -> Vec<&'s str> {
        self.questions.iter().map(|q| q.id.as_str()).collect()
    }

    /// The engine options of the episodes.
    fn engine_options(&self) -> EngineOptions {
        EngineOptions { ctx: self.ctx, ..self.spec.engine.clone() }
    }

    /// The teacher-forced passes: one sequence, nothing sampled, nothing drafted.
    fn forced_options(&self) -> EngineOptions {
        EngineOptions { speculate: Speculate::Off, ..self.engine_options() }
    }
}
