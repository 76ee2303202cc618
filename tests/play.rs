//! `sqale play`: scripted completions through the real agent, prompt and tools, on a real SQLite
//! file; the conversation comes out as the runtime builds it.

use std::process::Command;

use serde_json::Value;

fn sqale(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap()
}

const LIST: &str = "I should see the tables first.\n</think>\n\n{\"tool\": \"list_tables\", \"args\": {}}";
const SUBMIT: &str =
    "There is a products table.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT COUNT(*) FROM products\"}}";

#[test]
fn a_script_plays_through_the_real_tools_and_extra_completions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let demo = sqale::demo::demo_db_path().unwrap();
    let before = std::fs::read(&demo).unwrap();
    let line = |completions: &[&str]| {
        serde_json::json!({"id": "p1", "db": "demo", "question": "How many products are there?", "completions": completions})
            .to_string()
    };
    let script = dir.path().join("script.jsonl");
    std::fs::write(&script, format!("{}\n", line(&[LIST, SUBMIT]))).unwrap();
    let out = dir.path().join("played.jsonl");
    let o = sqale(&["play", script.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let played: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    assert_eq!(played["ended_by"], "submit_sql", "{played}");
    assert_eq!(played["sql"], "SELECT COUNT(*) FROM products");
    assert_eq!(played["tool_calls"], 2);
    let segments = played["segments"].as_array().unwrap();
    let generated: Vec<&str> = segments.iter().filter(|s| s[1] == true).map(|s| s[0].as_str().unwrap()).collect();
    assert_eq!(generated, [LIST, SUBMIT]);
    let text: String = segments.iter().map(|s| s[0].as_str().unwrap()).collect();
    assert!(text.starts_with("<|im_start|>system\nYou are a text-to-SQL agent."), "{text}");
    // The real tool's output and the budget line, as the model reads them.
    assert!(text.contains("Tool result:\n10 tables: suppliers, categories, products"), "{text}");
    assert!(
        text.contains("[5 tool turns left before you must answer]<|im_end|>\n<|im_start|>assistant\n<think>\n"),
        "{text}"
    );
    assert_eq!(std::fs::read(&demo).unwrap(), before, "the database changed");

    // A completion after the episode's end is refused, and no output file is left.
    std::fs::write(&script, format!("{}\n", line(&[LIST, SUBMIT, LIST]))).unwrap();
    let out2 = dir.path().join("second.jsonl");
    let o = sqale(&["play", script.to_str().unwrap(), "--out", out2.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("after 2 of its 3 completions"), "{err}");
    assert!(!out2.exists());
}
