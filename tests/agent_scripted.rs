//! The agent's state machine, driven through every path by a scripted generator (a test double
//! that replays given completions), over the real demo database.

mod common;

use sqale::agent::{Agent, EndedBy, Episode, Settings, SqlSource};
use sqale::generate::{Generator, ScriptedGenerator};

fn run(script: &[&str]) -> (Episode, ScriptedGenerator) {
    run_with(script, Settings::default(), ScriptedGenerator::new(script.iter().copied()))
}

fn run_with(_script: &[&str], settings: Settings, gen: ScriptedGenerator) -> (Episode, ScriptedGenerator) {
    let db = common::demo_db();
    let before = common::sha256(&db);
    let mut agent = Agent::new(gen, settings);
    let episode = agent.run("How many customers placed more than three orders in 2024?", &db).expect("episode runs");
    assert_eq!(common::sha256(&db), before, "the database changed");
    let gen = agent.generator().clone();
    (episode, gen)
}

const LIST: &str = "<think>\nlook around\n</think>\n{\"tool\": \"list_tables\", \"args\": {}}";
const BAD_QUERY: &str = "</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT nope FROM orders\"}}";
const GOOD_QUERY: &str = "</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT count(*) FROM customers\"}}";
const ANSWER: &str = "SELECT COUNT(*) FROM (SELECT customer_id FROM orders WHERE order_date LIKE '2024%' GROUP BY customer_id HAVING COUNT(*) > 3)";

fn submit(sql: &str) -> String {
    format!("<think>done</think>\n{}", serde_json::json!({"tool": "submit_sql", "args": {"sql": sql}}))
}

#[test]
fn submit_sql_in_the_first_turn_ends_the_episode() {
    let s = submit(ANSWER);
    let (ep, gen) = run(&[&s, LIST]);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    assert_eq!(ep.sql.as_deref(), Some(ANSWER));
    assert_eq!(ep.sql_source, Some(SqlSource::Submit));
    assert_eq!(ep.tool_turns, 1);
    assert_eq!(ep.turns.len(), 1);
    assert!(ep.turns[0].calls[0].ok, "the submitted query runs: {}", ep.turns[0].calls[0].result);
    assert_eq!(gen.remaining(), 1, "nothing generated after submit_sql");
    // The conversation is ChatML with thinking opened by the runtime.
    assert!(gen.transcript().starts_with("<|im_start|>system\n"));
    assert!(gen.transcript().contains("<|im_end|>\n<|im_start|>user\nThe database schema is not shown"));
    assert!(gen.transcript().contains("<|im_start|>assistant\n<think>\n<think>done</think>"));
}

#[test]
fn several_calls_in_one_turn_run_in_order_and_return_together() {
    let turn = "<think>x</think>\n{\"tool\": \"list_tables\"}\n{\"tool\": \"describe_table\", \"args\": {\"table_name\": \"orders\"}}\n{\"tool\": \"join_path\", \"args\": {\"table_a\": \"customers\", \"table_b\": \"orders\"}}";
    let s = submit(ANSWER);
    let (ep, gen) = run(&[turn, &s]);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    let calls = &ep.turns[0].calls;
    assert_eq!(
        calls.iter().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
        ["list_tables", "describe_table", "join_path"]
    );
    assert!(calls.iter().all(|c| c.ok));
    let t = gen.transcript();
    let i1 = t.find("[1] list_tables()").expect("first result");
    let i2 = t.find("[2] describe_table(orders)").expect("second result");
    let i3 = t.find("[3] join_path(customers, orders)").expect("third result");
    assert!(i1 < i2 && i2 < i3);
    assert!(t.contains("customers → orders"));
    assert!(t.contains("[5 tool turns left before you must answer]"));
    assert_eq!(ep.tool_calls, 4);
}

#[test]
fn malformed_unknown_and_bad_calls_are_results_not_crashes() {
    let turn = "</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT 1\"} {\"tool\": \"teleport\"} {\"tool\": \"describe_table\", \"args\": {\"table\": \"orders\"}}";
    let s = submit(ANSWER);
    let (ep, gen) = run(&[turn, "no json at all", &s]);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    let calls = &ep.turns[0].calls;
    assert!(calls.iter().all(|c| !c.ok), "{calls:#?}");
    let t = gen.transcript();
    assert!(t.contains("could not read tool call"), "malformed JSON reported");
    assert!(t.contains("unknown tool \\\"teleport\\\"") || t.contains("unknown tool \"teleport\""));
    assert!(t.contains("describe_table needs args.table_name"));
    // A turn without any call is a tool turn with an error result.
    assert!(t.contains("Error: no tool call found"));
    assert!(t.contains("[4 tool turns left before you must answer]"));
    assert_eq!(ep.tool_turns, 3);
}

#[test]
fn six_tool_turns_then_the_final_answer() {
    let final_answer = submit(ANSWER);
    let script = [LIST, LIST, LIST, LIST, LIST, GOOD_QUERY, final_answer.as_str(), LIST];
    let (ep, gen) = run(&script);
    assert_eq!(ep.tool_turns, 6);
    assert_eq!(ep.turns.len(), 7);
    assert!(ep.turns[6].final_turn);
    assert_eq!(ep.ended_by, EndedBy::FinalTurn);
    assert_eq!(ep.sql.as_deref(), Some(ANSWER));
    assert_eq!(ep.sql_source, Some(SqlSource::FinalAnswer));
    assert_eq!(gen.remaining(), 1);
    let t = gen.transcript();
    for left in (1..=5).rev() {
        let unit = if left == 1 { "turn" } else { "turns" };
        assert!(t.contains(&format!("[{left} tool {unit} left before you must answer]")), "budget {left}");
    }
    assert_eq!(t.matches("[Exploration limit reached] You have used all your tool turns.").count(), 1);
    assert!(!t.contains("[0 tool turns left"));
}

#[test]
fn four_failed_queries_in_a_row_end_exploration() {
    let bare = BAD_QUERY.trim_start_matches("</think>");
    let three_bad = format!("{BAD_QUERY}\n{bare}\n{bare}");
    let final_answer = submit(ANSWER);
    // A success resets the count; list_tables between failures does not.
    let script = [BAD_QUERY, GOOD_QUERY, BAD_QUERY, LIST, three_bad.as_str(), final_answer.as_str()];
    let (ep, gen) = run(&script);
    assert_eq!(ep.tool_turns, 5);
    assert_eq!(ep.ended_by, EndedBy::FinalTurn);
    assert!(gen.transcript().contains("[Exploration limit reached] 4 queries in a row have failed."));
}

#[test]
fn the_exploration_limit_message_states_the_failed_query_limit_in_force() {
    // The agent enforces `Settings::max_failed_queries`; the model must be told that number,
    // not the protocol's default of four.
    for limit in [2usize, 3] {
        let mut script: Vec<String> = vec![BAD_QUERY.to_string(); limit];
        script.push(submit(ANSWER));
        let refs: Vec<&str> = script.iter().map(String::as_str).collect();
        let settings = Settings { max_failed_queries: limit, ..Settings::default() };
        let (ep, gen) = run_with(&refs, settings, ScriptedGenerator::new(refs.iter().copied()));
        assert_eq!(ep.tool_turns, limit, "exploration ends after {limit} failed queries");
        assert!(ep.turns.last().is_some_and(|t| t.final_turn));
        let said = format!("[Exploration limit reached] {limit} queries in a row have failed.");
        assert!(gen.transcript().contains(&said), "the model is told the limit in force ({limit})");
        assert!(!gen.transcript().contains("[Exploration limit reached] 4 queries"));
    }
}

#[test]
fn empty_final_answer_falls_back_to_the_last_working_query() {
    let script = [GOOD_QUERY, LIST, LIST, BAD_QUERY, LIST, LIST, "<think>out of ideas</think>"];
    let (ep, _) = run(&script);
    assert_eq!(ep.ended_by, EndedBy::FallbackToLastWorkingQuery);
    assert_eq!(ep.sql.as_deref(), Some("SELECT count(*) FROM customers"));
    assert_eq!(ep.sql_source, Some(SqlSource::LastWorkingQuery));
}

#[test]
fn final_answer_that_does_not_run_falls_back() {
    let broken = submit("SELECT count(*) FROM customer");
    let script = [GOOD_QUERY, LIST, LIST, LIST, LIST, LIST, broken.as_str()];
    let (ep, _) = run(&script);
    assert_eq!(ep.ended_by, EndedBy::FallbackToLastWorkingQuery);
    assert_eq!(ep.sql.as_deref(), Some("SELECT count(*) FROM customers"));
}

#[test]
fn without_a_working_query_the_failed_or_missing_answer_is_reported() {
    let broken = submit("SELECT count(*) FROM customer");
    let (ep, _) = run(&[LIST, LIST, LIST, LIST, LIST, LIST, broken.as_str()]);
    assert_eq!(ep.ended_by, EndedBy::FinalAnswerFailed);
    assert_eq!(ep.sql.as_deref(), Some("SELECT count(*) FROM customer"));

    let (ep, _) = run(&[LIST, LIST, LIST, LIST, LIST, LIST, "</think>I cannot answer."]);
    assert_eq!(ep.ended_by, EndedBy::NoAnswer);
    assert_eq!(ep.sql, None);

    // A plain SQL final answer (no JSON) is accepted.
    let (ep, _) = run(&[LIST, LIST, LIST, LIST, LIST, LIST, "</think>\n```sql\nSELECT 42\n```"]);
    assert_eq!(ep.ended_by, EndedBy::FinalTurn);
    assert_eq!(ep.sql.as_deref(), Some("SELECT 42"));
}

#[test]
fn the_token_budget_ends_the_episode_cleanly() {
    // The scripted generator counts words as tokens; the prompt is a few hundred.
    let long = format!("<think>{}</think>", "word ".repeat(5000));
    let script = [GOOD_QUERY, long.as_str()];
    let settings = Settings { max_episode_tokens: 1500, ..Settings::default() };
    let (ep, gen) = run_with(&script, settings, ScriptedGenerator::new(script));
    assert_eq!(ep.ended_by, EndedBy::TokenBudget);
    assert_eq!(ep.sql.as_deref(), Some("SELECT count(*) FROM customers"), "best answer so far");
    assert!(gen.counters().context_tokens <= 1500, "{:?}", gen.counters());
}

#[test]
fn a_full_context_ends_the_episode_cleanly() {
    let long = format!("<think>{}</think>", "word ".repeat(5000));
    let script = [long.as_str()];
    let gen = ScriptedGenerator::new(script).with_context_size(1000);
    let (ep, gen) = run_with(&script, Settings::default(), gen);
    assert_eq!(ep.ended_by, EndedBy::ContextFull);
    assert_eq!(ep.sql, None);
    assert!(gen.counters().context_tokens <= 1000);
}

#[test]
fn evidence_and_a_prompt_from_the_reference_file_are_used_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("sqale_agent.py");
    std::fs::write(
        &py,
        "import json\nSYSTEM_PROMPT = (\n    \"You explore databases.\\n\"\n    \"Tools: list_tables, ...\"\n)\nUSER_TEMPLATE = \"\"\"Schema hidden.\nQ: {question}\nHint: {evidence}\"\"\"\n\ndef main():\n    pass\n",
    )
    .unwrap();
    let prompt = sqale::prompt::Prompt::from_python_file(&py).unwrap();
    assert_eq!(prompt.system, "You explore databases.\nTools: list_tables, ...");
    let settings = Settings { prompt: prompt.clone(), ..Settings::default() };
    let s = submit(ANSWER);
    let mut agent = Agent::new(ScriptedGenerator::new([s.as_str()]), settings);
    let ep = agent.run_with("Who?", Some("in 2024"), &common::demo_db(), &mut |_| {}).unwrap();
    assert_eq!(ep.prompt_hash, prompt.hash());
    assert_ne!(ep.prompt_hash, sqale::prompt::Prompt::default().hash());
    assert!(agent.generator().transcript().starts_with(
        "<|im_start|>system\nYou explore databases.\nTools: list_tables, ...<|im_end|>\n<|im_start|>user\nSchema hidden.\nQ: Who?\nHint: in 2024<|im_end|>\n<|im_start|>assistant\n<think>\n"
    ));
}
