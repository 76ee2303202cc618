//! Running an environment's SQL where it can be abandoned, so that a call returns by its
//! deadline whatever the statement computes.
//!
//! SQLite checks its progress handler (and `sqlite3_interrupt`) only between VM steps, and one
//! step can be one function call: `instr`, `trim`, `replace`, `LIKE` over megabyte strings run
//! for minutes inside a single step. Such a statement runs on a worker thread that the caller
//! can leave behind; every other one on the caller's thread, where a thread hop would cost more
//! than most queries take.
//!
//! Which is which is known before a statement runs: the authorizer sees every function a
//! statement calls (those of the views it reads included) and every table it reads, and a
//! statement that calls one of the functions that can take a long step, or reads a virtual table
//! or a table with generated columns, or any statement on a large file, goes to the worker
//! (`GuardedConnection::long_steps`). There the caller waits until the statement's deadline,
//! interrupts it, and waits [`STOP_GRACE`] more; a statement still running then is abandoned:
//! the caller answers [`ToolError::TimedOut`], the worker keeps the connection until SQLite
//! returns and then ends, and the next call opens a fresh guarded connection. At most
//! [`Limits::max_abandoned`] abandoned statements may run at once across the process; past that,
//! statements that need the worker are refused with [`ToolError::Busy`] until one ends.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use super::guard::{Clock, GuardedConnection};
use super::limits::STOP_GRACE;
use super::{EnvError, Limits, ToolError};

/// Abandoned workers whose statement has not returned yet, across the process.
static ABANDONED: AtomicUsize = AtomicUsize::new(0);

/// Stack of a worker thread: as much as a main thread, for SQLite's recursion over deep
/// expressions and patterns.
const WORKER_STACK_BYTES: usize = 8 << 20;

/// How often a caller looks at the deadline while no statement has armed one yet.
const UNARMED_POLL: Duration = Duration::from_millis(20);

/// How long a caller polls for the worker's answer before sleeping: a thread woken from sleep
/// costs tens of microseconds.
const SPIN: Duration = Duration::from_micros(100);

/// Stopped statements still running on abandoned workers, across the process.
pub(crate) fn abandoned_running() -> usize {
    ABANDONED.load(Ordering::SeqCst)
}

/// What a job works on: the guarded connection and the limits.
pub(crate) struct Session {
    pub(crate) db: GuardedConnection,
    pub(crate) limits: Limits,
    /// Running on the caller's thread: a statement that may run one long step must not start
    /// here ([`ToolError::NeedsWorker`]).
    pub(crate) inline: bool,
    clock: Arc<Clock>,
    interrupt: Arc<rusqlite::InterruptHandle>,
}

impl Session {
    fn open(path: &Path, limits: &Limits) -> Result<Box<Self>, EnvError> {
        let db = GuardedConnection::open(path)?;
        let (clock, interrupt) = (db.clock(), Arc::new(db.conn.get_interrupt_handle()));
        Ok(Box::new(Session { db, limits: limits.clone(), inline: false, clock, interrupt }))
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// One worker thread.
struct Worker {
    jobs: mpsc::Sender<Job>,
    abandoned: Arc<AtomicBool>,
}

/// Where an environment's statements run: on the caller's thread while none may run one long
/// step, else on a worker thread.
pub(crate) struct Runner {
    path: PathBuf,
    limits: Limits,
    state: Mutex<State>,
}

struct State {
    /// The session, here between jobs; `None` after its worker was abandoned, until the next
    /// job opens a fresh one.
    session: Option<Box<Session>>,
    worker: Option<Worker>,
}

impl Runner {
    /// Opens `path` (errors are the caller's, here).
    pub(crate) fn open(path: &Path, limits: Limits) -> Result<Self, EnvError> {
        let session = Session::open(path, &limits)?;
        Ok(Runner {
            path: path.to_path_buf(),
            limits,
            state: Mutex::new(State { session: Some(session), worker: None }),
        })
    }

    /// Runs `f` on the session, returning by the deadline of the statement running in it plus
    /// [`STOP_GRACE`]; past that, answers [`ToolError::TimedOut`] and abandons the worker.
    ///
    /// `f` runs first on the caller's thread; when it is about to run a statement that may take
    /// one long step it stops with [`ToolError::NeedsWorker`] (before running anything), and
    /// runs again, from the start, on the worker.
    pub(crate) fn run<T, F>(&self, f: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: Fn(&mut Session) -> Result<T, ToolError> + Send + 'static,
    {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.session.is_none() {
            state.session =
                Some(Session::open(&self.path, &self.limits).map_err(|e| ToolError::Reopen(e.to_string()))?);
        }
        let Some(session) = state.session.as_mut() else {
            return Err(ToolError::Reopen("no connection".to_string()));
        };
        if !self.limits.isolate || !session.db.large {
            session.inline = self.limits.isolate;
            let out = f(session);
            session.inline = false;
            session.db.disarm();
            match out {
                Err(ToolError::NeedsWorker) => {}
                other => return other,
            }
        }
        let running = abandoned_running();
        if running >= self.limits.max_abandoned {
            return Err(ToolError::Busy(running));
        }
        if state.worker.is_none() {
            state.worker = Some(spawn().map_err(|e| ToolError::Reopen(e.to_string()))?);
        }
        let (Some(session), Some(worker)) = (state.session.take(), state.worker.as_ref()) else {
            return Err(ToolError::Reopen("no connection".to_string()));
        };
        let (clock, interrupt) = (Arc::clone(&session.clock), Arc::clone(&session.interrupt));
        let (tx, rx) = mpsc::sync_channel(1);
        let job: Job = Box::new(move || {
            let mut session = session;
            let out = f(&mut session);
            session.db.disarm();
            let _ = tx.send((session, out));
        });
        if worker.jobs.send(job).is_err() {
            state.worker = None;
            return Err(ToolError::Reopen("the query worker had stopped".to_string()));
        }
        if let Some((session, out)) = spin_recv(&rx) {
            state.session = Some(session);
            return out;
        }
        // The deadline whose passing has been signalled with `sqlite3_interrupt`.
        let mut interrupted = None;
        loop {
            let now = Instant::now();
            let wait = match clock.deadline() {
                // Until the deadline (to interrupt), then until the end of the grace.
                Some(d) if interrupted != Some(d) => d.saturating_duration_since(now),
                Some(d) => (d + STOP_GRACE).saturating_duration_since(now),
                None => UNARMED_POLL,
            };
            match rx.recv_timeout(wait) {
                Ok((session, out)) => {
                    state.session = Some(session);
                    return out;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let Some(d) = clock.deadline() else { continue };
                    let now = Instant::now();
                    if now >= d && interrupted != Some(d) {
                        // Stops what checks for it between VM steps (counting a table's rows
                        // walks its pages in one step); the progress handler does the rest.
                        interrupt.interrupt();
                        interrupted = Some(d);
                    }
                    if now >= d + STOP_GRACE {
                        // The statement is inside one long step: leave it to finish on its own,
                        // with its connection.
                        if let Some(worker) = state.worker.take() {
                            ABANDONED.fetch_add(1, Ordering::SeqCst);
                            worker.abandoned.store(true, Ordering::SeqCst);
                        }
                        return Err(ToolError::TimedOut(self.limits.timeout));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // The job panicked; the worker and the connection are gone.
                    state.worker = None;
                    return Err(ToolError::Reopen("the query worker stopped unexpectedly".to_string()));
                }
            }
        }
    }
}

/// Starts a worker thread; it runs jobs until its sender is dropped or it is abandoned.
fn spawn() -> std::io::Result<Worker> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let abandoned = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&abandoned);
    std::thread::Builder::new().name("sqale-sql".to_string()).stack_size(WORKER_STACK_BYTES).spawn(move || {
        let count = AbandonedCount(flag);
        while let Ok(job) = inbox.recv() {
            // An abandoned job's session (and connection) is dropped when the job ends.
            job();
            if count.0.load(Ordering::SeqCst) {
                break;
            }
        }
    })?;
    Ok(Worker { jobs, abandoned })
}

/// What arrives on `rx` within [`SPIN`], polled without sleeping.
fn spin_recv<T>(rx: &mpsc::Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if start.elapsed() >= SPIN => return None,
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
}

/// Takes an abandoned worker off the count when its thread ends.
struct AbandonedCount(Arc<AtomicBool>);

impl Drop for AbandonedCount {
    fn drop(&mut self) {
        if self.0.load(Ordering::SeqCst) {
            ABANDONED.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
