//! Decode speed on a busy machine: the same measurement as [`super::speed`] with 0, 1, …, N
//! other threads spinning on the CPUs, each level against the idle one in the same invocation.
//!
//! A Pi that also runs its owner's services, or a laptop in use, is the normal case. llama.cpp's
//! worker threads meet at a barrier after every operation of the graph; a thread whose core was
//! taken by another process makes the others wait, and a waiting thread that spins (OpenMP's
//! active wait, llama.cpp's own threadpool) burns the time the late one needs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;

use super::{speed, BenchError, SpeedSizes};
use crate::engine::{Engine, EngineOptions};

/// One busy level's speeds.
#[derive(Debug, Clone, Serialize)]
pub struct BusyLevel {
    /// Threads spinning beside the benchmark.
    pub busy: usize,
    /// Prefill tokens/s.
    pub pp_tps: f64,
    /// Decode tokens/s, mean over the repetitions.
    pub tg_tps_mean: f64,
    /// Its standard deviation.
    pub tg_tps_sd: f64,
    /// Decode speed over the idle level's.
    pub tg_over_idle: f64,
}

/// Decode speed at each busy level, and the thread settings it ran with.
#[derive(Debug, Clone, Serialize)]
pub struct BusyReport {
    /// The model file.
    pub model: String,
    /// llama.cpp threads.
    pub threads: i32,
    /// The thread settings in force (OpenMP or llama.cpp's threadpool, wait policy).
    pub threading: crate::engine::Threading,
    /// CPUs this process may use.
    pub cpus: usize,
    /// Each level, idle first.
    pub levels: Vec<BusyLevel>,
}

/// Threads that spin until dropped.
struct Spinners {
    stop: Arc<AtomicBool>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Spinners {
    fn start(n: usize) -> Spinners {
        let stop = Arc::new(AtomicBool::new(false));
        let handles = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..10_000 {
                            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                        }
                    }
                })
            })
            .collect();
        Spinners { stop, handles }
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// Measures `engine` idle and with 1..=`max_busy` spinning threads; `progress(level)` is called
/// as each level starts.
pub fn busy(
    engine: &mut Engine<'_>,
    options: &EngineOptions,
    sizes: SpeedSizes,
    max_busy: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<BusyReport, BenchError> {
    let mut levels: Vec<BusyLevel> = Vec::new();
    for n in 0..=max_busy {
        progress(n);
        let spinners = Spinners::start(n);
        let r = speed(engine, options, sizes, &mut |_, _| {})?;
        drop(spinners);
        let idle = levels.first().map_or(r.tg_tps_mean, |l| l.tg_tps_mean);
        levels.push(BusyLevel {
            busy: n,
            pp_tps: r.pp_tps_mean,
            tg_tps_mean: r.tg_tps_mean,
            tg_tps_sd: r.tg_tps_sd,
            tg_over_idle: if idle > 0.0 { r.tg_tps_mean / idle } else { 0.0 },
        });
    }
    Ok(BusyReport {
        model: engine.model().path().display().to_string(),
        threads: options.threads.unwrap_or_else(crate::engine::default_threads),
        threading: crate::engine::threading(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        levels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinners_stop_when_dropped() {
        let s = Spinners::start(2);
        assert_eq!(s.handles.len(), 2);
        drop(s);
    }
}
