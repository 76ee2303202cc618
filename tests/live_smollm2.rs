//! Live tests on the real thing: llama.cpp in-process with SmolLM2-135M-Instruct (ChatML, like
//! Qwen), real SQLite files. The model is fetched by `.ci/fetch-models`.
//!
//! Live tests take `common::one_at_a_time` so that they run one at a time: they each use every
//! core. The lone and the batched engine playing the same episode is in `speculation.rs`.

mod common;

use std::path::Path;

use sqale::agent::{Agent, EndedBy, Episode, Settings};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::prompt::Prompt;

fn model() -> Model {
    Model::load(common::test_model(), &ModelOptions::default()).expect("load SmolLM2")
}

fn options() -> EngineOptions {
    EngineOptions { ctx: 4096, ..EngineOptions::default() }
}

fn check_episode(ep: &Episode, budget: usize) {
    assert!(ep.tool_turns <= 6, "{} tool turns", ep.tool_turns);
    assert!(ep.turns.len() <= 7);
    assert!(ep.tokens.context_tokens <= budget, "{:?}", ep.tokens);
    // Each token of the conversation was decoded exactly once, or came from the prefix snapshot.
    assert_eq!(ep.tokens.decoded_tokens + ep.tokens.reused_tokens, ep.tokens.context_tokens);
    match ep.ended_by {
        EndedBy::SubmitSql | EndedBy::FinalTurn | EndedBy::FinalAnswerFailed => assert!(ep.sql.is_some()),
        EndedBy::FallbackToLastWorkingQuery => assert!(ep.sql.is_some()),
        EndedBy::NoAnswer => assert!(ep.sql.is_none()),
        EndedBy::TokenBudget | EndedBy::ContextFull => {}
    }
    let last = ep.turns.last().expect("at least one turn");
    if ep.ended_by == EndedBy::TokenBudget {
        assert!(ep.tokens.context_tokens + 300 >= budget || last.finish == sqale::generate::Finish::Length);
    }
}

fn live_episodes_over(db_dir: &Path, db: &Path, question: &str) {
    let before = common::sha256(db);
    let listing = common::dir_listing(db_dir);
    let model = model();
    let engine = Engine::new(&model, options()).unwrap();
    // About 500 generated tokens over several turns: enough for the snapshot, the seed and the
    // budget checks below (a longer budget only rambles on).
    let budget = 1000;
    let settings = Settings { max_episode_tokens: budget, seed: 7, ..Settings::default() };
    let mut agent = Agent::new(engine, settings);
    let first = agent.run(question, db).unwrap();
    check_episode(&first, budget);
    assert_eq!(first.tokens.reused_tokens, 0, "the first episode decodes the system prompt");
    let second = agent.run(question, db).unwrap();
    check_episode(&second, budget);
    let prefix_tokens = model.tokenize_markup(&Prompt::default().shared_prefix(), true).len();
    assert_eq!(second.tokens.reused_tokens, prefix_tokens, "the second episode reuses the system prompt");
    // Same seed, same prompt: the same episode, token for token, whether or not the prefix came
    // from the snapshot.
    assert_eq!(
        first.turns.iter().map(|t| &t.completion).collect::<Vec<_>>(),
        second.turns.iter().map(|t| &t.completion).collect::<Vec<_>>()
    );
    assert_eq!(first.ended_by, second.ended_by);
    assert_eq!(common::sha256(db), before, "the database changed");
    assert_eq!(common::dir_listing(db_dir), listing, "a file appeared next to the database");
}

#[test]
fn live_episodes_over_the_demo_database() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &db).unwrap();
    live_episodes_over(dir.path(), &db, "Which supplier shipped the most back-ordered items last quarter?");
}

#[test]
fn live_episodes_over_a_second_database() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = common::library_db(dir.path());
    live_episodes_over(dir.path(), &db, "Which member borrowed the most books?");
}

/// The same sequence decoded in one batch: equal up to the rounding of a different kernel path.
/// Measured on SmolLM2 Q4_1: max |Δlogit| 0.43–0.63 at a logit range of about 40; the bound
/// below is twice that, and the most likely next token must agree.
#[test]
fn incremental_decoding_equals_decoding_from_scratch() {
    let _g = common::one_at_a_time();
    common::check_incremental_equals_scratch(&model(), options());
}

#[test]
fn incremental_decoding_matches_a_single_batch_up_to_kernel_rounding() {
    let _g = common::one_at_a_time();
    let model = model();
    let mut inc = Engine::new(&model, options()).unwrap();
    common::incremental_conversation(&mut inc, 5);
    let mut fresh = Engine::new(&model, EngineOptions { batch: 4096, ..options() }).unwrap();
    fresh.decode(inc.tokens()).unwrap();
    let (a, b) = (inc.logits(), fresh.logits());
    let diff = common::max_abs_diff(a, b);
    assert!(diff <= 0.03 * common::range(b), "max |Δlogit| {diff} over range {}", common::range(b));
    assert_eq!(common::argmax(a), common::argmax(b));
}

#[test]
fn ask_json_reports_the_whole_episode() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &db).unwrap();
    let before = common::sha256(&db);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["ask", "--json", "--seed", "11", "--ctx", "4096", "--max-episode-tokens", "900", "--model"])
        .arg(common::test_model())
        .arg("--db")
        .arg(&db)
        .arg("How many customers placed more than three orders in 2024?")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    // Exit 0 when the answer has rows to show, 1 when there is none (SmolLM2 rarely answers).
    let code = if v["rows"].is_null() { 1 } else { 0 };
    assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
    let ep = &v["episode"];
    assert_eq!(ep["question"], "How many customers placed more than three orders in 2024?");
    assert!(ep["ended_by"].is_string());
    assert_eq!(ep["seed"], 11);
    assert_eq!(ep["prompt_hash"], Prompt::default().hash());
    assert!(ep["turns"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(ep["tokens"]["context_tokens"].as_u64().unwrap() <= 900);
    assert!(ep["seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(common::sha256(&db), before);
}

/// A budget smaller than the prompt: a clear error naming the fix, each cause said once (the
/// evaluation's error says its cause and also hands it on as its source).
#[test]
fn a_budget_below_the_prompt_is_one_clear_error() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let ask = ["ask".to_string(), "How many orders?".into()];
    let eval = ["eval", "--bench", bench.to_str().unwrap(), "--limit", "1", "-o", dir.path().to_str().unwrap()]
        .map(String::from);
    for command in [&ask[..], &eval[..]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
            .args(command)
            .args(["--max-episode-tokens", "300", "--model"])
            .arg(common::test_model())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches("the prompt alone needs").count(), 1, "{command:?}: {err}");
        assert!(err.contains("more than the episode budget of 300"), "{command:?}: {err}");
    }
}

/// A damaged model file is refused by sqale's own GGUF reader with the byte that is wrong,
/// before llama.cpp (which aborts on some malformed files) sees it.
#[test]
fn a_damaged_model_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(common::test_model()).unwrap();
    let truncated = dir.path().join("truncated.gguf");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let text = dir.path().join("notes.gguf");
    std::fs::write(&text, "not a model\n").unwrap();
    for (path, expect) in [(&truncated, "not a valid GGUF file"), (&text, "not a valid GGUF file")] {
        let err = Model::load(path, &ModelOptions::default()).err().expect("refused");
        assert!(matches!(err, sqale::engine::EngineError::NotGguf(_)), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(expect) && msg.contains(&path.display().to_string()), "{msg}");
    }
}
