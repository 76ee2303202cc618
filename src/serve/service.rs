//! The episode service: N episodes at once, a bounded queue, on one of two engines: a model
//! loaded in-process (N sequences of one context), or a pool of inference servers.
//!
//! ```text
//!  submit() ───push────▶ [queue: at most Q jobs] ──▶ N workers
//!     │ full: QueueFull (503, Retry-After)              │ each runs the agent: on its sequence
//!     │                                                 │ (BatchedEngine::run), or on a server
//!     ◀──────────── Update::Event … Update::Done ───────┘ (RemoteGenerator on the Pool)
//! ```
//!
//! In-process, the engine thread owns the model and the context ([`BatchedEngine`]); on
//! servers, N worker threads share the [`Pool`] and run the tools here. Either way the workers
//! take jobs from a bounded queue, so the queue never grows past its limit and a full queue
//! is an immediate refusal, never a wait. Dropping the [`Ticket`] (a client that went away)
//! takes a waiting job out of the queue at once, so abandoned requests hold no places. Each job
//! carries a cancel flag: dropping its ticket sets it, and so does the watchdog when an episode
//! outlives its time limit; a completion under way stops at its next step and the sequence is
//! free.
//!
//! When the engine fails (llama.cpp's decode returns an error), the service stops for good: it
//! records the error ([`Service::health`]), answers every queued and later request with
//! [`EpisodeError::EngineFailed`] / [`SubmitError::EngineFailed`], cancels the running episodes,
//! and [`Service::failed`] resolves, so that the process can exit for a supervisor to restart it.
//!
//! On servers nothing is fatal: a server that fails is dropped from the pool (its episodes go
//! on on the others, re-sent from their token ids), probed every [`REVIVE_EVERY`], and used
//! again once it answers. While every server is down, requests are refused with
//! [`SubmitError::Unavailable`] (503), and `/health` names the servers and why each is down.

mod backend;
mod job;
mod queue;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::databases::Database;
use super::events::{Answer, EpisodeEvent};
use super::health::{EngineFailure, Health};
use super::metrics::{Failure, Metrics, Refusal};
use crate::agent::Settings;
use crate::engine::{EngineError, EngineOptions, ModelOptions};
use crate::remote::{Pool, Sampling, ServerStatus};
use queue::{JobQueue, PushError};

/// A model's name for callers: the file's name alone (`/health` answers without an API key,
/// and a path would show the server's folders).
pub(crate) fn public_name(model: &str) -> String {
    let path = std::path::Path::new(model);
    path.file_name().map_or_else(|| model.to_string(), |n| n.to_string_lossy().into_owned())
}

/// How often a service on servers probes the servers it dropped.
pub const REVIVE_EVERY: Duration = Duration::from_secs(2);

/// How a service runs its episodes.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// Episodes at once (sequences of the context).
    pub slots: usize,
    /// Requests that may wait for a sequence; more are refused.
    pub queue: usize,
    /// Wall-clock seconds an episode may run once started.
    pub episode_timeout: Duration,
    /// Prompt, tool limits and turn limits of every episode (the seed and token budget are per
    /// request).
    pub settings: Settings,
}

/// What the service runs: reported by `/health` and in every answer.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServiceInfo {
    /// The model file's name (never its folder).
    pub model: String,
    /// Context tokens of one sequence: the most an episode may hold.
    pub ctx: usize,
    /// Sequences (episodes at once).
    pub slots: usize,
    /// Requests that may wait.
    pub queue: usize,
    /// Token budget of an episode that asks for none.
    pub max_episode_tokens: usize,
    /// Seconds an episode may run.
    pub episode_timeout_seconds: f64,
    /// Sampling temperature.
    pub temperature: f64,
    /// Nucleus sampling.
    pub top_p: f64,
    /// Top-k sampling.
    pub top_k: i32,
    /// What runs the model: `in-process`, or the servers' kind (`llama-server`, `vllm`).
    pub engine: String,
}

/// One question for the service.
#[derive(Debug, Clone)]
pub struct Request {
    /// The question.
    pub question: String,
    /// Evidence (a hint), as in BIRD.
    pub evidence: Option<String>,
    /// The database, as registered at start.
    pub db: Database,
    /// Sampling seed (default: drawn).
    pub seed: Option<u32>,
    /// Token budget of the episode (default: the service's; at most one sequence's context).
    pub max_episode_tokens: Option<usize>,
}

/// What a ticket receives: events as they happen, then exactly one `Done`.
#[derive(Debug)]
pub enum Update {
    /// Something happened.
    Event(EpisodeEvent),
    /// The episode is over (or never ran).
    Done(Result<Box<Answer>, EpisodeError>),
}

/// Why an accepted request got no answer.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum EpisodeError {
    /// The episode ran past the time limit.
    #[error("the episode ran past the server's episode time limit of {0} s")]
    TimedOut(f64),
    /// The service began shutting down before the episode started.
    #[error("the server is shutting down; ask again later")]
    ShuttingDown,
    /// The question cannot run at all (e.g. it does not fit the token budget).
    #[error("{0}")]
    BadRequest(String),
    /// The engine or the database failed.
    #[error("the episode failed: {0}")]
    Failed(String),
    /// The request was cancelled (only its own ticket could have seen this).
    #[error("cancelled")]
    Cancelled,
    /// The engine failed: the server is stopping (and should be started again).
    #[error("the engine failed ({0}): the server is stopping; ask again once it has restarted")]
    EngineFailed(String),
    /// No inference server could take the episode's requests (every one failed them).
    #[error("{0}: ask again in a few seconds, once a server answers again")]
    Unavailable(String),
}

/// Why a request was not accepted.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SubmitError {
    /// Every sequence is busy and the queue is full.
    #[error("all {slots} sequences are busy and {queue} requests are waiting: try again in about {retry_after} s")]
    QueueFull {
        /// Sequences.
        slots: usize,
        /// The queue limit.
        queue: usize,
        /// Suggested seconds before asking again.
        retry_after: u64,
    },
    /// The service is shutting down.
    #[error("the server is shutting down; ask again later")]
    ShuttingDown,
    /// The request asks for more than the service allows.
    #[error("{0}")]
    BadRequest(String),
    /// The engine failed: the server is stopping (and should be started again).
    #[error("the engine failed ({0}): the server is stopping; ask again once it has restarted")]
    EngineFailed(String),
    /// Every inference server is down (the service stays up and probes them).
    #[error("{0}: ask again in a few seconds, once a server answers again")]
    Unavailable(String),
}

/// Why a service could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The model or the context could not be made.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The engine thread ended before it was ready.
    #[error("the engine thread ended before it was ready")]
    Died,
    /// The service was asked for no episodes at once.
    #[error("a service needs at least one episode at once")]
    NoSlots,
}

/// A request in the queue or on a sequence; dropping it cancels the episode (and takes a
/// request that still waits out of the queue).
pub struct Ticket {
    /// Events, then the answer.
    pub updates: UnboundedReceiver<Update>,
    /// Requests that were waiting when this one was queued.
    pub position: usize,
    cancel: Arc<AtomicBool>,
    id: u64,
    shared: Arc<Shared>,
}

impl Ticket {
    /// Cancels the episode (also done on drop): a request still in the queue leaves it at once
    /// (answered [`EpisodeError::Cancelled`]), a running episode stops at its next step.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(job) = self.shared.queue.withdraw(self.id) {
            self.shared.metrics.failed(Failure::Cancelled);
            let _ = job.updates.send(Update::Done(Err(EpisodeError::Cancelled)));
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        // Harmless after the episode ended; frees the sequence if it had not.
        self.cancel();
    }
}

struct Job {
    id: u64,
    request: Request,
    seed: u32,
    max_episode_tokens: usize,
    updates: UnboundedSender<Update>,
    cancel: Arc<AtomicBool>,
}

/// A running episode, as the watchdog sees it.
struct Running {
    cancel: Arc<AtomicBool>,
    deadline: Instant,
    timed_out: Arc<AtomicBool>,
}

struct Shared {
    /// The requests waiting; closed when shutdown begins or the engine fails.
    queue: JobQueue,
    failure: EngineFailure,
    metrics: Metrics,
    draining: AtomicBool,
    stopped: AtomicBool,
    running: Mutex<HashMap<u64, Running>>,
    /// Jobs the engine's failure stopped: answered, with its cause, once the engine thread ends.
    failed_jobs: Mutex<Vec<UnboundedSender<Update>>>,
    next_id: AtomicU64,
}

/// The jobs of a service's queue, one by one as workers take them (blocking); ends when the
/// queue is closed.
struct Jobs(Arc<Shared>);

impl Iterator for Jobs {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        self.0.queue.pop()
    }
}

impl Shared {
    /// A fresh state with a queue of `options.queue` jobs.
    fn with_queue(options: &ServiceOptions) -> Result<Arc<Shared>, StartError> {
        if options.slots == 0 {
            return Err(StartError::NoSlots);
        }
        let metrics = Metrics::default();
        Ok(Arc::new(Shared {
            queue: JobQueue::new(options.queue, metrics.queued.clone()),
            failure: EngineFailure::default(),
            metrics,
            draining: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            running: Mutex::new(HashMap::new()),
            failed_jobs: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        }))
    }

    /// The engine failed with `error` (`cause`: the error its run loop returned): refuse
    /// everything from now on, cancel the running episodes, and close the queue so that the
    /// engine thread ends. The queued requests are answered when it has ended
    /// ([`Self::answer_failed`]), with the failure's cause.
    fn fail(&self, error: String, cause: bool) {
        if !self.failure.record(error, cause) {
            return;
        }
        self.close(|updates| self.hold_failed(updates));
        if let Ok(running) = self.running.lock() {
            for r in running.values() {
                r.cancel.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Refuses new requests, closes the queue (the workers exit once idle) and hands every
    /// queued request to `answer`: how shutdown and a failure both begin.
    fn close(&self, mut answer: impl FnMut(UnboundedSender<Update>)) {
        self.draining.store(true, Ordering::Relaxed);
        for job in self.queue.close() {
            self.metrics.refused(Refusal::ShuttingDown);
            answer(job.updates);
        }
    }

    /// Keeps a request the failure stopped, for [`Self::answer_failed`].
    fn hold_failed(&self, updates: UnboundedSender<Update>) {
        if let Ok(mut held) = self.failed_jobs.lock() {
            held.push(updates);
        }
    }

    /// Once the engine thread has ended: answers every request the failure stopped, and
    /// settles the failure ([`Service::failed`] resolves).
    fn answer_failed(&self) {
        let Some(error) = self.failure.get() else { return };
        if let Ok(mut held) = self.failed_jobs.lock() {
            for updates in held.drain(..) {
                let _ = updates.send(Update::Done(Err(EpisodeError::EngineFailed(error.clone()))));
            }
        }
        self.failure.settle();
    }
}

/// The service: submit requests, read metrics, shut down.
pub struct Service {
    shared: Arc<Shared>,
    /// The engine thread (in-process) or the thread that owns the workers (on servers).
    engine: Mutex<Option<JoinHandle<()>>>,
    /// The watchdog, and on servers the thread that probes dropped ones.
    helpers: Mutex<Vec<JoinHandle<()>>>,
    info: ServiceInfo,
    /// The servers, when the service runs on them.
    pool: Option<Arc<Pool>>,
}

impl Service {
    /// Loads the model on the engine thread, makes a context of `options.slots` sequences of
    /// `engine.ctx` tokens each, and starts taking requests.
    pub fn start(
        model_path: PathBuf,
        model_options: ModelOptions,
        engine: EngineOptions,
        options: ServiceOptions,
        max_episode_tokens: usize,
    ) -> Result<Service, StartError> {
        let shared = Shared::with_queue(&options)?;
        let jobs = Jobs(shared.clone());
        let (handle, info) =
            backend::start_local(shared.clone(), jobs, model_path, model_options, engine, options, max_episode_tokens)?;
        Service::launch(shared, handle, info, None)
    }

    /// Runs episodes on `pool`'s servers, `options.slots` at once (each on a worker thread
    /// that runs the tools here and sends each completion to a server), sampling with
    /// `sampling`. No model is loaded.
    pub fn start_remote(
        pool: Pool,
        sampling: Sampling,
        options: ServiceOptions,
        max_episode_tokens: usize,
    ) -> Result<Service, StartError> {
        let shared = Shared::with_queue(&options)?;
        let pool = Arc::new(pool);
        let (handle, info) =
            backend::start_remote(shared.clone(), pool.clone(), sampling, options, max_episode_tokens)?;
        Service::launch(shared, handle, info, Some(pool))
    }

    /// Starts the watchdog (and on servers the prober) beside a started engine.
    fn launch(
        shared: Arc<Shared>,
        engine: JoinHandle<()>,
        info: ServiceInfo,
        pool: Option<Arc<Pool>>,
    ) -> Result<Service, StartError> {
        let mut helpers = Vec::new();
        let dog_shared = shared.clone();
        helpers.push(
            std::thread::Builder::new()
                .name("sqale-watchdog".into())
                .spawn(move || watch(&dog_shared))
                .map_err(|_| StartError::Died)?,
        );
        if let Some(pool) = pool.clone() {
            let probe_shared = shared.clone();
            helpers.push(
                std::thread::Builder::new()
                    .name("sqale-prober".into())
                    .spawn(move || backend::revive(&pool, &probe_shared))
                    .map_err(|_| StartError::Died)?,
            );
        }
        Ok(Service { shared, engine: Mutex::new(Some(engine)), helpers: Mutex::new(helpers), info, pool })
    }

    /// What the service runs.
    pub fn info(&self) -> &ServiceInfo {
        &self.info
    }

    /// The counters.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// Whether shutdown has begun (also once the engine failed).
    pub fn draining(&self) -> bool {
        self.shared.draining.load(Ordering::Relaxed)
    }

    /// Whether the service takes requests, is shutting down, or failed.
    pub fn health(&self) -> Health {
        match self.failure() {
            Some(e) => Health::Failed(e),
            None if self.draining() => Health::ShuttingDown,
            None => Health::Ok,
        }
    }

    /// The servers and how each stands, when the service runs on servers.
    pub fn servers(&self) -> Option<Vec<ServerStatus>> {
        self.pool.as_ref().map(|p| p.status())
    }

    /// The Prometheus text of `/metrics`: the service's counters, and each server's.
    pub fn render_metrics(&self) -> String {
        let mut text = self.shared.metrics.render(self.info.slots, self.info.queue);
        if let Some(servers) = self.servers() {
            text.push_str(&super::metrics::render_servers(&servers));
        }
        text
    }

    /// The engine's error, once it failed.
    pub fn failure(&self) -> Option<String> {
        self.shared.failure.get()
    }

    /// Resolves once the engine has failed and every request it held has its answer, with the
    /// error: the process should then exit, for a supervisor to start a fresh one.
    pub async fn failed(&self) -> String {
        self.shared.failure.wait().await
    }

    /// Queues a request, or refuses it at once when the queue is full.
    pub fn submit(&self, request: Request) -> Result<Ticket, SubmitError> {
        let metrics = &self.shared.metrics;
        if let Some(e) = self.failure() {
            metrics.refused(Refusal::ShuttingDown);
            return Err(SubmitError::EngineFailed(e));
        }
        if self.draining() {
            metrics.refused(Refusal::ShuttingDown);
            return Err(SubmitError::ShuttingDown);
        }
        if let Some(down) = self.pool.as_ref().and_then(|p| p.all_down()) {
            metrics.refused(Refusal::NoServer);
            return Err(SubmitError::Unavailable(down.to_string()));
        }
        let max_episode_tokens = request.max_episode_tokens.unwrap_or(self.info.max_episode_tokens);
        if max_episode_tokens > self.info.ctx || max_episode_tokens == 0 {
            return Err(SubmitError::BadRequest(format!(
                "max_episode_tokens {max_episode_tokens} is out of range: 1 to {} (one sequence's context on this server)",
                self.info.ctx
            )));
        }
        let seed = request.seed.unwrap_or_else(crate::agent::random_seed);
        let (tx, rx) = unbounded_channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let job = Job { id, request, seed, max_episode_tokens, updates: tx, cancel: cancel.clone() };
        match self.shared.queue.push(job) {
            Ok(waiting) => Ok(Ticket { updates: rx, position: waiting - 1, cancel, id, shared: self.shared.clone() }),
            Err(PushError::Full) => {
                metrics.refused(Refusal::QueueFull);
                Err(SubmitError::QueueFull {
                    slots: self.info.slots,
                    queue: self.info.queue,
                    retry_after: self.retry_after(),
                })
            }
            Err(PushError::Closed) => {
                metrics.refused(Refusal::ShuttingDown);
                Err(SubmitError::ShuttingDown)
            }
        }
    }

    /// Seconds until a sequence is likely free: a mean episode's time for each round of
    /// waiting requests (30 before any episode has finished).
    fn retry_after(&self) -> u64 {
        let m = &self.shared.metrics;
        let waiting = m.queued.load(Ordering::Relaxed) + self.info.slots;
        let rounds = waiting.div_ceil(self.info.slots.max(1)) as f64;
        let mean = m.mean_episode_seconds().unwrap_or(30.0);
        (mean * rounds).ceil().clamp(1.0, 600.0) as u64
    }

    /// Begins shutting down: new requests are refused, queued ones are answered
    /// [`EpisodeError::ShuttingDown`] at once, and running episodes get at most `grace` more
    /// before they are cancelled.
    pub fn begin_shutdown(&self, grace: Duration) {
        self.shared.close(|updates| {
            let _ = updates.send(Update::Done(Err(EpisodeError::ShuttingDown)));
        });
        let until = Instant::now() + grace;
        if let Ok(mut running) = self.shared.running.lock() {
            for r in running.values_mut() {
                r.deadline = r.deadline.min(until);
            }
        }
    }

    /// Shuts down (see [`Self::begin_shutdown`]) and waits for the engine thread.
    pub fn shutdown(&self, grace: Duration) {
        self.begin_shutdown(grace);
        if let Some(h) = self.engine.lock().ok().and_then(|mut e| e.take()) {
            let _ = h.join();
        }
        self.shared.stopped.store(true, Ordering::Relaxed);
        let helpers = self.helpers.lock().map(|mut h| std::mem::take(&mut *h)).unwrap_or_default();
        for h in helpers {
            let _ = h.join();
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.shutdown(Duration::ZERO);
    }
}

/// Cancels episodes past their deadline, ten times a second, until the service stops.
fn watch(shared: &Shared) {
    while !shared.stopped.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let now = Instant::now();
        if let Ok(running) = shared.running.lock() {
            for r in running.values().filter(|r| now >= r.deadline) {
                r.timed_out.store(true, Ordering::Relaxed);
                r.cancel.store(true, Ordering::Relaxed);
            }
        }
    }
}
