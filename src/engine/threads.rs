//! How llama.cpp's CPU threads wait for each other, and sqale's default for it.
//!
//! llama.cpp's workers meet at a barrier after every operation of the graph. In sqale's default
//! build they are OpenMP threads (libgomp), whose waiting is set by `OMP_WAIT_POLICY` (`ACTIVE`
//! spins, `PASSIVE` sleeps in the kernel) and `GOMP_SPINCOUNT` (spin this many times, then
//! sleep; libgomp's own default is 300,000). A sleeping worker must be woken at the next barrier,
//! and on a virtual machine or a laptop in a power-saving state that wake-up takes longer than
//! the operation it waits for (docs/measurements.md has how much slower sleeping decodes).
//! A worker that spins for a long while burns the time slice a late partner needs on a busy
//! machine. sqale therefore spins briefly ([`GOMP_SPINCOUNT_DEFAULT`]) and then sleeps, unless
//! the environment sets either variable (`sqale bench --busy`, docs/backends.md, "A busy
//! machine").

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

/// The OpenMP spin count sqale uses when neither `OMP_WAIT_POLICY` nor `GOMP_SPINCOUNT` is set.
pub const GOMP_SPINCOUNT_DEFAULT: &str = "3000";

static SET_BY_SQALE: AtomicBool = AtomicBool::new(false);

/// The thread settings in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Threading {
    /// `openmp` (libgomp) or `threadpool` (llama.cpp's own, built without the `openmp` feature).
    pub pool: &'static str,
    /// `OMP_WAIT_POLICY` in force (OpenMP builds), if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omp_wait_policy: Option<String>,
    /// `GOMP_SPINCOUNT` in force (OpenMP builds), if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gomp_spincount: Option<String>,
    /// Where they came from: `sqale` (its default) or `environment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_from: Option<&'static str>,
}

impl Threading {
    /// The settings as environment assignments, e.g. `GOMP_SPINCOUNT=3000`; empty when none is set.
    pub fn wait_settings(&self) -> String {
        let policy = self.omp_wait_policy.as_ref().map(|p| format!("OMP_WAIT_POLICY={p}"));
        let spin = self.gomp_spincount.as_ref().map(|s| format!("GOMP_SPINCOUNT={s}"));
        policy.into_iter().chain(spin).collect::<Vec<_>>().join(" ")
    }
}

/// Sets sqale's thread defaults in the environment, where the user set none. Call first thing
/// in `main`, before any thread starts (libgomp reads the variables when it starts).
pub fn apply_defaults() {
    let unset = |v: &str| std::env::var_os(v).is_none();
    if cfg!(feature = "openmp") && unset("OMP_WAIT_POLICY") && unset("GOMP_SPINCOUNT") {
        std::env::set_var("GOMP_SPINCOUNT", GOMP_SPINCOUNT_DEFAULT);
        SET_BY_SQALE.store(true, Ordering::Relaxed);
    }
}

/// The thread settings in force.
pub fn threading() -> Threading {
    if cfg!(feature = "openmp") {
        let omp_wait_policy = std::env::var("OMP_WAIT_POLICY").ok();
        let gomp_spincount = std::env::var("GOMP_SPINCOUNT").ok();
        let set = omp_wait_policy.is_some() || gomp_spincount.is_some();
        let from = set.then(|| if SET_BY_SQALE.load(Ordering::Relaxed) { "sqale" } else { "environment" });
        Threading { pool: "openmp", omp_wait_policy, gomp_spincount, policy_from: from }
    } else {
        Threading { pool: "threadpool", omp_wait_policy: None, gomp_spincount: None, policy_from: None }
    }
}
