//! A `sqale serve` process on 127.0.0.1 and a small blocking HTTP client for it (ureq), shared
//! by the service tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A `sqale serve` process, killed when dropped.
pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// Everything it wrote on stderr so far.
    pub log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `BIN serve ARGS --listen 127.0.0.1:0` and waits until it listens.
    pub fn start(bin: &std::path::Path, args: &[&str]) -> Server {
        Server::start_with_env(bin, args, &[])
    }

    /// [`Server::start`] with environment variables `env` set for the server.
    pub fn start_with_env(bin: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(bin);
        cmd.arg("serve").args(args).envs(env.iter().copied());
        Server::spawn(cmd)
    }

    /// Starts `cmd` (a `sqale serve` command line, or one that execs it) on 127.0.0.1 and a free
    /// port, and waits for it to say where it listens.
    pub fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sqale serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(rest.split('/').next().unwrap_or_default().to_string());
                }
                sink.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                panic!("sqale serve did not start: {}", log.lock().unwrap());
            }
        };
        Server { child, url: format!("http://{addr}"), log }
    }

    /// The server's peak resident memory so far (VmHWM), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// The value of one Prometheus sample (`name` with its labels), if present.
    pub fn metric(&self, sample: &str) -> Option<f64> {
        let (_, text) = get(&format!("{}/metrics", self.url), None);
        text.lines().find_map(|l| l.strip_prefix(sample).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.parse().ok()))
    }

    /// Waits until `sample` equals `value` (or `limit` passes); returns whether it did.
    pub fn wait_metric(&self, sample: &str, value: f64, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.metric(sample) == Some(value) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        false
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout_connect(Duration::from_secs(10)).timeout_read(Duration::from_secs(900)).build()
}

/// A response: status, `Retry-After`, content type, body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub content_type: String,
    pub body: String,
}

impl Reply {
    /// The body as JSON (panics, with the body, when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

fn reply(r: Result<ureq::Response, ureq::Error>) -> Reply {
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("request failed: {e}"),
    };
    Reply {
        status: resp.status(),
        retry_after: resp.header("Retry-After").map(str::to_string),
        content_type: resp.header("Content-Type").unwrap_or_default().to_string(),
        body: resp.into_string().unwrap_or_default(),
    }
}

/// `GET url` with an optional Bearer key: (status, body).
pub fn get(url: &str, key: Option<&str>) -> (u16, String) {
    let mut req = agent().get(url);
    if let Some(k) = key {
        req = req.set("Authorization", &format!("Bearer {k}"));
    }
    let r = reply(req.call());
    (r.status, r.body)
}

/// `POST url` with `body` as JSON and extra headers.
pub fn post(url: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = agent().post(url).set("Content-Type", "application/json");
    for (k, v) in headers {
        req = req.set(k, v);
    }
    reply(req.send_string(body))
}

/// One server-sent event: its name and JSON data.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: String,
    pub data: Value,
}

/// Reads server-sent events from `reader` until it ends or `stop` says so (the reader is then
/// dropped: the client disconnects).
pub fn read_events(reader: impl Read, mut stop: impl FnMut(&Sse) -> bool) -> Vec<Sse> {
    let mut out = Vec::new();
    let (mut event, mut data) = (String::new(), String::new());
    for line in BufReader::new(reader).lines() {
        let Ok(line) = line else { break };
        if line.is_empty() {
            if !data.is_empty() {
                let e = Sse {
                    event: std::mem::take(&mut event),
                    data: serde_json::from_str(&data).expect("event data is JSON"),
                };
                data.clear();
                let done = stop(&e);
                out.push(e);
                if done {
                    break;
                }
            }
            event.clear();
        } else if let Some(v) = line.strip_prefix("event:") {
            event = v.trim().to_string();
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push_str(v.strip_prefix(' ').unwrap_or(v));
        }
    }
    out
}

/// `POST /v1/ask` with `"stream": true`: the status, and the events when it is 200.
pub fn ask_stream(url: &str, body: Value, stop: impl FnMut(&Sse) -> bool) -> Result<Vec<Sse>, Reply> {
    let mut body = body;
    body["stream"] = Value::Bool(true);
    let r =
        agent().post(&format!("{url}/v1/ask")).set("Content-Type", "application/json").send_string(&body.to_string());
    match r {
        Ok(resp) if resp.status() == 200 => {
            assert!(resp.header("Content-Type").unwrap_or_default().starts_with("text/event-stream"));
            Ok(read_events(resp.into_reader(), stop))
        }
        other => Err(reply(other)),
    }
}

/// The text each turn streamed, in order (thinking and answer together).
pub fn streamed_turns(events: &[Sse]) -> Vec<String> {
    let mut turns: Vec<String> = Vec::new();
    for e in events {
        match e.event.as_str() {
            "turn" => turns.push(String::new()),
            "text" => turns.last_mut().expect("text before a turn").push_str(e.data["delta"].as_str().unwrap()),
            _ => {}
        }
    }
    turns
}

/// Hostile and malformed requests to a service with the databases `demo` and `library` (and
/// the default limits): each gets its status and a JSON message saying what is wrong.
/// `a_path` is a database file's path, which must never be accepted as a name.
pub fn check_bad_requests(url: &str, a_path: &str) {
    let ask = format!("{url}/v1/ask");
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("malformed JSON", "{\"question\": ".into(), 400, "JSON"),
        ("not an object", "[1, 2]".into(), 422, "invalid type"),
        ("missing question", json!({"db": "demo"}).to_string(), 422, "question"),
        (
            "unknown field",
            json!({"question": "q", "db": "demo", "sql": "DROP TABLE x"}).to_string(),
            422,
            "unknown field",
        ),
        ("unknown database", json!({"question": "q", "db": "nope"}).to_string(), 404, "demo, library"),
        ("a path as database", json!({"question": "q", "db": a_path}).to_string(), 400, "never files or paths"),
        ("dot-dot as database", json!({"question": "q", "db": "../demo"}).to_string(), 400, "never files or paths"),
        ("empty question", json!({"question": "  ", "db": "demo"}).to_string(), 400, "empty"),
        (
            "very long question",
            json!({"question": "why ".repeat(2000), "db": "demo"}).to_string(),
            400,
            "limit is 4000",
        ),
        (
            "budget over the context",
            json!({"question": "q", "db": "demo", "max_episode_tokens": 100000}).to_string(),
            400,
            "out of range",
        ),
        (
            "oversize body",
            json!({"question": "q", "db": "demo", "evidence": "x".repeat(66_000)}).to_string(),
            413,
            "limit",
        ),
    ];
    for (what, body, status, says) in cases {
        let r = post(&ask, &body, &[]);
        assert_eq!(r.status, status, "{what}: {}", r.body);
        assert!(r.content_type.starts_with("application/json"), "{what}: {}", r.content_type);
        let msg = r.json()["error"].as_str().unwrap_or_default().to_string();
        assert!(msg.contains(says), "{what}: {msg:?} should say {says:?}");
    }
    let r = post(&ask, "question=q", &[("Content-Type", "text/plain")]);
    assert_eq!(r.status, 415, "{}", r.body);
    assert!(r.json()["error"].is_string());
    let (status, body) = get(&ask, None);
    assert_eq!(status, 405, "{body}");
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
    let (status, body) = get(&format!("{url}/v1/nothing"), None);
    assert_eq!(status, 404);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
}
