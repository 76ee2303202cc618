//! The queue of requests waiting for a sequence: bounded, and a request whose client has gone
//! leaves it at once ([`JobQueue::withdraw`]), so abandoned requests never hold its places.
//!
//! (A channel cannot do the second: a cancelled job would sit in it, holding a place, until a
//! worker reached it.)

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::Job;

/// Why a job was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PushError {
    /// Every place is taken.
    Full,
    /// The queue is closed (shutdown began, or the engine failed).
    Closed,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    closed: bool,
    /// Workers blocked in [`JobQueue::pop`]: each takes a job at once, so it needs no place.
    idle: usize,
}

/// At most `capacity` jobs waiting (beyond those an idle worker takes at once), in order.
pub(super) struct JobQueue {
    state: Mutex<State>,
    ready: Condvar,
    capacity: usize,
    /// Jobs waiting, kept exact under the lock (the metrics' queue depth).
    depth: Arc<AtomicUsize>,
}

impl JobQueue {
    /// An open queue with `capacity` places, counting its jobs in `depth`.
    pub(super) fn new(capacity: usize, depth: Arc<AtomicUsize>) -> Self {
        JobQueue { state: Mutex::new(State::default()), ready: Condvar::new(), capacity, depth }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked holding the lock leaves the queue itself consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The depth is the jobs beyond those the idle workers take at once: a job pushed for a
    /// worker that has not woken yet is not waiting for a place.
    fn count(&self, s: &State) {
        self.depth.store(s.jobs.len().saturating_sub(s.idle), Ordering::Relaxed);
    }

    /// Queues `job`; returns how many jobs wait now (this one included).
    pub(super) fn push(&self, job: Job) -> Result<usize, PushError> {
        let mut s = self.lock();
        if s.closed {
            return Err(PushError::Closed);
        }
        if s.jobs.len() >= self.capacity + s.idle {
            return Err(PushError::Full);
        }
        s.jobs.push_back(job);
        let n = s.jobs.len();
        self.count(&s);
        drop(s);
        self.ready.notify_one();
        Ok(n)
    }

    /// The next job, waiting for one; `None` once the queue is closed.
    pub(super) fn pop(&self) -> Option<Job> {
        let mut s = self.lock();
        loop {
            if s.closed {
                return None;
            }
            if let Some(job) = s.jobs.pop_front() {
                self.count(&s);
                return Some(job);
            }
            s.idle += 1;
            s = self.ready.wait(s).unwrap_or_else(|e| e.into_inner());
            s.idle -= 1;
        }
    }

    /// Takes the job `id` out of the queue, if it is still waiting.
    pub(super) fn withdraw(&self, id: u64) -> Option<Job> {
        let mut s = self.lock();
        let at = s.jobs.iter().position(|j| j.id == id)?;
        let job = s.jobs.remove(at);
        self.count(&s);
        job
    }

    /// Closes the queue: every `pop` from now on returns `None`. Returns the jobs that waited.
    pub(super) fn close(&self) -> Vec<Job> {
        let mut s = self.lock();
        s.closed = true;
        let jobs = s.jobs.drain(..).collect();
        self.count(&s);
        drop(s);
        self.ready.notify_all();
        jobs
    }

    /// Jobs waiting.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.depth.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::serve::databases::Database;
    use crate::serve::service::Request;

    fn job(id: u64) -> Job {
        let db = Database { name: "d".into(), path: "/x".into(), tables: vec![], views: vec![], columns: vec![] };
        let request = Request { question: "q".into(), evidence: None, db, seed: None, max_episode_tokens: None };
        let (updates, _) = tokio::sync::mpsc::unbounded_channel();
        Job { id, request, seed: 1, max_episode_tokens: 1, updates, cancel: Arc::new(AtomicBool::new(false)) }
    }

    #[test]
    fn a_withdrawn_job_frees_its_place() {
        let q = JobQueue::new(2, Arc::default());
        assert_eq!(q.push(job(1)).ok(), Some(1));
        assert_eq!(q.push(job(2)).ok(), Some(2));
        assert!(q.push(job(3)).err() == Some(PushError::Full));
        assert_eq!(q.withdraw(1).map(|j| j.id), Some(1));
        assert!(q.withdraw(1).is_none(), "withdrawn once");
        assert_eq!(q.push(job(3)).ok(), Some(2));
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop().map(|j| j.id), Some(2), "in order");
        assert_eq!(q.close().iter().map(|j| j.id).collect::<Vec<_>>(), [3]);
        assert!(q.pop().is_none());
        assert!(q.push(job(4)).err() == Some(PushError::Closed));
    }

    #[test]
    fn an_idle_worker_takes_a_job_even_with_no_places() {
        let q = Arc::new(JobQueue::new(0, Arc::default()));
        assert!(q.push(job(1)).err() == Some(PushError::Full), "no worker waits");
        let worker = std::thread::spawn({
            let q = q.clone();
            move || q.pop().map(|j| j.id)
        });
        while q.lock().idle == 0 {
            std::thread::yield_now();
        }
        assert!(q.push(job(2)).is_ok());
        assert_eq!(q.len(), 0, "the job an idle worker takes is not counted as waiting");
        assert_eq!(worker.join().unwrap(), Some(2));
        assert_eq!(q.len(), 0);
    }
}
