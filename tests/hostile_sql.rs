//! Hostile SQL through `sqale tools`: every class of statement that could change the database or
//! create a file is refused, runaway queries are stopped, large outputs are bounded, the file is
//! byte-identical afterwards and no file appears next to it.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn tools(db: &Path, call: &str, timeout: f64) -> (bool, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["tools", "--json", "--sql-timeout", &timeout.to_string(), "--db"])
        .arg(db)
        .arg(call)
        .output()
        .expect("run sqale tools");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {}", String::from_utf8_lossy(&out.stderr)));
    (
        v["ok"].as_bool().expect("ok field"),
        v["result"].as_str().expect("result field").to_string(),
        out.status.code().unwrap_or(-1),
    )
}

fn query(sql: &str) -> String {
    serde_json::json!({"tool": "run_query", "args": {"sql": sql}}).to_string()
}

#[test]
fn statements_that_write_or_create_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::library_db(dir.path());
    let before = common::sha256(&db);
    let listing = common::dir_listing(dir.path());

    let hostile = [
        "INSERT INTO authors VALUES (9, 'x', 'y')",
        "UPDATE books SET year = 0",
        "DELETE FROM loans",
        "REPLACE INTO members VALUES (1, 'x', 'y')",
        "DROP TABLE notes",
        "CREATE TABLE t (x)",
        "CREATE TEMP TABLE t AS SELECT * FROM books",
        "CREATE TEMP VIEW v AS SELECT 1",
        "CREATE VIEW v AS SELECT 1",
        "CREATE INDEX i ON books(year)",
        "CREATE TRIGGER tr AFTER INSERT ON books BEGIN SELECT 1; END",
        "CREATE VIRTUAL TABLE f USING fts5(x)",
        "ALTER TABLE books ADD COLUMN isbn TEXT",
        "ATTACH DATABASE 'evil.sqlite' AS evil",
        "ATTACH 'file:evil2.sqlite?mode=rwc' AS evil",
        "DETACH DATABASE main",
        "VACUUM",
        "VACUUM INTO 'copy.sqlite'",
        "REINDEX",
        "ANALYZE",
        "BEGIN",
        "SAVEPOINT s",
        "PRAGMA journal_mode = WAL",
        "PRAGMA user_version = 7",
        "PRAGMA writable_schema = ON",
        "PRAGMA query_only = OFF",
        "PRAGMA temp_store_directory = '.'",
        "PRAGMA cache_size = 1000000",
        "SELECT load_extension('libevil')",
        "SELECT 1; DROP TABLE books",
        "SELECT 1; ATTACH 'x.sqlite' AS x",
        "WITH x AS (SELECT 1) INSERT INTO notes SELECT * FROM x",
    ];
    for sql in hostile {
        let (ok, result, code) = tools(&db, &query(sql), 5.0);
        assert!(!ok, "{sql:?} was not refused: {result}");
        assert!(result.starts_with("Error: "), "{sql:?}: {result}");
        assert_eq!(code, 1, "{sql:?}: a failed call exits 1");
    }
    assert_eq!(common::sha256(&db), before, "the database changed");
    assert_eq!(common::dir_listing(dir.path()), listing, "a file appeared next to the database");

    // Reading, including the introspection PRAGMAs, still works.
    let (ok, result, _) = tools(&db, &query("PRAGMA table_info(books)"), 5.0);
    assert!(ok, "{result}");
    let (ok, result, _) = tools(&db, &query("SELECT title FROM books WHERE year < 1972 ORDER BY year"), 5.0);
    assert!(ok && result.contains("Solaris") && result.contains("[2 rows]"), "{result}");
}

#[test]
fn runaway_queries_are_stopped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::library_db(dir.path());
    let before = common::sha256(&db);
    let runaway = [
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        "SELECT count(*) FROM books a, books b, books c, books d, books e, books f, books g, books h, books i, books j, books k, books l, books m, books n, books o",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r ORDER BY n DESC",
    ];
    for sql in runaway {
        let t = std::time::Instant::now();
        let (ok, result, _) = tools(&db, &query(sql), 0.5);
        assert!(!ok, "{sql:?} finished: {result}");
        assert!(result.contains("time limit"), "{sql:?}: {result}");
        // Not a timing assertion on speed: a stop that never came would hang the test instead.
        assert!(t.elapsed().as_secs() < 60, "{sql:?} was not stopped");
    }
    // Values too large to build are refused by SQLite's length limit.
    let (ok, result, _) = tools(&db, &query("SELECT length(zeroblob(1000000000))"), 5.0);
    assert!(!ok, "{result}");
    assert_eq!(common::sha256(&db), before);
}

#[test]
fn outputs_are_bounded_and_truncation_is_stated() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::library_db(dir.path());
    let (ok, result, _) = tools(
        &db,
        &query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5000) SELECT n FROM r"),
        5.0,
    );
    assert!(ok, "{result}");
    assert!(result.ends_with("[showing first 30 of 5000 rows]"), "{result}");
    assert_eq!(result.lines().count(), 32);

    let (ok, result, _) = tools(&db, &query("SELECT printf('%.5000c', 'x') AS wide"), 5.0);
    assert!(ok);
    assert!(result.contains("…[+4800 chars]"), "{result}");

    let (ok, result, _) = tools(
        &db,
        &query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 29) SELECT printf('%.190c', 'y') AS a, printf('%.190c', 'z') AS b FROM r"),
        5.0,
    );
    assert!(ok);
    assert!(result.contains("[output cut at 6000 characters"), "{result}");
    assert!(result.len() < 6200);

    // Multi-line values stay on one line.
    let (ok, result, _) = tools(&db, &query("SELECT note FROM notes"), 5.0);
    assert!(ok);
    assert_eq!(result, "note\nmulti\\nline\nNULL\n[2 rows]");
}

#[test]
fn bad_calls_are_errors_for_the_model_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::library_db(dir.path());
    let cases = [
        (r#"{"tool": "drop_everything"}"#, "unknown tool"),
        (r#"{"tool": "describe_table"}"#, "needs args.table_name"),
        (r#"{"tool": "describe_table", "args": {"table_name": 5}}"#, "needs a string"),
        (r#"{"tool": "describe_table", "args": {"table_name": "nope"}}"#, "no such table: nope"),
        (r#"{"tool": "describe_table", "args": "books"}"#, "args must be a JSON object"),
        (r#"{"tool": "sample_rows", "args": {"table_name": "books", "limit": -1}}"#, "positive integer"),
        (r#"{"tool": "distinct_values", "args": {"table_name": "books", "column_name": "nope"}}"#, "no such column"),
        (r#"{"tool": "join_path", "args": {"table_a": "books"}}"#, "needs args.table_b"),
        (r#"{"tool": "run_query", "args": {"sql": "SELEC 1"}}"#, "syntax error"),
        (r#"{"tool": "run_query", "args": {"sql": ""}}"#, "non-empty"),
        (r#"{"tool": "run_query", "args": {"sql": "-- only a comment"}}"#, "empty SQL"),
    ];
    for (call, expected) in cases {
        let (ok, result, _) = tools(&db, call, 5.0);
        assert!(!ok, "{call}: {result}");
        assert!(result.contains(expected), "{call}: expected {expected:?} in {result:?}");
    }
}

#[test]
fn a_database_that_cannot_be_opened_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sqlite");
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["tools", "--db"])
        .arg(&missing)
        .arg(r#"{"tool": "list_tables"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("database not found"));
    assert!(!missing.exists(), "opening must not create the file");

    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, b"this is not a database").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["tools", "--db"])
        .arg(&junk)
        .arg(r#"{"tool": "list_tables"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(common::dir_listing(dir.path()), ["junk.sqlite"]);
}
