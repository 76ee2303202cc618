//! `sqale mcp` in a real Model Context Protocol session (the official SDK's client, `rmcp`,
//! spawning the binary over stdio): initialize, list the tools, call each of the eight tools
//! and `ask_database` on the real SmolLM2 GGUF, in-process and on a llama.cpp server; hostile
//! calls are tool errors and change nothing.

mod common;
#[path = "support/llama_server.rs"]
mod llama_server;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n")
}

async fn call(client: &RunningService<RoleClient, ()>, name: &'static str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(name).with_arguments(args.as_object().cloned().unwrap_or_default());
    client.call_tool(params).await.unwrap_or_else(|e| panic!("{name}: {e}"))
}

async fn session(args: Vec<String>) -> RunningService<RoleClient, ()> {
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(env!("CARGO_BIN_EXE_sqale")).configure(|cmd| {
            cmd.arg("mcp").args(&args);
        }))
        .expect("spawn sqale mcp");
    ().serve(transport).await.expect("MCP initialize")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_session_lists_and_calls_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    let library = common::library_db(dir.path());
    let before = (common::sha256(&demo), common::sha256(&library));
    let model = common::test_model();
    let args: Vec<String> = [
        "--model",
        model.to_str().unwrap(),
        "--ctx",
        "2048",
        "--max-episode-tokens",
        "900",
        // SmolLM2 cannot follow the protocol: steered into submitting the query the question gives.
        "--prompt-from",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py"),
        "--db",
        &format!("demo={}", demo.display()),
        "--db",
        &format!("library={}", library.display()),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let client = session(args).await;

    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("sqale"));
    assert!(info.instructions.as_deref().unwrap_or_default().contains("demo, library"));

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "ask_database",
            "list_databases",
            "list_tables",
            "describe_table",
            "foreign_keys",
            "join_path",
            "sample_rows",
            "distinct_values",
            "run_query",
            "submit_sql"
        ]
    );
    for t in &tools {
        assert_eq!(t.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true), "{}", t.name);
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
    }
    let run_query = tools.iter().find(|t| t.name == "run_query").unwrap();
    assert_eq!(run_query.input_schema["required"], json!(["db", "sql"]));

    let r = call(&client, "list_databases", json!({})).await;
    assert!(text(&r).contains("\"library\""), "{}", text(&r));

    // Each of the eight tools, as an episode would call it.
    let calls: [(&'static str, Value, &str); 8] = [
        ("list_tables", json!({"db": "library"}), "authors"),
        ("describe_table", json!({"db": "library", "table_name": "books"}), "author_id"),
        ("foreign_keys", json!({"db": "library", "table_name": "books"}), "authors"),
        ("join_path", json!({"db": "library", "table_a": "loans", "table_b": "authors"}), "books"),
        ("sample_rows", json!({"db": "library", "table_name": "authors", "limit": 2}), "name"),
        ("distinct_values", json!({"db": "library", "table_name": "authors", "column_name": "country"}), ""),
        ("run_query", json!({"db": "library", "sql": "SELECT count(*) AS n FROM books"}), "n"),
        ("submit_sql", json!({"db": "demo", "sql": "SELECT count(*) FROM customers"}), "count"),
    ];
    for (name, args, says) in calls {
        let r = call(&client, name, args).await;
        assert_ne!(r.is_error, Some(true), "{name}: {}", text(&r));
        assert!(text(&r).contains(says), "{name}: {}", text(&r));
    }

    // Hostile or wrong calls are tool errors with a message; nothing changes.
    let bad: [(&'static str, Value, &str); 5] = [
        ("run_query", json!({"db": "library", "sql": "DELETE FROM books"}), "read-only"),
        ("run_query", json!({"db": "library", "sql": "ATTACH '/tmp/x.db' AS x"}), "not allowed"),
        ("run_query", json!({"db": "../library", "sql": "SELECT 1"}), "unknown database"),
        ("describe_table", json!({"db": "library"}), "table_name"),
        ("run_query", json!({"sql": "SELECT 1"}), "missing argument \"db\""),
    ];
    for (name, args, says) in bad {
        let r = call(&client, name, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{name} {args}: {}", text(&r));
        assert!(text(&r).contains(says), "{name} {args}: {}", text(&r));
    }
    let unknown = CallToolRequestParams::new("drop_everything");
    assert!(client.call_tool(unknown).await.is_err(), "an unknown tool is a protocol error");

    // A whole episode on the loaded model.
    let sql = "SELECT count(*) AS n FROM customers";
    let question = json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string();
    // A fixed seed: the copying prompt steers SmolLM2 well, not always (a drawn seed once made
    // it write its own SQL).
    let r = call(&client, "ask_database", json!({"db": "demo", "question": question, "seed": 7})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let t = text(&r);
    let n: i64 = rusqlite::Connection::open(&demo).unwrap().query_row(sql, [], |r| r.get(0)).unwrap();
    assert!(t.contains(&format!("SQL:\n{sql}\n")), "{t}");
    assert!(t.contains(&format!("n\n{n}\n")), "the answer's rows: {t}");
    assert!(t.contains("ended by submit_sql"), "{t}");
    assert!(t.contains("seed 7;"), "the seed given is the seed used: {t}");
    let r = call(&client, "ask_database", json!({"db": "demo", "question": question, "seed": -1})).await;
    assert_eq!(r.is_error, Some(true), "a negative seed: {}", text(&r));
    assert!(text(&r).contains("\"seed\" must be a whole number"), "{}", text(&r));
    let r = call(&client, "ask_database", json!({"db": "nowhere", "question": "q"})).await;
    assert_eq!(r.is_error, Some(true));

    client.cancel().await.unwrap();
    assert_eq!((common::sha256(&demo), common::sha256(&library)), before);
}

/// `ask_database` with the model on a llama.cpp server (`--server`): no model is loaded here,
/// the tools run here, and the answer is the same kind of text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_database_through_an_inference_server() {
    let llama = llama_server::LlamaServer::start(&common::test_model(), 1, 2048, None);
    let args: Vec<String> = [
        "--server",
        &llama.url,
        // Nothing is loaded from --model on a server.
        "--model",
        "/nonexistent.gguf",
        "--max-episode-tokens",
        "900",
        "--prompt-from",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let client = session(args).await;
    let sql = "SELECT count(*) AS n FROM orders";
    let question = json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string();
    let r = call(&client, "ask_database", json!({"db": "demo", "question": question, "seed": 7})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let t = text(&r);
    let n: i64 = rusqlite::Connection::open(common::demo_db()).unwrap().query_row(sql, [], |r| r.get(0)).unwrap();
    assert!(t.contains(&format!("SQL:\n{sql}\n")), "{t}");
    assert!(t.contains(&format!("n\n{n}\n")), "the answer's rows: {t}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_only_needs_no_model() {
    let args = vec!["--tools-only".to_string(), "--model".into(), "/nonexistent.gguf".into()];
    let client = session(args).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "ask_database"));
    assert_eq!(tools.len(), 9);
    let r = call(&client, "list_tables", json!({"db": "demo"})).await;
    assert!(text(&r).contains("customers"), "{}", text(&r));
    client.cancel().await.unwrap();
}

/// `sqale mcp` runs the same episode service as `sqale serve`: when its engine fails (a decode
/// error, injected with SQALE_FAIL_DECODE_AFTER), the question gets a tool error that says so
/// and the process exits with a failure status while its client is still connected, for a
/// supervisor to start it again. Spoken by hand (newline-delimited JSON-RPC) to see the exit.
#[test]
fn a_failed_decode_ends_the_mcp_server_with_a_failure_status() {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};
    let _g = common::one_at_a_time();
    let model = common::test_model();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["mcp", "--model", model.to_str().unwrap(), "--ctx", "2048", "--batch", "2048"])
        .args(["--max-episode-tokens", "900"])
        .env(sqale::engine::FAIL_DECODE_AFTER_VAR, "2")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn sqale mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut send = |v: Value| writeln!(stdin, "{v}").and_then(|()| stdin.flush()).unwrap();
    let mut reply = |id: u64| -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout ended before reply {id}");
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if v["id"] == id {
                return v;
            }
        }
    };
    let hello =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}));
    assert!(reply(1)["result"]["serverInfo"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let args = json!({"db": "demo", "question": "How many orders are there?", "seed": 1});
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_database", "arguments": args}}),
    );
    let r = reply(2);
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("the engine failed") && text.contains("decode failed"), "{r}");
    // Its client is still there (stdin open): the failure alone ends it.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running 60 s after its engine failed");
        std::thread::sleep(Duration::from_millis(100));
    };
    drop(stdin);
    let log = log.join().unwrap();
    assert!(!status.success(), "exit {status:?}: {log}");
    assert!(log.contains("the engine failed"), "{log}");
}
