//! `sqale serve --server` end to end: the service in front of real llama.cpp servers
//! (`llama-server`'s code from the PyPI wheel `xllamacpp`), all on 127.0.0.1, with the real
//! SmolLM2 GGUF and real SQLite files. The same answers as `ask --server`, the same events as
//! the in-process service, the hostile requests, the time limit and cancellation; two servers
//! with one killed under a bounded load; every server down, then back; separate API keys.
//!
//! As in tests/serve.rs, `tests/fixtures/copy_prompt.py` steers SmolLM2 into submitting the
//! query the question gives (an episode of one turn with a known answer).

mod common;
#[path = "support/llama_server.rs"]
mod llama_server;
#[path = "support/serve_client.rs"]
mod serve_client;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use llama_server::LlamaServer;
use serde_json::{json, Value};
use serve_client::{ask_stream, get, post, streamed_turns, Server, Sse};

const COPY_PROMPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py");

/// `sqale serve` with `args` after the common ones (900 tokens an episode).
fn serve(args: &[&str]) -> Server {
    let mut all = vec!["--max-episode-tokens", "900"];
    all.extend(args);
    Server::start(Path::new(env!("CARGO_BIN_EXE_sqale")), &all)
}

/// `--server URL` for each server.
fn server_flags(servers: &[&LlamaServer]) -> Vec<String> {
    servers.iter().flat_map(|s| ["--server".to_string(), s.url.clone()]).collect()
}

/// The demo and library databases, copied into `dir`, as `--db` flags.
fn databases(dir: &Path) -> (PathBuf, PathBuf, Vec<String>) {
    let demo = dir.join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    let library = common::library_db(dir);
    let flags = vec![
        "--db".to_string(),
        format!("demo={}", demo.display()),
        "--db".to_string(),
        format!("library={}", library.display()),
    ];
    (demo, library, flags)
}

/// The question that makes the copying prompt's episode submit `sql`.
fn submit(sql: &str) -> String {
    json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string()
}

fn ask(url: &str, body: Value) -> serve_client::Reply {
    post(&format!("{url}/v1/ask"), &body.to_string(), &[])
}

fn completions(episode: &Value) -> Vec<String> {
    episode["turns"].as_array().unwrap().iter().map(|t| t["completion"].as_str().unwrap().to_string()).collect()
}

/// Event names with each run of `text` events as one (a server's turn comes whole, in one
/// piece, or two where the thinking ends; the in-process engine streams it token by token).
fn kinds(events: &[Sse]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        if e.event != "text" || out.last().map(String::as_str) != Some("text") {
            out.push(e.event.clone());
        }
    }
    out
}

fn args_of(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn serve_on_a_server_answers_as_ask_does_streams_the_same_events_and_refuses_bad_requests() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (demo, library, db_flags) = databases(dir.path());
    let hashes = (common::sha256(&demo), common::sha256(&library));
    let llama = LlamaServer::start(&common::test_model(), 2, 4096, None);
    let mut flags = server_flags(&[&llama]);
    flags.extend(db_flags.clone());
    // Greedy on the server: the copying prompt steers SmolLM2 there reliably at temperature 0.
    flags.extend(["--prompt-from", COPY_PROMPT, "--parallel", "2", "--temp", "0"].map(String::from));
    let s = serve(&args_of(&flags));

    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["service"]["engine"], "llama-server", "{body}");
    assert_eq!(health["service"]["slots"], 2);
    assert_eq!(health["service"]["ctx"], 2048, "the server's context per slot: {body}");
    assert_eq!(health["servers"][0]["url"], llama.url.as_str());
    assert_eq!(health["servers"][0]["up"], true);
    assert_eq!(health["servers"][0]["model"], "SmolLM2-135M-Instruct.Q4_1.gguf", "{body}");
    let models = common::test_model();
    let folder = models.parent().unwrap().to_str().unwrap();
    assert!(!body.contains(folder), "the model's folder is not shown: {body}");

    // An answer through the service, and the same seed through `ask --server`: one episode.
    let sql = "SELECT company_name, city FROM customers ORDER BY company_name LIMIT 5";
    let question = submit(sql);
    let r = ask(&s.url, json!({"question": question, "db": "demo", "seed": 7}));
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    let ep = &answer["episode"];
    assert_eq!(ep["ended_by"], "submit_sql", "{}", r.body);
    assert_eq!(ep["sql"], sql);
    assert_eq!(answer["rows"]["columns"], json!(["company_name", "city"]));
    assert_eq!(answer["rows"]["rows"].as_array().unwrap().len(), 5);
    assert!(!r.body.contains(folder) && !r.body.contains(dir.path().to_str().unwrap()), "no paths: {}", r.body);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["ask", "--server", &llama.url, "--prompt-from", COPY_PROMPT, "--db"])
        .arg(&demo)
        .args(["--max-episode-tokens", "900", "--temp", "0", "--seed", "7", "--json", &question])
        .env_remove("SQALE_API_KEY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let direct: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(completions(&direct["episode"]), completions(ep), "the same seed, the same episode");
    assert_eq!(direct["episode"]["sql"], ep["sql"]);

    // Streamed: the episode's text, and the in-process service's sequence of events.
    let events = ask_stream(&s.url, json!({"question": question, "db": "demo", "seed": 7}), |_| false).unwrap();
    let done = &events.last().unwrap().data;
    assert_eq!(events.iter().filter(|e| e.event == "done").count(), 1);
    assert_eq!(streamed_turns(&events), completions(&done["episode"]));
    assert_eq!(completions(&done["episode"]), completions(ep));
    let model = common::test_model();
    let mut local_flags: Vec<String> =
        ["--model", model.to_str().unwrap(), "--ctx", "2048", "--prompt-from", COPY_PROMPT].map(String::from).to_vec();
    local_flags.extend(db_flags);
    // In-process at the default temperature, where seed 7 steers it (as in tests/serve.rs).
    let local = serve(&args_of(&local_flags));
    let local_events =
        ask_stream(&local.url, json!({"question": question, "db": "demo", "seed": 7}), |_| false).unwrap();
    drop(local);
    assert_eq!(kinds(&events), kinds(&local_events), "the events of an episode, in order");

    // The OpenAI-compatible endpoints on servers: the databases as models, the same episode.
    let (status, body) = get(&format!("{}/v1/models", s.url), None);
    assert_eq!(status, 200, "{body}");
    let ids: Vec<Value> = serde_json::from_str::<Value>(&body).unwrap()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, [json!("demo"), json!("library")]);
    let chat = json!({"model": "demo", "seed": 7, "messages": [{"role": "user", "content": question}]});
    let r = post(&format!("{}/v1/chat/completions", s.url), &chat.to_string(), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let c = r.json();
    assert_eq!(completions(&c["sqale"]["episode"]), completions(ep), "the same seed, the same episode");
    let content = c["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(content.starts_with(&format!("```sql\n{sql}\n```")), "{content}");
    assert!(content.contains("5 rows."), "{content}");

    serve_client::check_bad_requests(&s.url, demo.to_str().unwrap());

    // Each server's counters.
    let sample = |name: &str| s.metric(&format!("{name}{{server=\"{}\"}}", llama.url));
    assert!(sample("sqale_server_requests_total").unwrap() >= 3.0);
    assert_eq!(sample("sqale_server_up"), Some(1.0));
    let prompt = sample("sqale_server_prompt_tokens_total").unwrap();
    let cached = sample("sqale_server_cached_prompt_tokens_total").unwrap();
    assert!(cached > 0.0 && cached < prompt, "the system prompt came from the server's cache: {cached} of {prompt}");
    assert!(sample("sqale_server_wait_seconds_total").unwrap() > 0.0);
    assert_eq!(s.metric("sqale_episodes_total{ended_by=\"submit_sql\"}"), Some(3.0));
    assert_eq!((common::sha256(&demo), common::sha256(&library)), hashes);
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("panicked"), "{log}");
}

/// The real prompt (SmolLM2 rambles until the budget): a client that leaves while a turn is
/// generated is cancelled (when the server's answer comes back), and an episode past the time
/// limit is answered 504, as in-process.
#[test]
fn cancellation_and_the_time_limit_on_a_server() {
    let _g = common::one_at_a_time();
    let llama = LlamaServer::start(&common::test_model(), 1, 2048, None);
    let s = serve(&args_of(&server_flags(&[&llama])));
    let partial =
        ask_stream(&s.url, json!({"question": "List every order.", "db": "demo", "seed": 3}), |e| e.event == "turn")
            .unwrap();
    assert_eq!(partial.last().unwrap().event, "turn", "{partial:?}");
    assert!(
        s.wait_metric("sqale_episodes_failed_total{reason=\"cancelled\"}", 1.0, Duration::from_secs(60)),
        "the disconnected episode was not cancelled: {}",
        s.log.lock().unwrap()
    );
    assert!(s.wait_metric("sqale_episodes_running", 0.0, Duration::from_secs(60)));
    assert!(s.metric("sqale_episodes_total{ended_by=\"token_budget\"}").is_none(), "it did not run to its end");
    drop(s);
    let mut flags = server_flags(&[&llama]);
    flags.extend(["--episode-timeout", "3"].map(String::from));
    let s = serve(&args_of(&flags));
    let r = ask(&s.url, json!({"question": "List every order.", "db": "demo", "seed": 4}));
    assert_eq!(r.status, 504, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("episode time limit of 3 s"), "{}", r.body);
    assert_eq!(s.metric("sqale_episodes_failed_total{reason=\"timed_out\"}"), Some(1.0));
}

/// Six clients (three streaming) on two servers; one server is killed once the first answer is
/// in. Every request is answered exactly once, with its own answer, and the service stays up.
#[test]
fn two_servers_one_killed_under_load_every_request_answered_once() {
    let _g = common::one_at_a_time();
    let model = common::test_model();
    let mut a = LlamaServer::start(&model, 1, 2048, None);
    let b = LlamaServer::start(&model, 1, 2048, None);
    let mut flags = server_flags(&[&a, &b]);
    flags.extend(["--prompt-from", COPY_PROMPT, "--parallel", "4", "--queue", "8"].map(String::from));
    let s = serve(&args_of(&flags));
    let (tx, rx) = std::sync::mpsc::channel();
    let clients: Vec<_> = (0..6)
        .map(|i| {
            let (url, tx) = (s.url.clone(), tx.clone());
            std::thread::spawn(move || {
                let body = json!({"question": submit(&format!("SELECT {i} AS n")), "db": "demo", "seed": 7});
                let result = if i % 2 == 0 {
                    let r = ask(&url, body);
                    assert_eq!(r.status, 200, "client {i}: {}", r.body);
                    (1, r.json())
                } else {
                    let events = ask_stream(&url, body, |_| false).unwrap_or_else(|r| panic!("client {i}: {r:?}"));
                    let done: Vec<&Sse> = events.iter().filter(|e| e.event == "done" || e.event == "error").collect();
                    (done.len(), done.last().map(|e| e.data.clone()).unwrap_or_default())
                };
                let _ = tx.send(i);
                result
            })
        })
        .collect();
    rx.recv_timeout(Duration::from_secs(300)).expect("a first answer");
    a.kill();
    for (i, c) in clients.into_iter().enumerate() {
        let (answers, answer) = c.join().unwrap_or_else(|_| panic!("client {i} failed"));
        assert_eq!(answers, 1, "client {i}: one answer");
        let ep = &answer["episode"];
        assert_eq!(ep["question"], submit(&format!("SELECT {i} AS n")).as_str(), "client {i}: its own answer");
        assert_eq!(answer["rows"]["rows"], json!([[i]]), "client {i}: {answer}");
    }
    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200, "one server is still up: {body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    let up = |url: &str| health["servers"].as_array().unwrap().iter().find(|x| x["url"] == url).unwrap()["up"].clone();
    assert_eq!((up(&a.url), up(&b.url)), (json!(false), json!(true)), "{body}");
    assert!(s.metric(&format!("sqale_server_failures_total{{server=\"{}\"}}", a.url)).unwrap() >= 1.0);
    assert_eq!(s.metric("sqale_episodes_total{ended_by=\"submit_sql\"}"), Some(6.0));
}

/// With every server down, requests get 503 with a message and Retry-After, and `/health` says
/// which server is down and why; once it is back, the prober finds it and requests succeed.
#[test]
fn every_server_down_is_503_until_one_answers_again() {
    let _g = common::one_at_a_time();
    let model = common::test_model();
    let mut llama = LlamaServer::start(&model, 1, 2048, None);
    let port = llama.port();
    let mut flags = server_flags(&[&llama]);
    flags.extend(["--prompt-from", COPY_PROMPT].map(String::from));
    let s = serve(&args_of(&flags));
    let question = |sql: &str| json!({"question": submit(sql), "db": "demo", "seed": 7});
    assert_eq!(ask(&s.url, question("SELECT 1 AS n")).status, 200);
    llama.kill();
    // The first request finds the server gone (and drops it); the next is refused at once.
    for n in 0..2 {
        let r = ask(&s.url, question("SELECT 2 AS n"));
        assert_eq!(r.status, 503, "request {n}: {}", r.body);
        assert!(r.json()["error"].as_str().unwrap().contains("every inference server is down"), "{}", r.body);
        assert!(r.retry_after.is_some(), "Retry-After");
    }
    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 503, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["status"], "no_server");
    assert_eq!(health["servers"][0]["up"], false);
    assert!(health["servers"][0]["error"].as_str().is_some_and(|e| !e.is_empty()), "why it is down: {body}");
    assert!(s.metric("sqale_requests_refused_total{reason=\"no_server\"}").unwrap() >= 1.0);

    let _back = LlamaServer::start_on(port, &model, 1, 2048, None);
    let until = Instant::now() + Duration::from_secs(60);
    while get(&format!("{}/health", s.url), None).0 != 200 {
        assert!(Instant::now() < until, "the server that came back is not used again");
        std::thread::sleep(Duration::from_millis(250));
    }
    let r = ask(&s.url, question("SELECT 3 AS n"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["rows"]["rows"], json!([[3]]));
    assert!(s.log.lock().unwrap().contains("answers again"), "{}", s.log.lock().unwrap());
}

/// The service's key guards the service; the servers' key is sent to the servers; neither is
/// the other's, and neither shows in any output.
#[test]
fn the_services_key_and_the_servers_key_are_separate_and_never_shown() {
    let _g = common::one_at_a_time();
    let (server_key, service_key) = ("server-key-3f9a1c", "service-key-7b2e4d");
    let llama = LlamaServer::start(&common::test_model(), 1, 2048, Some(server_key));
    let dir = tempfile::tempdir().unwrap();
    let (server_file, service_file) = (dir.path().join("server.key"), dir.path().join("service.key"));
    std::fs::write(&server_file, server_key).unwrap();
    std::fs::write(&service_file, service_key).unwrap();
    let mut flags = server_flags(&[&llama]);
    flags.extend(["--prompt-from", COPY_PROMPT].map(String::from));
    flags.extend(["--server-api-key-file".into(), server_file.display().to_string()]);
    flags.extend(["--api-key-file".into(), service_file.display().to_string()]);
    let s = serve(&args_of(&flags));
    let body = json!({"question": submit("SELECT 5 AS n"), "db": "demo", "seed": 7}).to_string();
    let url = format!("{}/v1/ask", s.url);
    assert_eq!(post(&url, &body, &[]).status, 401);
    let bearer = |k: &str| format!("Bearer {k}");
    assert_eq!(post(&url, &body, &[("Authorization", &bearer(server_key))]).status, 401, "not the service's key");
    let r = post(&url, &body, &[("Authorization", &bearer(service_key))]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["rows"]["rows"], json!([[5]]));
    let (_, health) = get(&format!("{}/health", s.url), None);
    let (status, metrics) = get(&format!("{}/metrics", s.url), Some(service_key));
    assert_eq!(status, 200);
    let log = s.log.lock().unwrap().clone();
    for (what, text) in [("the answer", &r.body), ("/health", &health), ("/metrics", &metrics), ("the log", &log)] {
        for key in [server_key, service_key] {
            assert!(!text.contains(key), "{what} shows a key: {text}");
        }
    }
}
