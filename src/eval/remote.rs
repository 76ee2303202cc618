//! Evaluation on inference servers: `parallel` episodes in flight across a [`Pool`], each on a
//! thread of its own (its tool calls run on the client while the others wait on a server).
//!
//! Every question ends as exactly one record: scored, or, when the servers failed it, a record
//! with its `error` (never a wrong answer; a resumed run plays it again). A wrong API key stops
//! the run.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use super::{episode_seed, play, score_record, EvalError, GoldCache, Plan, Question, Record, Sink};
use crate::agent::AgentError;
use crate::divergence::{Recorder, Transcript};
use crate::generate::Generator;
use crate::remote::{remote_error, Pool, RemoteError, RemoteGenerator, Sampling};

/// Runs `plan` on `pool`, `parallel` episodes at once, each record into `sink` as its episode
/// finishes (when the sink records transcripts, each played episode's exact token sequence, with
/// the ids the server held, goes with it). Seeds derive from the run's seed and the question id,
/// as in-process. Returns how many questions the run took.
pub fn run(
    pool: &Pool,
    sampling: Sampling,
    parallel: usize,
    plan: &Plan<'_>,
    gold: &mut GoldCache,
    sink: &mut Sink<'_>,
) -> Result<usize, EvalError> {
    let todo = sink.start(plan, gold)?;
    let queue: VecDeque<&Question> = todo.into();
    let gold: &GoldCache = gold;
    let queue = Mutex::new(queue);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(Result<Record, EvalError>, Option<Transcript>)>();
    let record = sink.records_transcripts();
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
                        let r = play_or_record_failure(&mut rec, plan, q, gold);
                        let pieces = rec.take();
                        // Only a played episode has a sequence worth keeping.
                        let t = r.as_ref().ok().filter(|r| r.error.is_none()).map(|r| Transcript {
                            id: q.id.clone(),
                            ended_by: r.ended_by,
                            pieces,
                            ids: Some(generator.ids().to_vec()),
                        });
                        (r, t)
                    } else {
                        (play_or_record_failure(&mut generator, plan, q, gold), None)
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
            if let Err(e) = r.and_then(|r| sink.write(r, t)) {
                stop.store(true, Ordering::SeqCst);
                failure = Some(e);
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(sink.total()),
    }
}

/// Plays question `q` of `plan`: its scored record, or, when the servers failed the episode, a
/// record of the failure (not scored, played again by a resumed run); `Err` only for what must
/// stop the run (a rejected API key, a bug).
fn play_or_record_failure<G: Generator>(
    generator: &mut G,
    plan: &Plan<'_>,
    q: &Question,
    gold: &GoldCache,
) -> Result<Record, EvalError> {
    match play(&mut *generator, plan, q, gold) {
        Ok(r) => Ok(r),
        Err(EvalError::Episode { source: AgentError::Generate(e), id }) => match remote_error(&e) {
            Some(RemoteError::Unauthorized { .. }) | None => {
                Err(EvalError::Episode { id, source: AgentError::Generate(e) })
            }
            Some(_) => {
                let g = gold.computed(&q.id).ok_or_else(|| EvalError::GoldMissing { id: q.id.clone() })?;
                // Not scored: no SQL, and the record says why.
                let mut r = score_record(plan.label, q, None, g, &plan.settings.limits);
                r.seed = episode_seed(plan.seed, &q.id);
                r.error = Some(e.to_string());
                Ok(r)
            }
        },
        Err(e) => Err(e),
    }
}
