//! Evaluation on inference servers: `parallel` episodes in flight across a [`Pool`], each on a
//! thread of its own (its tool calls run on the client while the others wait on a server).
//!
//! Every question ends as exactly one record: scored, or, when the servers failed it, a record
//! with its `error` (never a wrong answer; a resumed run plays it again). A wrong API key stops
//! the run.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use super::{episode_seed, play, score_record, EvalError, GoldCache, Question, Record, Writer};
use crate::agent::{AgentError, Settings};
use crate::divergence::run::DivergenceDir;
use crate::divergence::{Recorder, Transcript};
use crate::generate::Generator;
use crate::remote::{remote_error, Pool, RemoteError, RemoteGenerator, Sampling};

/// Runs every question not yet in `results` for `model` on `pool`, `parallel` at once,
/// appending a record per episode as it finishes; `progress(done, total, record)` after each.
/// Seeds derive from `seed` and the question id, as in-process. With `transcripts`, each played
/// episode's exact token sequence is appended there before its record (a remote reference of a
/// divergence measurement, [`crate::divergence`]).
#[allow(clippy::too_many_arguments)] // each is one of the run's independent inputs
pub fn run(
    pool: &Pool,
    sampling: Sampling,
    parallel: usize,
    settings: &Settings,
    model: &str,
    questions: &[Question],
    seed: u32,
    results: &Path,
    gold: &mut GoldCache,
    transcripts: Option<&DivergenceDir>,
    progress: &mut dyn FnMut(usize, usize, &Record),
) -> Result<usize, EvalError> {
    let (mut out, todo) = Writer::start(questions, results, model, gold, &settings.limits, progress)?;
    let queue: VecDeque<&Question> = todo.into();
    let gold: &GoldCache = gold;
    let queue = Mutex::new(queue);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(Result<Record, EvalError>, Option<Transcript>)>();
    let record = transcripts.is_some();
    let workers = parallel.max(1);
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (queue, stop) = (&queue, &stop);
            scope.spawn(move || {
                let mut generator = RemoteGenerator::new(pool, sampling);
                while !stop.load(Ordering::SeqCst) {
                    let Some(q) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else { break };
                    let r = if record {
                        let mut rec = Recorder::new(&mut generator);
                        let r = one(&mut rec, settings, model, q, seed, gold);
                        let pieces = rec.take();
                        // Only a played episode has a sequence worth keeping.
                        let t = r.as_ref().ok().filter(|r| r.error.is_none()).map(|r| Transcript {
                            id: q.id.clone(),
                            ended_by: r.ended_by.clone().unwrap_or_default(),
                            pieces,
                            ids: Some(generator.ids().to_vec()),
                        });
                        (r, t)
                    } else {
                        (one(&mut generator, settings, model, q, seed, gold), None)
                    };
                    if tx.send(r).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (r, t) in rx {
            if failure.is_some() {
                continue;
            }
            if let (Some(dir), Some(t)) = (transcripts, &t) {
                if let Err(e) = dir.append_transcript(t) {
                    stop.store(true, Ordering::SeqCst);
                    failure = Some(EvalError::Divergence(e));
                    continue;
                }
            }
            if let Err(e) = r.and_then(|r| out.write(r)) {
                stop.store(true, Ordering::SeqCst);
                failure = Some(e);
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(out.total),
    }
}

/// One question's record: scored, or failed with the servers' error; `Err` only for what must
/// stop the run (a rejected API key, a bug).
fn one<G: Generator>(
    generator: &mut G,
    settings: &Settings,
    model: &str,
    q: &Question,
    seed: u32,
    gold: &GoldCache,
) -> Result<Record, EvalError> {
    match play(&mut *generator, settings, model, q, seed, gold) {
        Ok(r) => Ok(r),
        Err(EvalError::Episode { source: AgentError::Generate(e), id }) => match remote_error(&e) {
            Some(RemoteError::Unauthorized { .. }) | None => {
                Err(EvalError::Episode { id, source: AgentError::Generate(e) })
            }
            Some(_) => {
                let g = gold.computed(&q.id).ok_or_else(|| EvalError::GoldMissing { id: q.id.clone() })?;
                // Not scored: no SQL, and the record says why.
                let mut r = score_record(model, q, None, g, &settings.limits);
                r.seed = episode_seed(seed, &q.id);
                r.error = Some(e.to_string());
                Ok(r)
            }
        },
        Err(e) => Err(e),
    }
}
