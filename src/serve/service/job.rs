//! One job on a worker: the checks before it runs, the episode, and its answer.
//!
//! The same code runs a job on the in-process engine's sequence and on an inference server
//! ([`Live`] is what it needs of either); what differs is which errors stop the whole service
//! (a failed llama.cpp decode does; a server that went away does not: the pool moves on).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Answer, EpisodeError, Job, Running, ServiceInfo, Shared, Update};
use crate::agent::{Agent, AgentError, Episode, Settings};
use crate::engine::SequenceGenerator;
use crate::generate::{GenerateError, Generator};
use crate::remote::RemoteGenerator;
use crate::serve::events::{EpisodeEvent, EventMapper};
use crate::serve::metrics::{Failure, Refusal};

/// What a worker's generator must do besides generating.
pub(super) trait Live: Generator {
    /// Cancels every step from now on once `cancel` is set (`None`: not cancellable).
    fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>);
    /// Whether `e` means the engine itself failed, for good: the service then stops.
    fn engine_failed(&self, e: &AgentError) -> bool;
}

impl Live for SequenceGenerator<'_> {
    fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.set_live(cancel);
    }

    fn engine_failed(&self, e: &AgentError) -> bool {
        // llama.cpp, or the scheduler that drives it.
        matches!(e, AgentError::Generate(g) if g.is_engine_failure())
    }
}

impl Live for RemoteGenerator<'_> {
    fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        RemoteGenerator::set_cancel(self, cancel);
    }

    fn engine_failed(&self, _: &AgentError) -> bool {
        // A server that fails is dropped from the pool and probed until it answers again.
        false
    }
}

/// Runs one job on a worker's generator and sends its events and answer.
pub(super) fn run_job<G: Live>(job: Job, gen: &mut G, shared: &Shared, info: &ServiceInfo, base: &Settings) {
    if !should_run(&job, shared) {
        return;
    }
    let timed_out = Arc::new(AtomicBool::new(false));
    let timeout = Duration::from_secs_f64(info.episode_timeout_seconds);
    if let Ok(mut running) = shared.running.lock() {
        let r =
            Running { cancel: job.cancel.clone(), deadline: Instant::now() + timeout, timed_out: timed_out.clone() };
        running.insert(job.id, r);
    }
    shared.metrics.running.fetch_add(1, Ordering::Relaxed);
    let result = play(&job, gen, base);
    if let Ok(mut running) = shared.running.lock() {
        running.remove(&job.id);
    }
    shared.metrics.running.fetch_sub(1, Ordering::Relaxed);
    if let Err(e) = &result {
        if gen.engine_failed(e) {
            shared.fail(e.to_string(), false);
        }
    }
    if result.is_err() && shared.failure.get().is_some() {
        // Whatever stopped the episode (the engine, or the cancel that followed its failure):
        // answered with the failure's cause once the engine thread has it.
        shared.metrics.failed(Failure::Error);
        return shared.hold_failed(job.updates);
    }
    let answer = match result {
        Ok(episode) => Ok(answer(&job, episode, shared, info, base)),
        Err(e) => Err(episode_error(e, shared, timed_out.load(Ordering::Relaxed), timeout)),
    };
    let _ = job.updates.send(Update::Done(answer));
}

/// Whether the job still wants running; answers it (or leaves it answered) when not.
fn should_run(job: &Job, shared: &Shared) -> bool {
    if job.cancel.load(Ordering::Relaxed) {
        // The client left as a worker took its request.
        shared.metrics.failed(Failure::Cancelled);
        return false;
    }
    if shared.failure.get().is_some() {
        shared.metrics.refused(Refusal::ShuttingDown);
        shared.hold_failed(job.updates.clone());
        return false;
    }
    if shared.draining.load(Ordering::Relaxed) {
        shared.metrics.refused(Refusal::ShuttingDown);
        let _ = job.updates.send(Update::Done(Err(EpisodeError::ShuttingDown)));
        return false;
    }
    true
}

/// The episode itself, its events sent as they happen.
fn play<G: Live>(job: &Job, gen: &mut G, base: &Settings) -> Result<Episode, AgentError> {
    let req = &job.request;
    let send = |e: EpisodeEvent| {
        let _ = job.updates.send(Update::Event(e));
    };
    send(EpisodeEvent::Started { db: req.db.name.clone(), seed: job.seed });
    gen.set_cancel(Some(job.cancel.clone()));
    let settings = Settings { seed: job.seed, max_episode_tokens: job.max_episode_tokens, ..base.clone() };
    let mut mapper = EventMapper::default();
    let result =
        Agent::new(&mut *gen, settings).run_with(&req.question, req.evidence.as_deref(), &req.db.path, &mut |e| {
            mapper.map(e).into_iter().for_each(send)
        });
    gen.set_cancel(None);
    result
}

/// A finished episode's answer, with its first rows.
fn answer(job: &Job, mut episode: Episode, shared: &Shared, info: &ServiceInfo, base: &Settings) -> Box<Answer> {
    shared.metrics.episode(&episode);
    let req = &job.request;
    // Clients know the database by its name, never by its file; and the prompt file by its
    // name alone (`--prompt-from` gives a path on the server's machine).
    episode.db = req.db.name.clone();
    episode.prompt_source = super::public_name(&episode.prompt_source);
    let mut answer = Answer {
        model: info.model.clone(),
        servers: None,
        ctx: info.ctx,
        temperature: info.temperature,
        top_p: info.top_p,
        top_k: info.top_k,
        db: req.db.name.clone(),
        episode,
        rows: None,
        rows_error: None,
        chart: None,
    };
    answer.read_rows(&req.db.path, &base.limits);
    Box::new(answer)
}

/// What the caller is told of an episode that failed, counted.
fn episode_error(e: AgentError, shared: &Shared, timed_out: bool, timeout: Duration) -> EpisodeError {
    let metrics = &shared.metrics;
    match e {
        AgentError::Generate(GenerateError::Cancelled) if timed_out => {
            metrics.failed(Failure::TimedOut);
            EpisodeError::TimedOut(timeout.as_secs_f64())
        }
        AgentError::Generate(GenerateError::Cancelled) => {
            metrics.failed(Failure::Cancelled);
            EpisodeError::Cancelled
        }
        e @ AgentError::PromptTooLong { .. } => {
            metrics.failed(Failure::Error);
            EpisodeError::BadRequest(format!("{e}: ask a shorter question or raise max_episode_tokens"))
        }
        AgentError::Generate(g) if crate::remote::remote_error(&g).is_some_and(|r| r.is_transient()) => {
            // Every server failed this episode's request: a 503, as when none is up at all.
            metrics.failed(Failure::Unavailable);
            let cause = crate::remote::remote_error(&g).map_or_else(|| g.to_string(), ToString::to_string);
            EpisodeError::Unavailable(cause)
        }
        e => {
            metrics.failed(Failure::Error);
            EpisodeError::Failed(e.to_string())
        }
    }
}
