//! Whether a service can answer: taking requests, shutting down, or failed because its engine
//! stopped (llama.cpp's decode failed). `/health` reports it; a failed service takes no more
//! requests, and the process that runs it should exit so that a supervisor starts a fresh one.

use tokio::sync::watch;

/// How a service stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Health {
    /// Taking requests.
    Ok,
    /// Shutting down: new requests are refused, running episodes finish.
    ShuttingDown,
    /// The engine failed: every request is refused, and the process should exit.
    Failed(String),
}

impl Health {
    /// The name `/health` reports: `ok`, `shutting_down` or `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Health::Ok => "ok",
            Health::ShuttingDown => "shutting_down",
            Health::Failed(_) => "failed",
        }
    }
}

/// Where an engine's failure stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    Running,
    /// Failed; the engine thread is still answering what it held.
    Failing(String),
    /// Failed, and every request the engine held has its answer.
    Failed(String),
}

/// The engine's failure, once there is one: recorded by the first thread that sees it, read by
/// `/health`, awaited by whoever stops the process.
#[derive(Debug)]
pub(crate) struct EngineFailure {
    stage: watch::Sender<Stage>,
}

impl Default for EngineFailure {
    fn default() -> Self {
        EngineFailure { stage: watch::channel(Stage::Running).0 }
    }
}

impl EngineFailure {
    /// Records `error`. The first record stands, except that the `cause` (the error the engine's
    /// run loop returned) replaces what an episode saw of it ("the scheduler stopped"). Returns
    /// whether this was the first record.
    pub(crate) fn record(&self, error: String, cause: bool) -> bool {
        let mut first = false;
        self.stage.send_if_modified(|stage| match stage {
            Stage::Running => {
                first = true;
                *stage = Stage::Failing(error);
                true
            }
            Stage::Failing(e) if cause => {
                *e = error;
                true
            }
            _ => false,
        });
        first
    }

    /// Marks the failure as settled: every request the engine held has its answer.
    pub(crate) fn settle(&self) {
        self.stage.send_if_modified(|stage| match stage {
            Stage::Failing(e) => {
                *stage = Stage::Failed(std::mem::take(e));
                true
            }
            _ => false,
        });
    }

    /// The error, once the engine failed.
    pub(crate) fn get(&self) -> Option<String> {
        match &*self.stage.borrow() {
            Stage::Running => None,
            Stage::Failing(e) | Stage::Failed(e) => Some(e.clone()),
        }
    }

    /// Waits until the engine has failed and its failure is settled; returns the error.
    pub(crate) async fn wait(&self) -> String {
        let mut rx = self.stage.subscribe();
        let seen = rx.wait_for(|s| matches!(s, Stage::Failed(_))).await.map(|s| s.clone());
        match seen {
            Ok(Stage::Failed(e)) => e,
            // The sender lives as long as `self`: not reached.
            _ => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_stands_unless_the_cause_comes_later() {
        let f = EngineFailure::default();
        assert_eq!(f.get(), None);
        assert!(f.record("the scheduler stopped".into(), false));
        assert!(!f.record("another episode's error".into(), false));
        assert_eq!(f.get().as_deref(), Some("the scheduler stopped"));
        assert!(!f.record("decode failed".into(), true));
        assert_eq!(f.get().as_deref(), Some("decode failed"));
        f.settle();
        assert!(!f.record("later".into(), true), "settled");
        assert_eq!(f.get().as_deref(), Some("decode failed"));
    }

    #[test]
    fn waiting_ends_once_the_failure_is_settled() {
        let f = std::sync::Arc::new(EngineFailure::default());
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let g = f.clone();
        let error = rt.block_on(async move {
            let waiter = tokio::spawn(async move { g.wait().await });
            tokio::task::yield_now().await;
            f.record("decode failed".into(), true);
            tokio::task::yield_now().await;
            assert!(!waiter.is_finished(), "not before it is settled");
            f.settle();
            waiter.await.unwrap()
        });
        assert_eq!(error, "decode failed");
    }
}
