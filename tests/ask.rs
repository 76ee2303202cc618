//! `sqale ask` end to end with the real SmolLM2 GGUF on real SQLite files: the answer's rows in
//! each format and the exit statuses; a session on a pseudo-terminal (two questions, Ctrl-C
//! during the second, a third after it); a session on standard input, one answer a line.
//!
//! SmolLM2 cannot follow the protocol, so the tests steer it with `tests/fixtures/copy_prompt.py`
//! into copying the tool call the question gives: a real episode that ends by submit_sql with
//! known rows.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The question that makes the copying model submit `sql`.
fn submit(sql: &str) -> String {
    json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string()
}

const BOOKS: &str = "SELECT title, year FROM books ORDER BY year";

/// `sqale ask` with the test model and the copy prompt, its cache in `cache`, 900 tokens an
/// episode.
fn ask(cache: &Path) -> Command {
    ask_within(cache, 900)
}

/// [`ask`] with a budget of `budget` tokens an episode.
fn ask_within(cache: &Path, budget: usize) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqale"));
    c.env("XDG_CACHE_HOME", cache).env("NO_COLOR", "1").arg("ask").arg("--model").arg(common::test_model());
    c.args(["--prompt-from", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py")]);
    c.args(["--ctx", "2048", "--seed", "7", "--max-episode-tokens", &budget.to_string()]);
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The rows SQLite itself gives for `sql` on `db`, as CSV lines.
fn sqlite_rows(db: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| Ok(format!("{},{}", r.get::<_, String>(0)?, r.get::<_, i64>(1)?)));
    rows.unwrap().map(Result::unwrap).collect()
}

fn library(dir: &Path) -> (PathBuf, String) {
    let db = common::library_db(dir);
    let hash = common::sha256(&db);
    (db, hash)
}

#[test]
fn ask_prints_the_rows_in_each_format_and_exits_by_whether_it_answered() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = library(dir.path());
    let want = sqlite_rows(&db, BOOKS);
    assert_eq!(want.len(), 4);
    let run = |format: &str| -> Output {
        let o = ask(dir.path()).arg("--db").arg(&db).args(["--format", format]).arg(submit(BOOKS)).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("ended_by: submit_sql") || format == "json", "{}", text(&o.stderr));
        o
    };
    // sql: the query alone (as the model copied it: the same rows as the one asked for).
    let sql = text(&run("sql").stdout);
    let sql = sql.strip_suffix('\n').expect("one line");
    assert_eq!(sqlite_rows(&db, sql), want, "{sql}");
    // table: the SQL, the rows in a table, their count.
    let table = text(&run("table").stdout);
    assert!(table.starts_with(&format!("{sql}\n\n")), "{table}");
    assert!(table.contains("title") && table.contains("year"), "{table}");
    for line in &want {
        let (title, year) = line.split_once(',').unwrap();
        assert!(table.lines().any(|l| l.contains(title) && l.contains(year)), "{title} {year} in\n{table}");
    }
    assert!(table.trim_end().ends_with("4 rows"), "{table}");
    // csv: exactly SQLite's rows under a header.
    assert_eq!(text(&run("csv").stdout), format!("title,year\n{}\n", want.join("\n")));
    // json (and --json): the episode and its rows.
    let v: Value = serde_json::from_slice(&run("json").stdout).expect("JSON on stdout");
    assert_eq!(v["episode"]["ended_by"], "submit_sql");
    assert_eq!(v["episode"]["sql"], sql);
    assert_eq!(v["rows"]["columns"], json!(["title", "year"]));
    let rows: Vec<String> =
        v["rows"]["rows"].as_array().unwrap().iter().map(|r| format!("{},{}", r[0].as_str().unwrap(), r[1])).collect();
    assert_eq!(rows, want);
    assert_eq!(v["rows"]["truncated"], false);
    let o = ask(dir.path()).arg("--db").arg(&db).arg("--json").arg(submit(BOOKS)).output().unwrap();
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(again["rows"], v["rows"]);
    // No answer (the budget ends the episode before the tool call is written): exit 1, and
    // the table says so.
    let o = ask_within(dir.path(), 140).arg("--db").arg(&db).arg(submit(BOOKS)).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("(no answer: the episode ended by token_budget"), "{}", text(&o.stdout));
    // An answer whose query does not run: said instead of the rows, and exit 1 too.
    let o = ask(dir.path()).arg("--db").arg(&db).arg(submit("SELECT isbn FROM books")).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("ended_by: submit_sql"), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("the answer's rows could not be read: no such column"), "{}", text(&o.stdout));
    assert_eq!(common::sha256(&db), before, "the database is never changed");
}

/// Standard input not a terminal: one question a line, one JSON answer a line; `/db` switches
/// the database between them, and the second question restores the prompt snapshot.
#[test]
fn standard_input_answers_each_line_and_reuses_the_prompt() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = library(dir.path());
    let demo = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    let mut child = ask(dir.path())
        .arg("--db")
        .arg(&demo)
        .arg("--json")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let count = "SELECT count(*) AS n FROM orders";
    let input = format!("{}\n/db {}\n\n{}\n", submit(count), db.display(), submit(BOOKS));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let answers: Vec<Value> = text(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(answers.len(), 2, "{}", text(&o.stdout));
    let orders: i64 = rusqlite::Connection::open(&demo).unwrap().query_row(count, [], |r| r.get(0)).unwrap();
    assert_eq!(answers[0]["rows"]["rows"], json!([[orders]]));
    assert_eq!(answers[0]["db"], demo.display().to_string());
    assert_eq!(answers[1]["db"], db.display().to_string());
    assert_eq!(answers[1]["rows"]["rows"].as_array().unwrap().len(), sqlite_rows(&db, BOOKS).len());
    let tokens = |a: &Value, k: &str| a["episode"]["tokens"][k].as_u64().unwrap();
    assert_eq!(tokens(&answers[0], "reused_tokens"), 0, "the first question decodes the system prompt");
    assert!(tokens(&answers[1], "reused_tokens") > 0, "the second restores it: {}", answers[1]["episode"]["tokens"]);
    for a in &answers {
        assert_eq!(tokens(a, "decoded_tokens") + tokens(a, "reused_tokens"), tokens(a, "context_tokens"));
    }
    assert_eq!(common::sha256(&db), before);
}

/// A bad line is an error line (and exit 2), and the session answers the next one.
#[test]
fn standard_input_reports_a_bad_line_and_goes_on() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = library(dir.path());
    let mut child = ask(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["--format", "sql"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!("/db {}\n{}\n", dir.path().join("missing.sqlite").display(), submit(BOOKS));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("database not found"), "{}", text(&o.stderr));
    let sql = text(&o.stdout);
    assert_eq!(sqlite_rows(&db, sql.trim_end()), sqlite_rows(&db, BOOKS), "one answer, the query on one line: {sql}");
    assert_eq!(sql.lines().count(), 1, "{sql}");
}

#[cfg(unix)]
mod terminal {
    use super::*;
    use rexpect::session::spawn_command;

    /// Seconds one step may take on a busy two-core machine.
    const STEP_MS: u64 = 300_000;

    /// The reused-token count in a summary line (`… (70 decoded, 84 reused, …)`).
    fn reused(summary: &str) -> u64 {
        let (before, _) = summary.split_once(" reused").unwrap_or_else(|| panic!("a summary line: {summary:?}"));
        before.rsplit(' ').next().unwrap().parse().unwrap()
    }

    /// A session through a pseudo-terminal: a question, a second stopped by Ctrl-C while it
    /// generates, a third after it, Ctrl-D; each answer after the first restores the prompt.
    #[test]
    fn a_session_answers_stops_on_ctrl_c_and_goes_on() {
        let _g = common::one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let (db, before) = library(dir.path());
        let mut cmd = ask(dir.path());
        cmd.arg("--db").arg(&db);
        let mut p = spawn_command(cmd, Some(STEP_MS)).unwrap();
        p.exp_string("/help lists the commands").unwrap();
        p.exp_string(">>> ").unwrap();
        p.send_line(&submit(BOOKS)).unwrap();
        p.exp_string("4 rows").unwrap();
        let (_, first) = p.exp_regex(r"ended_by: submit_sql[^\r\n]*\r?\n").unwrap();
        assert_eq!(reused(&first), 0, "{first}");
        // The second question rambles (no tool call to copy): stopped once it generates.
        p.exp_string(">>> ").unwrap();
        p.send_line("/trace on").unwrap();
        p.exp_string(">>> ").unwrap();
        p.send_line("Tell me a very long story about the sea and the ships, and keep going").unwrap();
        p.exp_string("</think>").unwrap();
        p.send_control('c').unwrap();
        let stopped = p.exp_string("(episode stopped)").unwrap();
        assert!(!stopped.contains("ended_by"), "Ctrl-C stopped the episode before it ended: {stopped}");
        p.exp_string(">>> ").unwrap();
        p.send_line("/trace off").unwrap();
        p.exp_string(">>> ").unwrap();
        let count = "SELECT count(*) AS n FROM books";
        p.send_line(&submit(count)).unwrap();
        p.exp_string("1 row").unwrap();
        let (_, third) = p.exp_regex(r"ended_by: submit_sql[^\r\n]*\r?\n").unwrap();
        assert!(reused(&third) > 0, "the third question restores the prompt snapshot: {third}");
        p.exp_string(">>> ").unwrap();
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
        let history = std::fs::read_to_string(dir.path().join("sqale/ask_history")).unwrap();
        assert!(history.contains(&submit(count)) && history.contains("/trace on"), "{history}");
        assert_eq!(common::sha256(&db), before);
    }
}
