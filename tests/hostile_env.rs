//! Hostile input to the environment, round two: statements whose time goes into one long
//! function call (which SQLite's progress handler cannot stop), a database whose view computes
//! one, generated columns, control characters in names and values, and `--db` paths that are no
//! database file.
//!
//! The statements below are sized to run for tens of seconds if nothing stops them (about 15 to
//! 70 s on a 2-core machine); each must come back with the time-limit error within a few seconds.
//! Calls through `sqale tools` run in their own processes (an abandoned statement dies with its
//! process); the in-process calls are all in one test, because abandoned statements are counted
//! across the process.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqale::env::{Environment, Limits, ToolError};

/// `instr` of a 1.6 MB text and a 0.8 MB needle that never matches: about 10^12 byte
/// comparisons, in one VM step.
const SLOW_INSTR: &str = "instr(printf('%.1600000c', 'a'), printf('%.800000c', 'a') || 'b')";

/// The slow statements, one per kind of function SQLite runs in a single step.
const SLOW_STATEMENTS: &[&str] = &[
    "SELECT instr(printf('%.1600000c', 'a'), printf('%.800000c', 'a') || 'b')",
    "SELECT printf('%.8000000c', 'a') LIKE '%' || printf('%.990c', 'a') || 'b'",
    "SELECT printf('%.8000000c', 'a') GLOB '*' || printf('%.990c', 'a') || 'b'",
    "SELECT length(trim(printf('%.120000c', 'a'), printf('%.120000c', 'b') || 'a'))",
    "SELECT length(ltrim(printf('%.120000c', 'a'), printf('%.120000c', 'b') || 'a'))",
    "SELECT instr(x, y) FROM (SELECT printf('%.1600000c', 'a') AS x, printf('%.800000c', 'a') || 'b' AS y)",
];

/// A database with a view that computes [`SLOW_INSTR`] (also in its WHERE, so that counting its
/// rows computes it too), a table with generated columns, and
/// names and values holding terminal escapes.
fn hostile_db(dir: &Path) -> PathBuf {
    let path = dir.join("hostile.sqlite");
    let conn = rusqlite::Connection::open(&path).expect("create db");
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = DELETE;
         CREATE VIEW slow AS SELECT {SLOW_INSTR} AS x WHERE {SLOW_INSTR} = 0;
         CREATE TABLE parts (id INTEGER PRIMARY KEY, price REAL NOT NULL, qty INTEGER DEFAULT 1,
             total REAL GENERATED ALWAYS AS (price * qty) VIRTUAL,
             label TEXT AS (upper(name)) STORED,
             name TEXT,
             owner_id INTEGER AS (id % 2) STORED REFERENCES owners(owner_id));
         CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO owners VALUES (0, 'even'), (1, 'odd');
         INSERT INTO parts (id, price, qty, name) VALUES (1, 2.5, 2, 'bolt'), (2, 1.0, 3, 'nut'), (3, 2.5, 2, 'bolt');
         CREATE TABLE \"evil\x1b]0;pwned\x07\" (v TEXT);
         INSERT INTO \"evil\x1b]0;pwned\x07\" VALUES ('\x1b[2J\x1b[Hgone\r');"
    ))
    .expect("populate db");
    drop(conn);
    path
}

struct Out {
    ok: Option<bool>,
    stdout: String,
    stderr: String,
    code: Option<i32>,
    took: Duration,
}

fn sqale_tools(args: &[&str], db: &Path, call: &str) -> Out {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .arg("tools")
        .args(args)
        .arg("--db")
        .arg(db)
        .arg(call)
        .output()
        .expect("run sqale tools");
    let took = t.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let ok = serde_json::from_str::<Value>(stdout.trim()).ok().and_then(|v| v["ok"].as_bool());
    Out { ok, stdout, stderr: String::from_utf8_lossy(&out.stderr).into_owned(), code: out.status.code(), took }
}

fn query(sql: &str) -> String {
    json!({"tool": "run_query", "args": {"sql": sql}}).to_string()
}

#[test]
fn one_long_function_call_is_stopped_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_db(dir.path());
    let calls: Vec<String> = SLOW_STATEMENTS
        .iter()
        .map(|s| query(s))
        .chain([
            // A view computing the value: no model SQL needed.
            json!({"tool": "sample_rows", "args": {"table_name": "slow"}}).to_string(),
            json!({"tool": "distinct_values", "args": {"table_name": "slow", "column_name": "x"}}).to_string(),
            json!({"tool": "submit_sql", "args": {"sql": "SELECT * FROM slow"}}).to_string(),
        ])
        .collect();
    // All at once (each in its own process): the test takes as long as the slowest.
    let runs: Vec<_> = calls
        .iter()
        .map(|call| {
            let (db, call) = (db.clone(), call.clone());
            std::thread::spawn(move || (sqale_tools(&["--json", "--sql-timeout", "1"], &db, &call), call))
        })
        .collect();
    for run in runs {
        let (out, call) = run.join().unwrap();
        assert_eq!(out.ok, Some(false), "{call} was not stopped: {}", out.stdout);
        assert!(out.stdout.contains("time limit"), "{call}: {}", out.stdout);
        assert!(out.stdout.contains("query stopped after 1.0 s"), "{call}: {}", out.stdout);
        assert_eq!(out.code, Some(1), "{call}");
        // The requirement itself: the deadline (1 s) holds to within a second, with room for
        // the process's start; without a stop these run 15 to 70 s.
        assert!(out.took < Duration::from_secs(3), "{call} took {:?}", out.took);
    }
}

#[test]
fn describe_table_of_a_slow_view_still_describes_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_db(dir.path());
    let call = json!({"tool": "describe_table", "args": {"table_name": "slow"}}).to_string();
    let out = sqale_tools(&["--json", "--sql-timeout", "1"], &db, &call);
    assert_eq!(out.ok, Some(true), "{}", out.stdout);
    assert!(out.stdout.contains("view slow (row count unavailable)"), "{}", out.stdout);
    assert!(out.took < Duration::from_secs(3), "took {:?}", out.took);
}

/// Everything in-process, in order (abandoned statements are counted across the process): the
/// bound on abandoned statements, then the library's own entry points (scoring's `execute`,
/// `first_rows`, `check`, the schema) under the deadline.
#[test]
fn every_library_path_holds_the_deadline_and_abandoned_statements_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_db(dir.path());
    let limits = Limits { timeout: Duration::from_millis(300), ..Limits::default() };
    // About 3 s of one core here: long enough to outlive its deadline on a faster machine too.
    let slow = "SELECT instr(printf('%.640000c', 'a'), printf('%.320000c', 'a') || 'b')";
    // The requirement: within a second of the time limit.
    let bound = limits.timeout + Duration::from_secs(1);

    // Past `max_abandoned` stopped statements still running, statements that need the worker
    // (those that may run one long step) are refused until one ends; others still run.
    let mut env = Environment::with_limits(&db, Limits { max_abandoned: 1, ..limits.clone() }).unwrap();
    let t = Instant::now();
    let r = env.call("run_query", &json!({"sql": slow}));
    assert!(!r.ok && r.result.contains("time limit"), "{}", r.result);
    assert!(t.elapsed() < bound, "run_query took {:?}", t.elapsed());
    let quick_but_risky = json!({"sql": "SELECT instr('abc', 'b')"});
    let r = env.call("run_query", &quick_but_risky);
    assert!(!r.ok && r.result.contains("still finishing"), "{}", r.result);
    assert!(matches!(env.execute("SELECT instr('abc', 'c')"), Err(ToolError::Busy(1))));
    assert!(env.call("list_tables", &json!({})).ok);
    assert_eq!(env.execute("SELECT 1").unwrap().rows.len(), 1);
    let settled = Instant::now();
    while !env.call("run_query", &quick_but_risky).ok {
        assert!(settled.elapsed() < Duration::from_secs(120), "the abandoned statement never ended");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(env);

    let mut env = Environment::with_limits(&db, limits.clone()).unwrap();
    let timed_out = |r: Result<(), ToolError>, what: &str, t: Instant| {
        assert!(matches!(r, Err(ToolError::TimedOut(_))), "{what}: {r:?}");
        assert!(t.elapsed() < bound, "{what} took {:?}", t.elapsed());
    };
    let t = Instant::now();
    timed_out(env.execute(slow).map(drop), "execute", t);
    let t = Instant::now();
    timed_out(env.first_rows("SELECT * FROM slow", 5).map(drop), "first_rows", t);
    let t = Instant::now();
    timed_out(env.check(slow).map(drop), "check", t);
    // After each abandoned statement a fresh connection serves the next call.
    let r = env.call("run_query", &json!({"sql": "SELECT count(*) FROM parts"}));
    assert!(r.ok && r.result.contains("\n3\n"), "{}", r.result);
    assert_eq!(env.execute("SELECT sum(total) FROM parts").unwrap().rows.len(), 1);
    assert_eq!(env.table_graph().unwrap().1, [("parts".to_string(), "owners".to_string())]);
    assert_eq!(env.views().unwrap(), ["slow"]);
    assert!(env.tables_read("SELECT * FROM slow").is_ok());
    drop(env);

    // The same statement on the caller's thread (`isolate: false`, the behaviour before the
    // worker): SQLite's progress handler alone does not stop it. Shown on request only, as it
    // takes the statement's whole run.
    if std::env::var_os("SQALE_HOSTILE_SHOW_INLINE").is_some() {
        let mut env = Environment::with_limits(&db, Limits { isolate: false, ..limits }).unwrap();
        let t = Instant::now();
        let r = env.execute(slow);
        eprintln!("inline: {:?} after {:?}", r.map(|r| r.rows), t.elapsed());
    }
}

#[test]
fn generated_columns_are_described_and_usable() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_db(dir.path());
    let mut env = Environment::open(&db).unwrap();
    let r = env.call("describe_table", &json!({"table_name": "parts"}));
    assert!(r.ok, "{}", r.result);
    assert_eq!(
        r.result,
        "table parts (3 rows)\ncolumns:\n  id INTEGER PRIMARY KEY\n  price REAL NOT NULL\n  qty INTEGER DEFAULT 1\n  \
         total REAL GENERATED VIRTUAL\n  label TEXT GENERATED STORED\n  name TEXT\n  \
         owner_id INTEGER GENERATED STORED → owners.owner_id"
    );
    let r = env.call("distinct_values", &json!({"table_name": "parts", "column_name": "total"}));
    assert!(r.ok, "{}", r.result);
    assert_eq!(r.result, "distinct values of parts.total (2 of 2):\n5.0\n3.0");
    let r = env.call("foreign_keys", &json!({"table_name": "owners"}));
    assert!(r.result.contains("parts.owner_id → owners.owner_id"), "{}", r.result);
    let r = env.call("join_path", &json!({"table_a": "parts", "table_b": "owners"}));
    assert!(r.result.contains("parts.owner_id = owners.owner_id"), "{}", r.result);
    let r = env.call("sample_rows", &json!({"table_name": "parts", "limit": 1}));
    assert!(
        r.result.starts_with("id | price | qty | total | label | name | owner_id\n1 | 2.5 | 2 | 5.0 | BOLT"),
        "{}",
        r.result
    );

    // The hidden columns of a virtual table stay hidden, as in `SELECT *`; an ordinary table is
    // described as before, byte for byte.
    let r = env.call("describe_table", &json!({"table_name": "owners"}));
    assert_eq!(r.result, "table owners (2 rows)\ncolumns:\n  owner_id INTEGER PRIMARY KEY\n  name TEXT");
}

#[test]
fn hidden_columns_of_virtual_tables_stay_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fts.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    // fts5 is in SQLite's bundled build only with its feature: skip where it is not.
    if conn
        .execute_batch("CREATE VIRTUAL TABLE docs USING fts5(title, body); INSERT INTO docs VALUES ('a', 'b');")
        .is_err()
    {
        return;
    }
    drop(conn);
    let mut env = Environment::open(&path).unwrap();
    let r = env.call("describe_table", &json!({"table_name": "docs"}));
    assert!(r.result.ends_with("columns:\n  title\n  body"), "{}", r.result);
}

#[test]
fn terminal_escapes_in_names_and_values_are_escaped_for_people_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = hostile_db(dir.path());
    for call in [
        json!({"tool": "list_tables"}).to_string(),
        query("SELECT * FROM \"evil\x1b]0;pwned\x07\""),
        json!({"tool": "describe_table", "args": {"table_name": "evil\x1b]0;pwned\x07"}}).to_string(),
    ] {
        let out = sqale_tools(&[], &db, &call);
        assert_eq!(out.code, Some(0), "{call}: {}", out.stderr);
        assert!(!out.stdout.chars().any(|c| c == '\x1b' || c == '\x07' || c == '\r'), "{call}: {:?}", out.stdout);
        assert!(
            out.stdout.contains("evil\\u{1b}]0;pwned\\u{7}") || out.stdout.contains("\\u{1b}[2J"),
            "{:?}",
            out.stdout
        );
        // The model's text (the JSON) is unchanged: the raw characters, escaped by JSON only.
        let json = sqale_tools(&["--json"], &db, &call);
        let v: Value = serde_json::from_str(json.stdout.trim()).unwrap();
        assert!(v["result"].as_str().unwrap().contains('\x1b'), "{}", json.stdout);
    }
}

#[test]
fn db_paths_that_are_not_database_files_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let call = json!({"tool": "list_tables"}).to_string();
    let out = sqale_tools(&[], dir.path(), &call);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("is a directory, not a database file"), "{}", out.stderr);
    assert!(!out.stderr.contains("not found"), "{}", out.stderr);

    #[cfg(unix)]
    {
        let fifo = dir.path().join("pipe.sqlite");
        let made = Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
        if made {
            // A FIFO opened for reading would block until a writer came: the check must not open it.
            let out = sqale_tools(&[], &fifo, &call);
            assert_eq!(out.code, Some(2), "{}", out.stderr);
            assert!(out.stderr.contains("is a named pipe (FIFO), not a database file"), "{}", out.stderr);
            assert!(out.took < Duration::from_secs(20), "took {:?}", out.took);
        }
    }
}

#[test]
fn a_long_unparsable_call_is_quoted_in_short() {
    let db = common::demo_db();
    let huge = "[".repeat(30_000);
    let out = sqale_tools(&[], &db, &huge);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("no tool call found in \"[[["), "{}", out.stderr);
    assert!(out.stderr.contains("(30000 characters in all)"), "{}", out.stderr);
    assert!(out.stderr.len() < 1000, "{} bytes of error", out.stderr.len());
}

/// The worker's cost on ordinary calls: the demo database's tool calls and the evaluation
/// fixture's gold queries (as `run_query` and as scoring's `execute`), each timed on the caller's
/// thread (`isolate: false`) and on the worker, interleaved, in the same process. A benchmark,
/// not a test: `bash benches/env-overhead.sh [ROUNDS] [GAP_US]`.
#[test]
#[ignore = "a benchmark: bash benches/env-overhead.sh"]
fn bench_worker_overhead_on_ordinary_calls() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let gold: Vec<String> = std::fs::read_to_string(&fixture)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["gold_sql"].as_str().map(str::to_string))
        .collect();
    let mut calls: Vec<(String, Value)> = vec![
        ("list_tables".into(), json!({})),
        ("describe_table".into(), json!({"table_name": "orders"})),
        ("describe_table".into(), json!({"table_name": "order_totals"})),
        ("foreign_keys".into(), json!({"table_name": "shipments"})),
        ("join_path".into(), json!({"table_a": "suppliers", "table_b": "order_items"})),
        ("sample_rows".into(), json!({"table_name": "products"})),
        ("distinct_values".into(), json!({"table_name": "orders", "column_name": "status"})),
    ];
    calls.extend(gold.iter().map(|sql| ("run_query".to_string(), json!({"sql": sql}))));
    let rounds: usize = std::env::var("SQALE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    // Idle time before each call, as between an agent's calls (the model writes the next one),
    // so that the worker has gone to sleep when the call comes: `SQALE_BENCH_GAP_US`.
    let gap = Duration::from_micros(std::env::var("SQALE_BENCH_GAP_US").ok().and_then(|s| s.parse().ok()).unwrap_or(0));
    let db = common::demo_db();
    let mut envs =
        [false, true].map(|isolate| Environment::with_limits(&db, Limits { isolate, ..Limits::default() }).unwrap());
    // Per item (each call, then each gold query through `execute`), per mode: one time per round.
    let items = calls.len() + gold.len();
    let mut times = vec![[Vec::with_capacity(rounds), Vec::with_capacity(rounds)]; items];
    for round in 0..rounds + 10 {
        for (m, env) in envs.iter_mut().enumerate() {
            for (i, (tool, args)) in calls.iter().enumerate() {
                std::thread::sleep(gap);
                let t = Instant::now();
                let r = env.call(tool, args);
                let took = t.elapsed();
                assert!(r.ok, "{tool}: {}", r.result);
                if round >= 10 {
                    times[i][m].push(took);
                }
            }
            for (j, sql) in gold.iter().enumerate() {
                std::thread::sleep(gap);
                let t = Instant::now();
                env.execute(sql).unwrap();
                let took = t.elapsed();
                if round >= 10 {
                    times[calls.len() + j][m].push(took);
                }
            }
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e6
    };
    println!("| call | caller's thread (µs) | worker (µs) | cost |\n|---|--:|--:|--:|");
    let (mut inline_sum, mut worker_sum) = (0.0, 0.0);
    for (i, t) in times.iter_mut().enumerate() {
        let label = if i < calls.len() {
            let (tool, args) = &calls[i];
            let arg = args.as_object().and_then(|m| m.values().next()).and_then(Value::as_str).unwrap_or("");
            format!("{tool} {}", arg.chars().take(40).collect::<String>())
        } else {
            format!("execute {}", gold[i - calls.len()].chars().take(40).collect::<String>())
        };
        let (a, b) = (median(&mut t[0]), median(&mut t[1]));
        inline_sum += a;
        worker_sum += b;
        println!("| `{label}` | {a:.1} | {b:.1} | {:+.1} % |", (b / a - 1.0) * 100.0);
    }
    println!(
        "| **all {items}, summed** | {inline_sum:.1} | {worker_sum:.1} | {:+.1} % |",
        (worker_sum / inline_sum - 1.0) * 100.0
    );
    println!(
        "({rounds} rounds, {} µs idle before each call; medians; per call {:.1} µs more on the worker)",
        gap.as_micros(),
        (worker_sum - inline_sum) / items as f64
    );
}

/// A database whose schema alone would flood a context: a table named with 500,000 characters,
/// a table of 1,500 columns, 3,000 tables, and a table with 800 foreign keys.
fn huge_schema_db(dir: &Path) -> PathBuf {
    let path = dir.join("huge-schema.sqlite");
    let conn = rusqlite::Connection::open(&path).expect("create db");
    let long_name = "n".repeat(500_000);
    let wide: Vec<String> = (0..1500).map(|i| format!("column_number_{i:04} INTEGER")).collect();
    let keys: Vec<String> = (0..800).map(|i| format!("ref_{i:03} INTEGER REFERENCES target(id)")).collect();
    let mut sql = format!(
        "BEGIN; CREATE TABLE \"{long_name}\" (id INTEGER PRIMARY KEY);
         CREATE TABLE wide ({}); INSERT INTO wide (column_number_0000) VALUES (1);
         CREATE TABLE target (id INTEGER PRIMARY KEY);
         CREATE TABLE many_keys (id INTEGER PRIMARY KEY, {});",
        wide.join(", "),
        keys.join(", ")
    );
    for i in 0..3000 {
        sql.push_str(&format!("CREATE TABLE filler_table_number_{i:04} (id INTEGER PRIMARY KEY);"));
    }
    sql.push_str("COMMIT;");
    conn.execute_batch(&sql).expect("populate db");
    drop(conn);
    path
}

#[test]
fn every_tool_result_is_capped_schema_tools_and_headers_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = huge_schema_db(dir.path());
    let limits = Limits::default();
    let max = limits.max_result_chars;
    let mut env = Environment::with_limits(&db, limits).unwrap();
    let calls = [
        ("list_tables", json!({})),
        ("describe_table", json!({"table_name": "wide"})),
        ("describe_table", json!({"table_name": "many_keys"})),
        ("foreign_keys", json!({"table_name": "target"})),
        ("foreign_keys", json!({"table_name": "many_keys"})),
        ("sample_rows", json!({"table_name": "wide", "limit": 1})),
        ("sample_rows", json!({"table_name": "wide", "limit": 3})),
        ("run_query", json!({"sql": "SELECT * FROM wide LIMIT 0"})),
        ("distinct_values", json!({"table_name": "wide", "column_name": "nope"})),
        ("join_path", json!({"table_a": "many_keys", "table_b": "target"})),
    ];
    for (tool, args) in calls {
        let r = env.call(tool, &args);
        let chars = r.result.chars().count();
        // The allowance, and the one line that states the cut.
        assert!(chars <= max + 80, "{tool} {args}: {chars} characters");
        if tool != "join_path" {
            assert!(
                r.result.contains("[output cut at 6000 characters"),
                "{tool} {args}: no cut stated:\n{}",
                &r.result[..200]
            );
        }
    }
    // The one long name is cut in the listing, and the listing still counts every table.
    let r = env.call("list_tables", &json!({}));
    assert!(r.result.starts_with("3004 tables: "), "{}", &r.result[..100]);
    assert!(r.result.contains("…[+499800 chars]"), "the long name is not cut in:\n{}", &r.result[..400]);
}

#[test]
fn a_damaged_or_changing_database_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = DELETE; PRAGMA page_size = 1024;
         CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO t SELECT i, printf('%.100c', 'x') FROM n;",
    )
    .unwrap();
    drop(conn);
    // Overwrite the middle of the table's b-tree, as a writer caught half-way would leave it.
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2 / 1024 * 1024;
    bytes[middle..middle + 1024].fill(0xa5);
    std::fs::write(&path, &bytes).unwrap();
    let mut env = Environment::open(&path).unwrap();
    let r = env.call("run_query", &json!({"sql": "SELECT count(*), sum(length(v)) FROM t"}));
    assert!(!r.ok, "{}", r.result);
    assert!(r.result.contains("malformed"), "{}", r.result);
    assert!(r.result.contains("changed while it was read") && r.result.contains(".backup"), "{}", r.result);
}
