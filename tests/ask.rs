//! `sqale ask` end to end with the real SmolLM2 GGUF on real SQLite files: the answer's rows in
//! each format and the exit statuses; a session on a pseudo-terminal (two questions, Ctrl-C
//! during the second, a third after it); a session on standard input, one answer a line; a
//! database whose text would command a terminal (escaped on one, kept byte for byte in CSV and
//! SQL into a pipe), with SmolLM2 and the trained stand-in exploring it.
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

/// A query whose text and rows hold [`common::HOSTILE_CELLS`]' control characters.
const HOSTILE_SQL: &str = "SELECT status, count(*) AS n FROM orders WHERE status <> 'x\x1b[2J' GROUP BY status";

/// [`ask`] sampling greedily: the copying model then copies [`HOSTILE_SQL`]'s escapes exactly.
fn ask_greedy(cache: &Path) -> Command {
    let mut c = ask(cache);
    c.args(["--temp", "0"]);
    c
}

/// Whether `out` holds a control sequence of [`common::HOSTILE_CELLS`] as it is (a terminal would
/// obey it).
fn raw_hostile(out: &str) -> bool {
    out.contains("\x1b]0;PWNED") || out.contains("\x1b[2J") || out.contains('\x07')
}

/// Into a pipe: CSV and SQL keep the database's and the model's bytes (scripts read them), the
/// table and the trace (for people) are escaped.
#[test]
fn csv_and_sql_into_a_pipe_keep_the_bytes_and_the_rest_is_escaped() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = common::hostile_db(dir.path());
    let run = |format: &str| -> Output {
        let mut c = ask_greedy(dir.path());
        let o = c.arg("--db").arg(&db).args(["--trace", "--format", format]).arg(submit(HOSTILE_SQL)).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o.stderr));
        assert!(!raw_hostile(&text(&o.stderr)), "{format}: the trace is escaped: {:?}", text(&o.stderr));
        o
    };
    let csv = text(&run("csv").stdout);
    assert!(common::HOSTILE_CELLS.iter().all(|c| csv.contains(c)), "{csv:?}");
    assert_eq!(text(&run("sql").stdout), format!("{HOSTILE_SQL}\n"));
    let table = text(&run("table").stdout);
    assert!(!table.contains('\x1b') && !table.contains('\x07'), "{table:?}");
    assert!(table.contains("open\\u{1b}]0;PWNED\\u{7}") && table.contains("'x\\u{1b}[2J'"), "{table}");
}

#[cfg(unix)]
mod terminal {
    use super::*;
    use rexpect::session::spawn_command;

    /// Seconds one step may take on a busy two-core machine.
    const STEP_MS: u64 = 300_000;

    /// Everything `cmd` writes on a pseudo-terminal (stdout and stderr), to its end.
    fn on_terminal(cmd: Command) -> String {
        let mut p = spawn_command(cmd, Some(STEP_MS)).unwrap();
        p.exp_eof().unwrap()
    }

    /// On a terminal no format lets the database's or the model's control characters through:
    /// the SQL, the rows, the trace (tool calls and results, the model's text) are escaped, and
    /// JSON escapes them itself.
    #[test]
    fn no_control_character_reaches_the_terminal_in_any_format() {
        let _g = common::one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let db = common::hostile_db(dir.path());
        for format in ["table", "csv", "sql", "json"] {
            let mut cmd = ask_greedy(dir.path());
            cmd.arg("--db").arg(&db).args(["--trace", "--format", format]).arg(submit(HOSTILE_SQL));
            let out = on_terminal(cmd);
            assert!(!out.contains('\x1b') && !out.contains('\x07'), "{format}: {out:?}");
            assert!(out.contains("PWNED"), "{format}: {out}");
        }
    }

    /// The review's case: the trained stand-in explores the database itself (its tool results
    /// quote the cells), with the trace on, on a terminal.
    #[test]
    fn the_standin_exploring_a_hostile_database_is_escaped() {
        let _g = common::one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let db = common::hostile_db(dir.path());
        let standin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqale"));
        cmd.env("XDG_CACHE_HOME", dir.path()).env("NO_COLOR", "1").args(["ask", "--model"]).arg(&standin);
        cmd.arg("--db").arg(&db).args(["--seed", "1", "--ctx", "4096", "--trace"]);
        cmd.arg("How many orders are there for each status?");
        let out = on_terminal(cmd);
        assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
        assert!(out.contains("\\u{1b}"), "the cells reach the trace, escaped: {out}");
        assert!(out.contains("ended_by: submit_sql"), "{out}");
    }

    /// A session escapes what it prints: the database's name and the answer. (The line editor
    /// draws with escape sequences of its own, so the check is for the hostile ones; and it reads
    /// ESC as a key, so a typed line cannot hold one.)
    #[test]
    fn a_session_escapes_the_database_name_and_the_answers() {
        let _g = common::one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let db = common::hostile_db(dir.path());
        let named = dir.path().join("esc\x1b]0;PWNED\x07.sqlite");
        std::fs::copy(&db, &named).unwrap();
        let mut cmd = ask_greedy(dir.path());
        cmd.arg("--db").arg(&named);
        let mut p = spawn_command(cmd, Some(STEP_MS)).unwrap();
        let banner = p.exp_string("/help lists the commands").unwrap();
        assert!(banner.contains("esc\\u{1b}]0;PWNED\\u{7}.sqlite") && !raw_hostile(&banner), "{banner:?}");
        p.exp_string(">>> ").unwrap();
        p.send_line(&submit(HOSTILE_SQL)).unwrap();
        let (answer, _) = p.exp_regex(r"ended_by: submit_sql[^\r\n]*\r?\n").unwrap();
        assert!(answer.contains("open\\u{1b}]0;PWNED\\u{7}") && !raw_hostile(&answer), "{answer:?}");
        p.exp_string(">>> ").unwrap();
        p.send_control('d').unwrap();
        let rest = p.exp_eof().unwrap();
        assert!(!raw_hostile(&rest), "{rest:?}");
    }

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
