//! A bounded load on `sqale serve` over 127.0.0.1: for each N in `--parallel` (default 1,2,4),
//! a server with N episodes at once and `--clients` clients (default 4·N) asking at once, each
//! `--requests` questions one after another. Reports p50/p95 latency, episodes per minute (and
//! against the first N), the 503s, the service's peak resident memory, and with `--server` the
//! share of prompt tokens each inference server took from its cache.
//!
//! ```sh
//! cargo build --release && cargo run --release --example serve_load -- \
//!     models/test/SmolLM2-135M-Instruct.Q4_1.gguf [--parallel 1,2,4] [--requests 1] [--budget 1100] \
//!     [--clients C] [--server URL]...
//! ```
//!
//! With `--server` (repeatable) the service runs on those inference servers and MODEL is not
//! loaded (`benches/serve-remote.sh` starts llama.cpp servers and runs both ways).

#[path = "../tests/support/serve_client.rs"]
mod serve_client;

use std::time::{Duration, Instant};

use serde_json::json;
use serve_client::{ask_stream, Server};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let model = args.next().expect(
        "usage: serve_load MODEL [--parallel 1,2,4] [--requests R] [--budget TOKENS] [--clients C] [--server URL]...",
    );
    let (mut parallel, mut requests, mut budget) = (vec![1usize, 2, 4], 1usize, 1100usize);
    let (mut clients_flag, mut servers): (Option<usize>, Vec<String>) = (None, Vec::new());
    while let Some(flag) = args.next() {
        let value = args.next().expect("a value after the flag");
        match flag.as_str() {
            "--parallel" => parallel = value.split(',').map(|v| v.parse().expect("--parallel 1,2,4")).collect(),
            "--requests" => requests = value.parse().expect("--requests R"),
            "--budget" => budget = value.parse().expect("--budget TOKENS"),
            "--clients" => clients_flag = Some(value.parse().expect("--clients C")),
            "--server" => servers.push(value),
            other => panic!("unknown flag {other}"),
        }
    }
    let engine: Vec<String> = if servers.is_empty() {
        vec!["--model".into(), model.clone(), "--ctx".into(), "2048".into()]
    } else {
        servers.iter().flat_map(|u| ["--server".to_string(), u.clone()]).collect()
    };
    let bin = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("sqale");
    assert!(bin.is_file(), "build the binary first: cargo build --release ({})", bin.display());
    println!(
        "| N | clients | requests | answered | 503 | p50 s | p95 s | episodes/min | vs N={} | peak RSS MiB | cached prompt share |",
        parallel[0]
    );
    println!("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|");
    let mut first_rate = None;
    for &n in &parallel {
        let clients = clients_flag.unwrap_or(4 * n);
        let mut flags: Vec<String> = engine.clone();
        for (k, v) in [("--max-episode-tokens", budget), ("--parallel", n), ("--queue", clients)] {
            flags.extend([k.to_string(), v.to_string()]);
        }
        let s = Server::start(&bin, &flags.iter().map(String::as_str).collect::<Vec<_>>());
        let started = Instant::now();
        let results: Vec<(f64, bool)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..clients)
                .map(|c| {
                    let url = s.url.clone();
                    scope.spawn(move || {
                        (0..requests)
                            .map(|r| {
                                let t = Instant::now();
                                let q = format!("Client {c}, question {r}: how many orders were shipped?");
                                let seed = (c * 100 + r) as u32;
                                let ok =
                                    ask_stream(&url, json!({"question": q, "db": "demo", "seed": seed}), |_| false)
                                        .is_ok_and(|ev| ev.last().is_some_and(|e| e.event == "done"));
                                (t.elapsed().as_secs_f64(), ok)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let wall = started.elapsed();
        let mut latencies: Vec<f64> = results.iter().filter(|r| r.1).map(|r| r.0).collect();
        latencies.sort_by(f64::total_cmp);
        let answered = latencies.len();
        let rate = answered as f64 / wall.as_secs_f64() * 60.0;
        let base = *first_rate.get_or_insert(rate);
        let cached: Vec<String> = servers
            .iter()
            .map(|u| {
                let sample = |name: &str| s.metric(&format!("{name}{{server=\"{u}\"}}")).unwrap_or(0.0);
                let share =
                    sample("sqale_server_cached_prompt_tokens_total") / sample("sqale_server_prompt_tokens_total");
                format!("{:.0} %", 100.0 * share)
            })
            .collect();
        println!(
            "| {n} | {clients} | {} | {answered} | {} | {:.1} | {:.1} | {:.2} | {:.2}x | {:.0} | {} |",
            results.len(),
            results.len() - answered,
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            rate,
            rate / base,
            s.peak_rss_kib() as f64 / 1024.0,
            if cached.is_empty() { "–".to_string() } else { cached.join(" / ") }
        );
        drop(s);
        std::thread::sleep(Duration::from_millis(500));
    }
}
