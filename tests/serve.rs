//! `sqale serve` end to end over 127.0.0.1 with the real SmolLM2 GGUF and real SQLite files:
//! ask (JSON and server-sent events), databases, health, metrics; bad input of every kind; a
//! client that disconnects mid-stream; the episode time limit; a bounded load beyond the queue;
//! API keys; SIGTERM; an engine that fails.
//!
//! SmolLM2 cannot follow the protocol, so most tests steer it with `tests/fixtures/copy_prompt.py`
//! into copying the tool call the question gives (a real episode ending by submit_sql in a
//! second or two, with a known answer); the tests that need a long episode use the real prompt,
//! which SmolLM2 answers by rambling until the token budget.

mod common;
#[path = "support/serve_client.rs"]
mod serve_client;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_client::{ask_stream, get, post, streamed_turns, Server, Sse};

/// Episodes short enough for two cores: a 2,048-token sequence, 900 tokens per episode (the
/// real prompt's episodes ramble on until that budget).
fn server(dbs: &[String], extra: &[&str]) -> Server {
    server_with_env(dbs, extra, &[])
}

/// [`server`] with environment variables `env` set for the server.
fn server_with_env(dbs: &[String], extra: &[&str], env: &[(&str, &str)]) -> Server {
    let model = common::test_model();
    let mut args: Vec<String> = ["--model", model.to_str().unwrap(), "--ctx", "2048", "--max-episode-tokens", "900"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for d in dbs {
        args.push("--db".into());
        args.push(d.clone());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    Server::start_with_env(
        std::path::Path::new(env!("CARGO_BIN_EXE_sqale")),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        env,
    )
}

/// The demo database and the library database, copied into `dir` (the tests compare their
/// bytes afterwards).
fn databases(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let demo = dir.join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    (demo, common::library_db(dir))
}

/// A server whose episodes copy the tool call in the question.
fn copying_server(dbs: &[String], extra: &[&str]) -> Server {
    let prompt = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py");
    server(dbs, &[&["--prompt-from", prompt], extra].concat())
}

/// The question that makes the copying server's episode submit `sql`.
fn submit(sql: &str) -> String {
    json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string()
}

fn names(events: &[Sse]) -> Vec<&str> {
    events.iter().map(|e| e.event.as_str()).collect()
}

#[test]
fn ask_stream_databases_health_metrics_and_bad_input() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (demo, library) = databases(dir.path());
    let hashes = (common::sha256(&demo), common::sha256(&library));
    let s = copying_server(
        &[format!("demo={}", demo.display()), format!("library={}", library.display())],
        &["--parallel", "2"],
    );

    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["service"]["slots"], 2);
    assert_eq!(health["service"]["ctx"], 2048);
    // /health needs no key: it names the model by its file name, never by the server's folders.
    assert_eq!(health["service"]["model"], "SmolLM2-135M-Instruct.Q4_1.gguf", "{body}");
    let models = common::test_model();
    let folder = models.parent().unwrap().to_str().unwrap();
    assert!(!body.contains(folder), "the model's folder is not shown: {body}");
    let (_, metrics) = get(&format!("{}/metrics", s.url), None);
    assert!(!metrics.contains(folder), "nor in the metrics: {metrics}");

    let (status, body) = get(&format!("{}/v1/databases", s.url), None);
    assert_eq!(status, 200);
    let dbs: Value = serde_json::from_str(&body).unwrap();
    let listed: Vec<&str> = dbs["databases"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(listed, ["demo", "library"]);
    assert!(dbs["databases"][0]["tables"].as_array().unwrap().iter().any(|t| t == "customers"), "{body}");
    assert!(!body.contains(dir.path().to_str().unwrap()), "file paths are never shown: {body}");

    // One question as JSON, then the same question and seed as events: the same episode.
    let sql = "SELECT company_name, city FROM customers ORDER BY company_name LIMIT 5";
    let question = submit(sql);
    let r =
        post(&format!("{}/v1/ask", s.url), &json!({"question": question, "db": "demo", "seed": 7}).to_string(), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    let ep = &answer["episode"];
    assert_eq!(ep["question"], question.as_str());
    assert_eq!(ep["db"], "demo");
    assert_eq!(ep["seed"], 7);
    assert_eq!(answer["ctx"], 2048);
    assert!(!r.body.contains(dir.path().to_str().unwrap()), "the answer shows no file path");
    assert!(!r.body.contains(folder), "nor the model's folder");
    assert_eq!(answer["model"], "SmolLM2-135M-Instruct.Q4_1.gguf");
    assert_eq!(ep["ended_by"], "submit_sql", "{}", r.body);
    assert_eq!(ep["sql"], sql);
    // The answer's rows, as SQLite gives them.
    let conn = rusqlite::Connection::open(&demo).unwrap();
    let want: Vec<Value> = conn
        .prepare(sql)
        .unwrap()
        .query_map([], |row| Ok(json!([row.get::<_, String>(0)?, row.get::<_, String>(1)?])))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(conn);
    assert_eq!(answer["rows"]["columns"], json!(["company_name", "city"]));
    assert_eq!(answer["rows"]["rows"], Value::Array(want));
    assert_eq!(answer["rows"]["truncated"], false);
    // A long answer is cut at the tools' row limit, and says so.
    let r = post(
        &format!("{}/v1/ask", s.url),
        &json!({"question": submit("SELECT order_id FROM orders"), "db": "demo", "seed": 7}).to_string(),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let long = r.json();
    assert_eq!(long["rows"]["rows"].as_array().unwrap().len(), 30, "{}", r.body);
    assert_eq!(long["rows"]["truncated"], true);
    // The model's SQL is untrusted: a write is refused in the episode and changes nothing.
    let r = post(
        &format!("{}/v1/ask", s.url),
        &json!({"question": submit("DELETE FROM customers"), "db": "demo", "seed": 7}).to_string(),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let refused = r.json();
    let first_call = &refused["episode"]["turns"][0]["calls"][0];
    assert_eq!(first_call["ok"], false, "{}", r.body);
    assert!(first_call["result"].as_str().unwrap().contains("read-only"), "{first_call}");
    let events = ask_stream(&s.url, json!({"question": question, "db": "demo", "seed": 7}), |_| false).unwrap();
    let n = names(&events);
    assert_eq!(n[0], "queued");
    assert_eq!(n[1], "started");
    assert_eq!(n[2], "turn");
    assert_eq!(*n.last().unwrap(), "done", "{n:?}");
    assert_eq!(n.iter().filter(|e| **e == "done").count(), 1);
    let done = &events.last().unwrap().data;
    let completions: Vec<String> = done["episode"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["completion"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(streamed_turns(&events), completions, "the streamed text is the episode's text");
    let calls_of =
        |e: &Value| -> Vec<Value> { e["turns"].as_array().unwrap().iter().map(|t| t["calls"].clone()).collect() };
    assert_eq!(done["episode"]["sql"], ep["sql"]);
    assert_eq!(calls_of(&done["episode"]), calls_of(ep), "the same seed gives the same episode, streamed or not");
    let json_completions: Vec<&str> =
        ep["turns"].as_array().unwrap().iter().map(|t| t["completion"].as_str().unwrap()).collect();
    assert_eq!(completions, json_completions);
    let calls = events.iter().filter(|e| e.event == "call").count();
    assert_eq!(calls, done["episode"]["tool_calls"].as_u64().unwrap() as usize);

    // Metrics count both.
    assert_eq!(s.metric("sqale_episodes_running"), Some(0.0));
    let finished: f64 = [
        "submit_sql",
        "final_turn",
        "fallback_to_last_working_query",
        "final_answer_failed",
        "no_answer",
        "token_budget",
        "context_full",
    ]
    .iter()
    .filter_map(|k| s.metric(&format!("sqale_episodes_total{{ended_by=\"{k}\"}}")))
    .sum();
    assert_eq!(finished, 4.0);
    assert!(s.metric("sqale_generated_tokens_total").unwrap() > 0.0);
    assert!(s.metric("sqale_generate_tokens_per_second").unwrap() > 0.0);

    // Bad input: each a clear status and a JSON message.
    serve_client::check_bad_requests(&s.url, demo.to_str().unwrap());
    let ask = format!("{}/v1/ask", s.url);

    // The server keeps serving, and nothing changed any database.
    let r = post(
        &ask,
        &json!({"question": submit("SELECT name FROM authors"), "db": "library", "seed": 1}).to_string(),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert_eq!(a["episode"]["db"], "library");
    assert!(a["rows"]["rows"].as_array().is_some_and(|r| !r.is_empty()), "{}", r.body);
    assert_eq!((common::sha256(&demo), common::sha256(&library)), hashes);
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn a_client_that_leaves_cancels_its_episode() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (_, library) = databases(dir.path());
    // The real prompt: SmolLM2 rambles until the budget, long enough to leave midway.
    let s = server(&[format!("library={}", library.display())], &[]);
    let partial =
        ask_stream(&s.url, json!({"question": "List every book.", "db": "library", "seed": 3}), |e| e.event == "text")
            .unwrap();
    assert_eq!(partial.last().unwrap().event, "text", "{partial:?}");
    assert!(
        s.wait_metric("sqale_episodes_failed_total{reason=\"cancelled\"}", 1.0, Duration::from_secs(30)),
        "the disconnected episode was not cancelled: {}",
        s.log.lock().unwrap()
    );
    assert!(s.wait_metric("sqale_episodes_running", 0.0, Duration::from_secs(10)));
    assert!(s.metric("sqale_episodes_total{ended_by=\"token_budget\"}").is_none(), "it did not run to its end");
    // The sequence is free again.
    let r =
        post(&format!("{}/v1/ask", s.url), &json!({"question": "List every book.", "db": "library"}).to_string(), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn an_episode_past_the_time_limit_is_stopped() {
    let _g = common::one_at_a_time();
    let s = server(&[], &["--episode-timeout", "2"]);
    // About 1,400 tokens to generate: far more than 2 s anywhere.
    let body = json!({"question": "List every order.", "db": "demo", "max_episode_tokens": 2000}).to_string();
    let r = post(&format!("{}/v1/ask", s.url), &body, &[]);
    assert_eq!(r.status, 504, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("episode time limit of 2 s"), "{}", r.body);
    assert_eq!(s.metric("sqale_episodes_failed_total{reason=\"timed_out\"}"), Some(1.0));
    assert_eq!(s.metric("sqale_episodes_running"), Some(0.0));
}

#[test]
fn load_beyond_the_queue_answers_every_request_once_and_mixes_nothing() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (demo, _) = databases(dir.path());
    let hash = common::sha256(&demo);
    let (slots, queue) = (2usize, 2usize);
    let s = copying_server(
        &[format!("demo={}", demo.display())],
        &["--parallel", &slots.to_string(), "--queue", &queue.to_string()],
    );
    let idle_rss = s.peak_rss_kib();
    // 4 × N clients at once, each with its own question.
    let clients = 4 * slots;
    let url = s.url.clone();
    let results: Vec<(usize, String, Result<Vec<Sse>, serve_client::Reply>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|i| {
                let url = url.clone();
                scope.spawn(move || {
                    let q = submit(&format!("SELECT {i} AS client, count(*) AS n FROM orders"));
                    let r = ask_stream(&url, json!({"question": q, "db": "demo", "seed": i}), |_| false);
                    (i, q, r)
                })
            })
            .collect();
        // The queue limit holds while the flood is in.
        for _ in 0..20 {
            if let Some(depth) = s.metric("sqale_queue_depth") {
                assert!(depth <= queue as f64, "queue depth {depth} over the limit {queue}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut answered, mut refused) = (0, 0);
    for (i, q, r) in &results {
        match r {
            Ok(events) => {
                answered += 1;
                let n = names(events);
                assert_eq!(n.iter().filter(|e| **e == "done").count(), 1, "{q}: {n:?}");
                assert_eq!(n.iter().filter(|e| **e == "started").count(), 1, "{q}: {n:?}");
                assert!(!n.contains(&"error"), "{q}: {n:?}");
                // Only its own question's events: its own episode, and the text of no other.
                let done = &events.last().unwrap().data;
                assert_eq!(done["episode"]["question"], q.as_str());
                let completions: Vec<String> = done["episode"]["turns"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["completion"].as_str().unwrap().to_string())
                    .collect();
                assert_eq!(streamed_turns(events), completions, "{q}");
                assert_eq!(done["rows"]["rows"][0][0], *i as u64, "{q}: its own answer's rows");
            }
            Err(reply) => {
                refused += 1;
                assert_eq!(reply.status, 503, "{q}: {}", reply.body);
                let retry: u64 = reply.retry_after.as_deref().expect("Retry-After").parse().unwrap();
                assert!(retry >= 1);
                assert!(reply.json()["error"].as_str().unwrap().contains("busy"), "{}", reply.body);
            }
        }
    }
    assert_eq!(answered + refused, clients, "every request answered exactly once");
    assert!(answered >= slots && refused >= 1, "answered {answered}, refused {refused}");
    assert_eq!(s.metric("sqale_requests_refused_total{reason=\"queue_full\"}"), Some(refused as f64));
    assert_eq!(s.metric("sqale_queue_depth"), Some(0.0));
    let peak = s.peak_rss_kib();
    eprintln!("peak RSS: {idle_rss} KiB idle, {peak} KiB after {answered} episodes ({slots} sequences)");
    assert!(peak < 1024 * 1024, "peak memory {peak} KiB");
    assert_eq!(common::sha256(&demo), hash);
}

#[test]
fn api_keys_and_where_the_server_may_listen() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    // Anything but loopback needs a key: refused before the model loads.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["serve", "--model", "/nonexistent.gguf", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--api-key-file"), "{err}");

    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "s3cret-key-for-tests\n").unwrap();
    let s = server(&[], &["--api-key-file", key_file.to_str().unwrap()]);
    let dbs = format!("{}/v1/databases", s.url);
    let (status, body) = get(&dbs, None);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("Authorization: Bearer"), "{body}");
    let (status, body) = get(&dbs, Some("wrong"));
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("wrong API key"));
    let (status, _) = get(&dbs, Some("s3cret-key-for-tests"));
    assert_eq!(status, 200);
    let r = post(&format!("{}/v1/ask", s.url), &json!({"question": "q", "db": "demo"}).to_string(), &[]);
    assert_eq!(r.status, 401);
    let (status, _) = get(&format!("{}/metrics", s.url), None);
    assert_eq!(status, 401);
    // The page and the health check need no key (they show no data).
    let (status, page) = get(&s.url, None);
    assert_eq!(status, 200);
    assert!(page.contains("<title>sqale</title>"));
    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200);
    assert!(body.contains("\"api_key_required\":true"), "{body}");
}

#[test]
fn sigterm_finishes_the_running_episode_and_refuses_the_queued() {
    let _g = common::one_at_a_time();
    let s = server(&[], &["--parallel", "1", "--queue", "4", "--shutdown-grace", "300"]);
    let url = s.url.clone();
    let running = std::thread::spawn({
        let url = url.clone();
        move || ask_stream(&url, json!({"question": "How many orders are there?", "db": "demo", "seed": 5}), |_| false)
    });
    assert!(s.wait_metric("sqale_episodes_running", 1.0, Duration::from_secs(60)));
    let queued: Vec<_> = (0..2)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                post(&format!("{url}/v1/ask"), &json!({"question": format!("q{i}"), "db": "demo"}).to_string(), &[])
            })
        })
        .collect();
    assert!(s.wait_metric("sqale_queue_depth", 2.0, Duration::from_secs(30)));
    let pid = s.child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    for q in queued {
        let r = q.join().unwrap();
        assert_eq!(r.status, 503, "{}", r.body);
        assert!(r.retry_after.is_some());
        assert!(r.json()["error"].as_str().unwrap().contains("shutting down"));
    }
    let events = running.join().unwrap().expect("the running episode was accepted");
    assert_eq!(events.last().unwrap().event, "done", "the running episode finished: {:?}", names(&events));
    let mut s = s;
    let status = s.child.wait().unwrap();
    assert!(status.success(), "exit {status:?}: {}", s.log.lock().unwrap());
    assert!(s.log.lock().unwrap().contains("stopped after 1 episode"), "{}", s.log.lock().unwrap());
}

/// `GET url`: (status, body), or `None` when nothing answers (the server has gone).
fn get_if_up(url: &str) -> Option<(u16, String)> {
    match ureq::get(url).timeout(Duration::from_secs(30)).call() {
        Ok(r) => Some((r.status(), r.into_string().unwrap_or_default())),
        Err(ureq::Error::Status(status, r)) => Some((status, r.into_string().unwrap_or_default())),
        Err(ureq::Error::Transport(_)) => None,
    }
}

/// A decode that fails (as llama.cpp's does when a GPU runs out of memory; injected here with
/// SQALE_FAIL_DECODE_AFTER) stops the server, for a supervisor to start it again: the question
/// gets a 503 that says the engine failed, `/health` says `failed` and why while the server is
/// still up, and the process exits with a failure status. (It used to answer that question and
/// the next ones with a 500, "the scheduler stopped", then 503 "shutting down", while `/health`
/// said "ok" and the process ran on.)
#[test]
fn a_failed_decode_stops_the_server_with_a_failure_status() {
    let _g = common::one_at_a_time();
    // With --batch 2048 the system prompt and the question are one batch each: the third batch,
    // the first generated token's, fails.
    let fail = [(sqale::engine::FAIL_DECODE_AFTER_VAR, "2")];
    let mut s = server_with_env(&[], &["--batch", "2048", "--parallel", "2"], &fail);
    let (status, body) = get(&format!("{}/health", s.url), None);
    assert_eq!(status, 200, "start-up decodes nothing: {body}");
    let ask = json!({"question": "How many orders are there?", "db": "demo", "seed": 1}).to_string();
    let r = post(&format!("{}/v1/ask", s.url), &ask, &[]);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.retry_after.is_some(), "{r:?}");
    let error = r.json()["error"].as_str().unwrap_or_default().to_string();
    assert!(error.contains("the engine failed") && error.contains("decode failed"), "{error}");
    assert!(error.contains("the server is stopping"), "{error}");
    // Until the process is gone, /health says why.
    if let Some((status, body)) = get_if_up(&format!("{}/health", s.url)) {
        assert_eq!(status, 503, "{body}");
        let health: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(health["status"], "failed", "{body}");
        assert!(health["error"].as_str().unwrap_or_default().contains("decode failed"), "{body}");
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running 60 s after its engine failed: {}", s.log.lock().unwrap());
        std::thread::sleep(Duration::from_millis(100));
    };
    let log = s.log.lock().unwrap().clone();
    assert!(!status.success(), "exit {status:?}: {log}");
    assert!(log.contains("the engine failed") && log.contains("decode failed"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}
