//! How llama.cpp's CPU threads wait for each other, and sqale's default for it.
//!
//! llama.cpp's workers meet at a barrier after every operation of the graph. In sqale's default
//! build they are OpenMP threads (libgomp), whose waiting is set by `OMP_WAIT_POLICY`: `ACTIVE`
//! spins, `PASSIVE` sleeps in the kernel, unset spins for a while first. On an idle machine
//! spinning wins a little; on a busy one (a Pi running its owner's services, a laptop in use) a
//! spinning worker burns the time slice its late partner needs, and decoding collapses.
//! Measured in the "A busy machine" in docs/backends.md (`sqale bench --busy 2`), which is why sqale sets
//! [`OMP_WAIT_POLICY_DEFAULT`] unless the environment says otherwise.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

/// The OpenMP wait policy sqale uses when `OMP_WAIT_POLICY` is not set.
pub const OMP_WAIT_POLICY_DEFAULT: &str = "PASSIVE";

static SET_BY_SQALE: AtomicBool = AtomicBool::new(false);

/// The thread settings in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Threading {
    /// `openmp` (libgomp) or `threadpool` (llama.cpp's own, built without the `openmp` feature).
    pub pool: &'static str,
    /// `OMP_WAIT_POLICY` in force (OpenMP builds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omp_wait_policy: Option<String>,
    /// Where it came from: `sqale` (its default) or `environment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_from: Option<&'static str>,
}

/// Sets sqale's thread defaults in the environment, where the user set none. Call first thing
/// in `main`, before any thread starts (libgomp reads the variable when it starts).
pub fn apply_defaults() {
    if cfg!(feature = "openmp") && std::env::var_os("OMP_WAIT_POLICY").is_none() {
        std::env::set_var("OMP_WAIT_POLICY", OMP_WAIT_POLICY_DEFAULT);
        SET_BY_SQALE.store(true, Ordering::Relaxed);
    }
}

/// The thread settings in force.
pub fn threading() -> Threading {
    if cfg!(feature = "openmp") {
        let policy = std::env::var("OMP_WAIT_POLICY").ok();
        let from = policy.as_ref().map(|_| if SET_BY_SQALE.load(Ordering::Relaxed) { "sqale" } else { "environment" });
        Threading { pool: "openmp", omp_wait_policy: policy, policy_from: from }
    } else {
        Threading { pool: "threadpool", omp_wait_policy: None, policy_from: None }
    }
}
