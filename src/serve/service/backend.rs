//! The two engines a service runs on: the model in-process (one thread owns the model and its
//! batched context), or a pool of inference servers (worker threads, one `RemoteGenerator`
//! each, and a prober that brings back servers that answer again).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::job::run_job;
use super::{public_name, Job, Jobs, ServiceInfo, ServiceOptions, Shared, StartError, REVIVE_EVERY};
use crate::answer::decimal;
use crate::engine::{BatchedEngine, EngineError, EngineOptions, Model, ModelOptions, SequenceGenerator};
use crate::remote::{Pool, RemoteGenerator, Sampling};

/// Loads the model on a new engine thread and runs the jobs on its sequences; returns once it
/// is ready to take them.
pub(super) fn start_local(
    shared: Arc<Shared>,
    jobs: Jobs,
    model_path: PathBuf,
    model_options: ModelOptions,
    engine: EngineOptions,
    options: ServiceOptions,
    max_episode_tokens: usize,
) -> Result<(JoinHandle<()>, ServiceInfo), StartError> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<ServiceInfo, EngineError>>();
    let handle = std::thread::Builder::new()
        .name("sqale-engine".into())
        .spawn(move || {
            // The context borrows the model: both live on this thread until it ends.
            let model = match Model::load(&model_path, &model_options) {
                Ok(m) => m,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let mut batched = match BatchedEngine::new(&model, engine.clone(), options.slots) {
                Ok(b) => b,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let per_seq = batched.context_per_sequence();
            let info = ServiceInfo {
                model: public_name(&model.path().display().to_string()),
                ctx: per_seq,
                slots: options.slots,
                queue: options.queue,
                max_episode_tokens: max_episode_tokens.min(per_seq),
                episode_timeout_seconds: options.episode_timeout.as_secs_f64(),
                temperature: decimal(engine.temperature),
                top_p: decimal(engine.top_p),
                top_k: engine.top_k,
                engine: "in-process".into(),
            };
            let _ = ready_tx.send(Ok(info.clone()));
            let work = |job: Job, gen: &mut SequenceGenerator<'_>| run_job(job, gen, &shared, &info, &options.settings);
            if let Err(e) = batched.run(jobs, work, &mut |()| {}) {
                shared.fail(e.to_string(), true);
            }
            shared.answer_failed();
        })
        .map_err(|_| StartError::Died)?;
    match ready_rx.recv() {
        Ok(Ok(info)) => Ok((handle, info)),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e.into())
        }
        Err(_) => {
            let _ = handle.join();
            Err(StartError::Died)
        }
    }
}

/// Starts `options.slots` workers that run the jobs on `pool`'s servers, on a thread that ends
/// once the queue is closed and every worker has finished its job.
pub(super) fn start_remote(
    shared: Arc<Shared>,
    pool: Arc<Pool>,
    sampling: Sampling,
    options: ServiceOptions,
    max_episode_tokens: usize,
) -> Result<(JoinHandle<()>, ServiceInfo), StartError> {
    let info = ServiceInfo {
        model: public_name(pool.model()),
        ctx: pool.context(),
        slots: options.slots,
        queue: options.queue,
        max_episode_tokens: max_episode_tokens.min(pool.context()),
        episode_timeout_seconds: options.episode_timeout.as_secs_f64(),
        temperature: decimal(sampling.temperature),
        top_p: decimal(sampling.top_p),
        top_k: sampling.top_k,
        engine: pool.servers().first().map_or_else(|| "server".into(), |s| s.kind.to_string()),
    };
    let thread_info = info.clone();
    let handle = std::thread::Builder::new()
        .name("sqale-workers".into())
        .spawn(move || {
            std::thread::scope(|scope| {
                for _ in 0..options.slots {
                    scope.spawn(|| {
                        let mut gen = RemoteGenerator::new(&pool, sampling);
                        while let Some(job) = shared.queue.pop() {
                            run_job(job, &mut gen, &shared, &thread_info, &options.settings);
                        }
                    });
                }
            });
        })
        .map_err(|_| StartError::Died)?;
    Ok((handle, info))
}

/// Probes the pool's dropped servers every [`REVIVE_EVERY`] until the service stops.
pub(super) fn revive(pool: &Pool, shared: &Shared) {
    let mut next = Instant::now() + REVIVE_EVERY;
    while !shared.stopped.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if Instant::now() >= next {
            pool.revive(REVIVE_EVERY);
            next = Instant::now() + REVIVE_EVERY;
        }
    }
}
