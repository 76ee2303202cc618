//! A service's counters, and their Prometheus text form (`GET /metrics`).
//!
//! Plain atomics: a scrape reads them without stopping the engine. Counters only grow;
//! gauges (`queue_depth`, `running`) are what they are at the moment of the scrape.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::agent::Episode;
use crate::remote::ServerStatus;

/// Why a request got no episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    /// The queue was full (503).
    QueueFull,
    /// The service was shutting down (503).
    ShuttingDown,
    /// Every inference server was down (503).
    NoServer,
}

impl Refusal {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::QueueFull => "queue_full",
            Refusal::ShuttingDown => "shutting_down",
            Refusal::NoServer => "no_server",
        }
    }
}

/// Why an accepted episode did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Failure {
    /// The client went away.
    Cancelled,
    /// It ran past the episode time limit.
    TimedOut,
    /// The engine or the database failed.
    Error,
    /// No inference server could take its requests.
    Unavailable,
}

impl Failure {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::Cancelled => "cancelled",
            Failure::TimedOut => "timed_out",
            Failure::Error => "error",
            Failure::Unavailable => "no_server",
        }
    }
}

/// The counters of one service.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Requests waiting for a sequence (shared with the queue, which keeps it exact).
    pub queued: Arc<AtomicUsize>,
    /// Episodes running.
    pub running: AtomicUsize,
    ended: Mutex<BTreeMap<String, u64>>,
    refused: Mutex<BTreeMap<String, u64>>,
    failed: Mutex<BTreeMap<String, u64>>,
    generated_tokens: AtomicU64,
    decoded_tokens: AtomicU64,
    /// Microseconds, summed over episodes.
    generate_us: AtomicU64,
    prefill_us: AtomicU64,
    episode_us: AtomicU64,
    drafted: AtomicU64,
    accepted: AtomicU64,
}

fn bump(map: &Mutex<BTreeMap<String, u64>>, key: &str) {
    if let Ok(mut m) = map.lock() {
        *m.entry(key.to_string()).or_default() += 1;
    }
}

fn pairs(map: &Mutex<BTreeMap<String, u64>>) -> Vec<(String, u64)> {
    map.lock().map(|m| m.iter().map(|(k, v)| (k.clone(), *v)).collect()).unwrap_or_default()
}

fn us(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1e6) as u64
}

impl Metrics {
    /// Counts a finished episode.
    pub fn episode(&self, e: &Episode) {
        bump(&self.ended, e.ended_by.as_str());
        let t = &e.tokens;
        self.generated_tokens.fetch_add(t.generated_tokens as u64, Ordering::Relaxed);
        self.decoded_tokens.fetch_add(t.decoded_tokens as u64, Ordering::Relaxed);
        self.generate_us.fetch_add(us(t.generate_seconds), Ordering::Relaxed);
        self.prefill_us.fetch_add(us(t.prefill_seconds), Ordering::Relaxed);
        self.episode_us.fetch_add(us(e.seconds), Ordering::Relaxed);
        for d in [&t.speculation.lookup, &t.speculation.mtp] {
            self.drafted.fetch_add(d.drafted as u64, Ordering::Relaxed);
            self.accepted.fetch_add(d.accepted as u64, Ordering::Relaxed);
        }
    }

    /// Counts a refused request.
    pub fn refused(&self, why: Refusal) {
        bump(&self.refused, why.as_str());
    }

    /// Counts an episode that did not finish.
    pub fn failed(&self, why: Failure) {
        bump(&self.failed, why.as_str());
    }

    /// Episodes finished so far.
    pub fn episodes(&self) -> u64 {
        self.ended.lock().map(|m| m.values().sum()).unwrap_or(0)
    }

    /// Mean seconds of a finished episode (for `Retry-After`), if any finished.
    pub fn mean_episode_seconds(&self) -> Option<f64> {
        let n = self.episodes();
        (n > 0).then(|| self.episode_us.load(Ordering::Relaxed) as f64 / 1e6 / n as f64)
    }

    /// The Prometheus text exposition of every counter.
    pub fn render(&self, slots: usize, queue_capacity: usize) -> String {
        let mut s = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, f64)]| {
            write_metric(&mut s, name, kind, help, samples)
        };
        let one = |v: f64| vec![(String::new(), v)];
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64;
        let labelled = |key: &str, pairs: Vec<(String, u64)>| -> Vec<(String, f64)> {
            pairs.into_iter().map(|(k, v)| (format!("{{{key}=\"{k}\"}}"), v as f64)).collect()
        };
        let (ended, failed, refused) = (pairs(&self.ended), pairs(&self.failed), pairs(&self.refused));
        metric("episodes_total", "counter", "Episodes finished, by how they ended.", &labelled("ended_by", ended));
        metric(
            "episodes_failed_total",
            "counter",
            "Accepted episodes that did not finish.",
            &labelled("reason", failed),
        );
        metric("requests_refused_total", "counter", "Requests answered 503.", &labelled("reason", refused));
        metric(
            "queue_depth",
            "gauge",
            "Requests waiting for a sequence.",
            &one(self.queued.load(Ordering::Relaxed) as f64),
        );
        metric("queue_capacity", "gauge", "Requests that may wait.", &one(queue_capacity as f64));
        metric(
            "episodes_running",
            "gauge",
            "Episodes on a sequence now.",
            &one(self.running.load(Ordering::Relaxed) as f64),
        );
        metric("sequences", "gauge", "Sequences of the context (episodes at once).", &one(slots as f64));
        metric(
            "generated_tokens_total",
            "counter",
            "Tokens generated by finished episodes.",
            &one(load(&self.generated_tokens)),
        );
        metric(
            "decoded_tokens_total",
            "counter",
            "Tokens decoded by finished episodes.",
            &one(load(&self.decoded_tokens)),
        );
        let gen_s = load(&self.generate_us) / 1e6;
        metric("generate_seconds_total", "counter", "Seconds spent generating.", &one(gen_s));
        metric(
            "prefill_seconds_total",
            "counter",
            "Seconds spent decoding prompts and tool results.",
            &one(load(&self.prefill_us) / 1e6),
        );
        metric(
            "episode_seconds_total",
            "counter",
            "Wall-clock seconds of finished episodes.",
            &one(load(&self.episode_us) / 1e6),
        );
        let tps = if gen_s > 0.0 { load(&self.generated_tokens) / gen_s } else { 0.0 };
        metric(
            "generate_tokens_per_second",
            "gauge",
            "Generated tokens per second of generating, since start.",
            &one(tps),
        );
        metric("draft_tokens_total", "counter", "Tokens proposed by speculative drafters.", &one(load(&self.drafted)));
        metric(
            "draft_accepted_tokens_total",
            "counter",
            "Drafted tokens the model accepted.",
            &one(load(&self.accepted)),
        );
        let drafted = load(&self.drafted);
        let acceptance = if drafted > 0.0 { load(&self.accepted) / drafted } else { 0.0 };
        metric("draft_acceptance", "gauge", "Accepted over drafted tokens, since start.", &one(acceptance));
        s
    }
}

/// Writes one metric: its help, its type, and its samples (`labels` as `{k="v"}` or empty).
fn write_metric(s: &mut String, name: &str, kind: &str, help: &str, samples: &[(String, f64)]) {
    let _ = writeln!(s, "# HELP sqale_{name} {help}\n# TYPE sqale_{name} {kind}");
    for (labels, v) in samples {
        let _ = writeln!(s, "sqale_{name}{labels} {v}");
    }
}

/// A label value with `\`, `"` and newlines escaped, as the text format requires.
fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The Prometheus text of each inference server's counters, labelled by its URL.
pub fn render_servers(servers: &[ServerStatus]) -> String {
    let mut s = String::new();
    let per = |f: fn(&ServerStatus) -> f64| -> Vec<(String, f64)> {
        servers.iter().map(|x| (format!("{{server=\"{}\"}}", label_value(&x.url)), f(x))).collect()
    };
    type Column = fn(&ServerStatus) -> f64;
    let rows: [(&str, &str, &str, Column); 6] = [
        ("server_up", "gauge", "1 while the server gets requests, 0 once dropped.", |x: &ServerStatus| {
            f64::from(u8::from(x.up))
        }),
        ("server_requests_total", "counter", "Requests sent to the server, retries included.", |x: &ServerStatus| {
            x.requests as f64
        }),
        ("server_failures_total", "counter", "Requests to the server that failed.", |x: &ServerStatus| {
            x.failures as f64
        }),
        (
            "server_wait_seconds_total",
            "counter",
            "Seconds spent waiting for the server's answers.",
            |x: &ServerStatus| x.wait_seconds,
        ),
        ("server_prompt_tokens_total", "counter", "Prompt tokens sent with completions.", |x: &ServerStatus| {
            x.prompt_tokens as f64
        }),
        (
            "server_cached_prompt_tokens_total",
            "counter",
            "Prompt tokens the server took from its prefix cache.",
            |x: &ServerStatus| x.cached_prompt_tokens as f64,
        ),
    ];
    for (name, kind, help, f) in rows {
        write_metric(&mut s, name, kind, help, &per(f));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::default();
        m.refused(Refusal::QueueFull);
        m.refused(Refusal::QueueFull);
        m.failed(Failure::Cancelled);
        m.queued.store(3, Ordering::Relaxed);
        let text = m.render(4, 8);
        assert!(text.contains("sqale_requests_refused_total{reason=\"queue_full\"} 2\n"), "{text}");
        assert!(text.contains("sqale_episodes_failed_total{reason=\"cancelled\"} 1\n"), "{text}");
        assert!(text.contains("sqale_queue_depth 3\n"), "{text}");
        assert!(text.contains("sqale_sequences 4\n"), "{text}");
        assert!(text.contains("# TYPE sqale_episodes_total counter\n"), "{text}");
        // Every sample line is `name[{labels}] number`.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (name, value) = line.rsplit_once(' ').unwrap();
            assert!(name.starts_with("sqale_"), "{line}");
            value.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
        }
        assert_eq!(m.mean_episode_seconds(), None);
    }

    #[test]
    fn renders_each_servers_counters() {
        let server = |url: &str, up: bool, requests: u64| ServerStatus {
            url: url.into(),
            kind: crate::remote::ServerKind::LlamaServer,
            model: "m.gguf".into(),
            up,
            error: None,
            requests,
            failures: 1,
            wait_seconds: 0.5,
            prompt_tokens: 100,
            cached_prompt_tokens: 80,
        };
        let text = render_servers(&[server("http://a:1", true, 7), server("http://b\"x:2", false, 3)]);
        assert!(text.contains("sqale_server_requests_total{server=\"http://a:1\"} 7\n"), "{text}");
        assert!(text.contains("sqale_server_up{server=\"http://b\\\"x:2\"} 0\n"), "{text}");
        assert!(text.contains("sqale_server_cached_prompt_tokens_total{server=\"http://a:1\"} 80\n"), "{text}");
        assert!(text.contains("sqale_server_prompt_tokens_total{server=\"http://a:1\"} 100\n"), "{text}");
        assert!(text.contains("# TYPE sqale_server_wait_seconds_total counter\n"), "{text}");
    }
}
