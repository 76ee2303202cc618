//! `--vote K` on the real thing: answers executed read-only on the demo database (SQLite), K
//! SmolLM2 episodes batched in one context from the shared prompt snapshot, and `sqale ask
//! --vote` with the trained stand-in (tests/fixtures/standin) on real SQLite files: its answer
//! in every format, a vote without an answer, and the votes it refuses before loading the model.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use sqale::agent::Settings;
use sqale::engine::{EngineOptions, Model, ModelOptions};
use sqale::env::Environment;
use sqale::vote::{vote_answers, Tier};

#[test]
fn the_majority_by_result_set_wins_and_a_write_is_refused_inside_the_vote() {
    let db = common::demo_db();
    let before = common::sha256(&db);
    let mut env = Environment::open(&db).unwrap();
    let count = "SELECT count(*) FROM products";
    let answers = [
        Some("DELETE FROM products"),
        Some("SELECT 1"),
        Some(count),
        // The same result set written another way.
        Some("SELECT count(*) AS n FROM products WHERE 1 = 1"),
        None,
    ];
    let v = vote_answers(&mut env, &answers);
    assert_eq!(v.winner, Some(2), "{v:?}");
    assert_eq!(v.summary(), "2 of 5 agree");
    let write = &v.ballots[0];
    assert!(write.tier < Tier::Runs, "a write does not run inside a vote: {write:?}");
    assert!(write.error.is_some(), "{write:?}");
    assert_eq!(common::sha256(&db), before, "the database is unchanged");
    // A tie of two singletons that both return rows goes to the earliest.
    let v = vote_answers(&mut env, &[Some("SELECT 2"), Some(count)]);
    assert_eq!((v.winner, v.agree), (Some(0), 1));
}

#[test]
fn k_episodes_are_batched_with_a_seed_each_and_voted() {
    let _g = common::one_at_a_time();
    let model = Model::load(common::test_model(), &ModelOptions::default()).expect("load SmolLM2");
    let options = EngineOptions { ctx: 2048, ..EngineOptions::default() };
    let settings = Settings { max_episode_tokens: 900, seed: 11, ..Settings::default() };
    let db = common::demo_db();
    let question = "How many products are there?";
    let voted = sqale::vote::run(&model, options, &settings, 3, question, None, &db).unwrap();
    let (episodes, vote) = (&voted.episodes, &voted.vote);
    assert_eq!(episodes.len(), 3);
    assert_eq!(episodes.iter().map(|e| e.seed).collect::<Vec<_>>(), [11, 12, 13]);
    // Each sequence holds one episode's budget, not the whole --ctx.
    assert!(voted.ctx >= 900 && voted.ctx < 2048, "{} tokens a sequence", voted.ctx);
    assert_eq!(vote.of, 3);
    assert_eq!(vote.ballots.len(), 3);
    assert!(vote.agree <= 3 && vote.agree >= usize::from(vote.winner.is_some()));
    assert_eq!(vote.groups.iter().map(|g| g.episodes.len()).sum::<usize>(), 3);
    // The vote's first two episodes are the lone engine's episodes with the same seeds.
    let mut lone = sqale::agent::Agent::new(
        sqale::engine::Engine::new(&model, EngineOptions { ctx: 2048, ..EngineOptions::default() }).unwrap(),
        settings.clone(),
    );
    let texts = |e: &sqale::Episode| e.turns.iter().map(|t| t.completion.clone()).collect::<Vec<_>>();
    for (i, episode) in episodes.iter().take(2).enumerate() {
        lone.settings_mut().seed = 11 + i as u32;
        let alone = lone.run(question, &db).unwrap();
        if sqale::engine::batch_invariant() {
            assert_eq!(texts(episode), texts(&alone), "episode {i}");
        }
    }
    assert!(matches!(sqale::vote::check_size(0, 2048), Err(sqale::vote::VoteError::Zero)));
}

/// The trained stand-in, which answers with the tools (docs/stand-in.md).
fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf")
}

const QUESTION: &str = "How many orders are there for each status?";

/// `sqale ask --vote K` with `model`, seed 1, `ctx` tokens of context and `budget` tokens an
/// episode, its cache in `cache`.
fn vote_within(cache: &Path, model: &Path, k: usize, ctx: usize, budget: usize) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqale"));
    c.env("XDG_CACHE_HOME", cache).env("NO_COLOR", "1").arg("ask").arg("--model").arg(model);
    c.args(["--seed", "1", "--vote", &k.to_string()]);
    c.args(["--ctx", &ctx.to_string(), "--max-episode-tokens", &budget.to_string()]);
    c
}

/// [`vote_within`] with 4,096 tokens of context.
fn vote_cmd(cache: &Path, model: &Path, k: usize, budget: usize) -> Command {
    vote_within(cache, model, k, 4096, budget)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A run's stdout as JSON.
fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&o.stdout), text(&o.stderr)))
}

/// `ask --vote 3` answers as `ask` does: the rows in every format, the summary on stderr, and
/// `ask --json`'s fields with the vote; each sequence holds the episode's budget (2,048 tokens),
/// not --ctx (4,096).
#[test]
fn a_vote_prints_what_ask_prints_in_every_format() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = common::hostile_db(dir.path());
    let before = common::sha256(&db);
    let run = |args: &[&str]| -> Output {
        let o =
            vote_cmd(dir.path(), &standin(), 3, 2048).arg("--db").arg(&db).args(args).arg(QUESTION).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        o
    };
    let v = json(&run(&["--json"]));
    for field in ["model", "ctx", "temperature", "top_p", "top_k", "db", "episode", "rows", "vote", "episodes", "seed"]
    {
        assert!(v.get(field).is_some_and(|f| !f.is_null()), "{field} in {v:#}");
    }
    assert_eq!(v["model"], standin().display().to_string());
    assert_eq!(v["db"], db.display().to_string());
    assert_eq!((v["temperature"].as_f64(), v["top_k"].as_i64()), (Some(0.6), Some(20)));
    let ctx = v["ctx"].as_u64().unwrap();
    assert!((2048..4096).contains(&ctx), "each sequence holds the episode's budget: {ctx}");
    let winner = v["vote"]["winner"].as_u64().expect("a winner") as usize;
    assert_eq!(v["episodes"].as_array().unwrap().len(), 3);
    assert_eq!(v["episode"], v["episodes"][winner], "the answer is the winner's episode");
    assert!(v["vote"]["summary"].as_str().unwrap().ends_with("of 3 agree"), "{}", v["vote"]);
    assert_eq!(v["seed"], 1);
    let sql = v["episode"]["sql"].as_str().unwrap().to_string();
    let columns: Vec<&str> = v["rows"]["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let rows = v["rows"]["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{v:#}");
    // sql: the winner's query alone (into a pipe: as it is).
    assert_eq!(text(&run(&["--format", "sql"]).stdout), format!("{sql}\n"));
    // csv: the same rows under a header.
    let csv = text(&run(&["--format", "csv"]).stdout);
    assert_eq!(csv.lines().next(), Some(columns.join(",").as_str()), "{csv}");
    assert_eq!(csv.lines().count(), rows.len() + 1, "{csv}");
    // table: the SQL, the rows, their count; the winner's summary and the vote on stderr.
    let o = run(&["--format", "table"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(out.starts_with(&sqale::printable::escape_controls(&sql).into_owned()), "{out}");
    assert!(out.trim_end().ends_with(&format!("{} rows", rows.len())), "{out}");
    assert!(columns.iter().all(|c| out.contains(c)), "{out}");
    assert!(err.contains("ended_by: submit_sql"), "{err}");
    assert!(
        err.contains(&format!(
            "vote: {} · the answer is episode {}",
            v["vote"]["summary"].as_str().unwrap(),
            winner + 1
        )),
        "{err}"
    );
    assert_eq!(err.matches("  episode ").count(), 3, "{err}");
    assert_eq!(common::sha256(&db), before);
}

/// Episodes that end before they submit (their budget spent): no winner, no agreement, exit 1.
#[test]
fn a_vote_without_an_answer_says_so() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = common::hostile_db(dir.path());
    let run = |args: &[&str]| -> Output {
        let o = vote_cmd(dir.path(), &standin(), 3, NO_ANSWER_BUDGET)
            .arg("--db")
            .arg(&db)
            .args(args)
            .arg(QUESTION)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o.stderr));
        o
    };
    let o = run(&[]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(out, "(no answer: none of the 3 episodes' queries ran)\n");
    assert!(!err.contains("agree") && !out.contains("agree"), "{out}{err}");
    assert!(err.contains("vote: no answer") && err.contains("ended_by token_budget"), "{err}");
    let v = json(&run(&["--json"]));
    assert_eq!(v["vote"]["winner"], Value::Null, "{:#}", v["vote"]);
    assert_eq!(v["vote"]["agree"], 0);
    assert_eq!((&v["episode"], &v["rows"]), (&Value::Null, &Value::Null));
    assert_eq!(v["episodes"].as_array().unwrap().len(), 3);
    assert_eq!(text(&run(&["--format", "csv"]).stdout), "");
}

/// Tokens an episode of the stand-in may hold that end it before any query ran (its prompt takes
/// 458; a budget that ends it after a `run_query` would make that query its answer).
const NO_ANSWER_BUDGET: usize = 520;

/// SmolLM2 steered into submitting the same DELETE thrice: refused each time (the database is
/// unchanged), and a refused query is no answer: no winner, no agreement, exit 1.
#[test]
fn a_refused_write_submitted_thrice_is_no_answer() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = common::hostile_db(dir.path());
    let before = common::sha256(&db);
    let delete = serde_json::json!({"tool": "submit_sql", "args": {"sql": "DELETE FROM orders"}}).to_string();
    let o = vote_cmd(dir.path(), &common::test_model(), 3, 900)
        .args(["--prompt-from", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py")])
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .arg(&delete)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v = json(&o);
    let refused = v["vote"]["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["error"].as_str().is_some_and(|e| e.contains("read-only")))
        .count();
    assert!(refused >= 2, "the copying model submits the DELETE: {:#}", v["vote"]);
    assert_eq!((&v["vote"]["winner"], &v["vote"]["agree"]), (&Value::Null, &Value::from(0)), "{:#}", v["vote"]);
    assert!(!v["vote"]["summary"].as_str().unwrap().contains("agree"), "{}", v["vote"]["summary"]);
    assert_eq!(common::sha256(&db), before, "the database is never changed");
}

/// A vote whose sequences would not fit the machine's memory is refused before the model loads,
/// naming the memory and the fix; one over 256 sequences names that limit.
#[test]
fn votes_that_do_not_fit_are_refused_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::hostile_db(dir.path());
    // 256 sequences of 16 M tokens: terabytes of KV cache.
    let mut c = vote_within(dir.path(), &standin(), 256, 16_000_000, 16_000_000);
    let o = c.arg("--db").arg(&db).arg(QUESTION).output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for says in ["--vote 256", "GiB of memory", "is available", "smaller --vote", "--max-episode-tokens"] {
        assert!(err.contains(says), "{says:?} in {err}");
    }
    assert!(!dir.path().join("sqale").exists(), "nothing was decoded nor cached");
    let o = vote_cmd(dir.path(), &standin(), 257, 2048).arg("--db").arg(&db).arg(QUESTION).output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 256 sequences") && err.contains("--vote 256 or fewer"), "{err}");
    assert!(!err.contains("tokens"), "no token totals under their limit: {err}");
}
