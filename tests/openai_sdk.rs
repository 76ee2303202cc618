//! `sqale serve`'s OpenAI-compatible endpoints driven by the official `openai` Python SDK (the
//! PyPI package `.ci/fetch-models` installs into models/.venv), as a real client, against a real
//! server on 127.0.0.1 with the real SmolLM2 GGUF and real SQLite files: the models listed, one
//! completion and one stream (the copying prompt makes SmolLM2 submit a known query, so the rows
//! are checked against SQLite), a wrong key, an unknown model, a client that leaves mid-stream.
//! The server stays up, answers each request once, and the database files keep their bytes.

mod common;
#[path = "support/serve_client.rs"]
mod serve_client;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use serve_client::{get, post, Server};

const KEY: &str = "sdk-test-key";

fn python() -> PathBuf {
    let p = std::env::var_os("SQALE_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models/.venv/bin/python"));
    let ok = Command::new(&p).args(["-c", "import openai"]).status().is_ok_and(|s| s.success());
    assert!(ok, "{} has no openai SDK: run `bash .ci/fetch-models` first", p.display());
    p
}

/// Runs the SDK client in `mode` and returns the JSON it printed.
fn sdk(url: &str, key: &str, mode: &str, args: &[&str]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openai_client.py");
    let out = Command::new(python()).arg(script).args([mode, url, key]).args(args).output().expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the SDK client ({mode}) failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A server over `dbs` with the API key; `copying` steers SmolLM2 into copying the question's
/// tool call (tests/fixtures/copy_prompt.py), else the real prompt (SmolLM2 rambles).
fn server(dir: &Path, dbs: &[String], copying: bool) -> Server {
    let key_file = dir.join("key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let model = common::test_model();
    let mut args = vec![
        "--model".to_string(),
        model.to_str().unwrap().to_string(),
        "--ctx".into(),
        "2048".into(),
        "--max-episode-tokens".into(),
        "900".into(),
        "--api-key-file".into(),
        key_file.to_str().unwrap().to_string(),
    ];
    if copying {
        args.push("--prompt-from".into());
        args.push(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py").into());
    }
    for d in dbs {
        args.push("--db".into());
        args.push(d.clone());
    }
    Server::start(Path::new(env!("CARGO_BIN_EXE_sqale")), &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The question that makes the copying server's episode submit `sql`.
fn submit(sql: &str) -> String {
    json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string()
}

/// The Markdown row a person reads for a row of SQLite's.
fn markdown_row(cells: &[String]) -> String {
    format!("| {} |", cells.join(" | "))
}

/// A metric read with the key.
fn metric(s: &Server, sample: &str) -> Option<f64> {
    let (_, text) = get(&format!("{}/metrics", s.url), Some(KEY));
    text.lines().find_map(|l| l.strip_prefix(sample).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.parse().ok()))
}

#[test]
fn the_openai_sdk_lists_asks_streams_and_is_refused_clearly() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    let library = common::library_db(dir.path());
    let hashes = (common::sha256(&demo), common::sha256(&library));
    let s = server(dir.path(), &[format!("shop={}", demo.display()), format!("library={}", library.display())], true);

    // The models are the databases.
    let models = sdk(&s.url, KEY, "models", &[]);
    assert_eq!(models["ids"], json!(["library", "shop"]), "{models}");
    assert_eq!(models["objects"], json!(["model", "model"]));

    // One completion: the SQL in a code block, then the rows as SQLite gives them.
    let sql = "SELECT company_name, city FROM customers ORDER BY company_name LIMIT 5";
    let question = submit(sql);
    let whole = sdk(&s.url, KEY, "complete", &["shop", &question, "7"]);
    assert_eq!(whole["object"], "chat.completion");
    assert_eq!(whole["model"], "shop");
    assert_eq!(whole["finish_reason"], "stop", "{whole}");
    let content = whole["content"].as_str().unwrap();
    assert!(content.starts_with(&format!("```sql\n{sql}\n```\n")), "{content}");
    let conn = rusqlite::Connection::open(&demo).unwrap();
    let want: Vec<Vec<String>> = conn
        .prepare(sql)
        .unwrap()
        .query_map([], |r| Ok(vec![r.get::<_, String>(0)?, r.get::<_, String>(1)?]))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(conn);
    assert_eq!(want.len(), 5);
    assert!(content.contains("| company_name | city |\n| --- | --- |\n"), "{content}");
    for row in &want {
        assert!(content.contains(&markdown_row(row)), "row {row:?} missing from:\n{content}");
    }
    assert!(content.contains("5 rows."), "{content}");
    // The thinking and the call are reasoning, not content.
    let reasoning = whole["reasoning"].as_str().unwrap();
    assert!(reasoning.contains("→ submit_sql"), "{reasoning}");
    assert!(!content.contains("<think>") && !content.contains("\"tool\""), "{content}");
    // The usage counts the episode's tokens; the whole episode is in `sqale`.
    let ep = &whole["sqale"]["episode"];
    assert_eq!(ep["ended_by"], "submit_sql");
    assert_eq!(ep["seed"], 7);
    assert_eq!(ep["question"], question.as_str(), "the last user message is the question");
    let (generated, context) =
        (ep["tokens"]["generated_tokens"].as_u64().unwrap(), ep["tokens"]["context_tokens"].as_u64().unwrap());
    assert_eq!(whole["usage"]["completion_tokens"], generated);
    assert_eq!(whole["usage"]["prompt_tokens"], context - generated);
    assert_eq!(whole["usage"]["total_tokens"], context);
    assert!(!whole.to_string().contains(dir.path().to_str().unwrap()), "no server path is shown");

    // The same question and seed streamed: the same episode, in chunks.
    let streamed = sdk(&s.url, KEY, "stream", &["shop", &question, "7"]);
    assert_eq!(streamed["content"], whole["content"], "{streamed}");
    assert_eq!(streamed["finish_reason"], "stop");
    assert_eq!(streamed["usage"], whole["usage"]);
    let completions = |a: &Value| -> Vec<Value> {
        a["episode"]["turns"].as_array().unwrap().iter().map(|t| t["completion"].clone()).collect()
    };
    assert_eq!(completions(&streamed["sqale"]), completions(&whole["sqale"]), "the same episode");
    assert!(streamed["reasoning"].as_str().unwrap().contains("→ submit_sql"), "{streamed}");
    assert!(streamed["chunks"].as_u64().unwrap() > 3, "{streamed}");

    // A wrong key, a missing key and an unknown model: the SDK's own errors, in OpenAI's shape.
    let wrong = sdk(&s.url, "not-the-key", "error", &["shop", "q"]);
    assert_eq!(wrong["raised"], "AuthenticationError", "{wrong}");
    assert_eq!(wrong["status"], 401);
    assert_eq!(wrong["body"]["code"], "invalid_api_key", "{wrong}");
    assert_eq!(wrong["body"]["type"], "authentication_error");
    let unknown = sdk(&s.url, KEY, "error", &["nosuchdb", "q"]);
    assert_eq!(unknown["raised"], "NotFoundError", "{unknown}");
    assert_eq!(unknown["body"]["code"], "model_not_found");
    assert!(unknown["body"]["message"].as_str().unwrap().contains("library, shop"), "{unknown}");
    // Without the SDK: a bad body is a 400 in OpenAI's shape, and so is a missing key's 401.
    let url = format!("{}/v1/chat/completions", s.url);
    let auth = format!("Bearer {KEY}");
    let r = post(&url, "{\"model\": \"shop\"}", &[("Authorization", auth.as_str())]);
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "invalid_body", "{}", r.body);
    let r = post(
        &url,
        &json!({"model": "shop", "messages": [{"role": "system", "content": "x"}]}).to_string(),
        &[("Authorization", auth.as_str())],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("no user message"), "{}", r.body);
    let r = post(&url, "{}", &[]);
    assert_eq!(r.status, 401);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("Authorization: Bearer"), "{}", r.body);

    // Each request was answered once: the two episodes, nothing refused by the queue.
    assert_eq!(metric(&s, "sqale_episodes_total{ended_by=\"submit_sql\"}"), Some(2.0));
    assert_eq!(metric(&s, "sqale_episodes_running"), Some(0.0));
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("panicked"), "{log}");
    drop(s);

    // A client that leaves mid-stream cancels its episode (the real prompt: SmolLM2 rambles on,
    // long enough to leave midway), and the server answers the next request.
    let s = server(dir.path(), &[format!("library={}", library.display())], false);
    let left = sdk(&s.url, KEY, "disconnect", &["library", "List every book."]);
    assert_eq!(left["reasoning_chunks_seen"], 1, "{left}");
    let mut cancelled = false;
    for _ in 0..150 {
        if metric(&s, "sqale_episodes_failed_total{reason=\"cancelled\"}") == Some(1.0) {
            cancelled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(cancelled, "the episode of the client that left was not cancelled: {}", s.log.lock().unwrap());
    assert!(metric(&s, "sqale_episodes_total{ended_by=\"token_budget\"}").is_none(), "it did not run to its end");
    let models = sdk(&s.url, KEY, "models", &[]);
    assert_eq!(models["ids"], json!(["library"]));
    assert_eq!((common::sha256(&demo), common::sha256(&library)), hashes, "the databases keep their bytes");
}
