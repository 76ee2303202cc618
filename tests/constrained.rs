//! Constrained calls on the real thing: SmolLM2 under llama.cpp's grammar sampler, built from the
//! tool catalogue (docs/constrained-calls.md), in `ask`'s agent and as conditions of one `eval`
//! (with a vote). Small budgets: a few hundred tokens an episode, thoughts of 200 characters.

mod common;

use sqale::agent::{Agent, Episode, Settings};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::protocol::{parse_completion, Calls, Parsed};
use sqale::speculate::Speculate;
use sqale::tools::Tool;

fn smollm2() -> Model {
    Model::load(common::test_model(), &ModelOptions::default()).expect("load SmolLM2")
}

fn episode(model: &Model, calls: Calls, speculate: Speculate, temperature: f32, seed: u32) -> Episode {
    let o = EngineOptions { ctx: 4096, speculate, temperature, ..EngineOptions::default() };
    let settings = Settings { max_episode_tokens: 800, seed, calls, thought_chars: 200, ..Settings::default() };
    let mut agent = Agent::new(Engine::new(model, o).unwrap(), settings);
    agent.run("How many products are there?", common::demo_db()).unwrap()
}

/// Every turn that ended by itself (not cut by the budget) parses into calls alone, each naming a
/// catalogue tool with only that tool's keys; the final-answer turn is one `submit_sql`.
fn assert_turns_parse(ep: &Episode) -> usize {
    let mut calls = 0;
    for turn in ep.turns.iter().filter(|t| t.finish == sqale::generate::Finish::Stop) {
        let parsed = parse_completion(&turn.completion);
        assert!(!parsed.items.is_empty(), "a constrained turn ends only after a call: {:?}", turn.completion);
        for item in &parsed.items {
            let Parsed::Call(call) = item else { panic!("unreadable call in {:?}: {item:?}", turn.completion) };
            let tool = Tool::from_name(&call.tool).unwrap_or_else(|| panic!("not a catalogue tool: {}", call.tool));
            let keys = call.args.as_object().expect("args are an object");
            for key in keys.keys() {
                assert!(tool.arg(key).is_some(), "{} takes no {key:?}", call.tool);
            }
            if turn.final_turn {
                assert_eq!(tool, Tool::SubmitSql, "the final answer is a submit_sql call");
            }
            calls += 1;
        }
    }
    calls
}

#[test]
fn constrained_turns_parse_into_catalogue_calls() {
    let _g = common::one_at_a_time();
    let model = smollm2();
    let mut stopped = 0;
    let mut calls = 0;
    for seed in [3, 4] {
        let ep = episode(&model, Calls::Constrained, Speculate::Off, 0.6, seed);
        stopped += ep.turns.iter().filter(|t| t.finish == sqale::generate::Finish::Stop).count();
        calls += assert_turns_parse(&ep);
        assert_eq!(calls, ep.tool_calls.max(calls), "every call parsed is one the agent ran");
    }
    // Free, the same model calls nothing (docs/constrained-calls.md, "Measured"): the grammar
    // is what makes it call.
    assert!(stopped >= 2 && calls >= 2, "constrained turns ended with calls ({stopped} turns, {calls} calls)");
}

#[test]
fn constrained_episodes_are_identical_with_drafting_on_and_off() {
    let _g = common::one_at_a_time();
    let model = smollm2();
    // Sampled where the kernels are batch-invariant (then any token's logits are the same in a
    // verify batch), greedy elsewhere (docs/speculative-decoding.md).
    let temperature = if sqale::engine::batch_invariant() { 0.6 } else { 0.0 };
    let plain = episode(&model, Calls::Constrained, Speculate::Off, temperature, 5);
    let fast = episode(&model, Calls::Constrained, Speculate::Lookup, temperature, 5);
    let turns = |ep: &Episode| ep.turns.iter().map(|t| (t.completion.clone(), t.tokens)).collect::<Vec<_>>();
    assert_eq!(turns(&fast), turns(&plain));
    assert_eq!(fast.tokens.context_tokens, plain.tokens.context_tokens);
    assert!(plain.tokens.speculation.is_empty());
    assert!(fast.tokens.speculation.lookup.steps > 0, "lookup drafted: {:?}", fast.tokens.speculation);
}

/// `eval --calls free,constrained --vote 2`: four entries from one run, the question once per
/// entry, the votes beside their first episodes, paired in the summary.
#[test]
fn eval_plays_each_calls_condition_and_the_vote_paired() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.jsonl");
    let line = r#"{"id": "q1", "db": "demo", "question": "How many products are there?", "gold_sql": "SELECT count(*) FROM products"}"#;
    std::fs::write(&manifest, format!("{line}\n")).unwrap();
    let out = dir.path().join("out");
    let model = common::test_model();
    let args = [
        "eval",
        "--bench",
        manifest.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--calls",
        "free,constrained",
        "--max-thought-chars",
        "120",
        "--vote",
        "2",
        "--max-episode-tokens",
        "1000",
        "--json",
        "-o",
        out.to_str().unwrap(),
    ];
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let name = model.file_name().unwrap().to_str().unwrap();
    let records: Vec<serde_json::Value> = std::fs::read_to_string(out.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let labels = [
        name.to_string(),
        format!("{name} +vote2"),
        format!("{name} +constrained"),
        format!("{name} +constrained +vote2"),
    ];
    for label in &labels {
        let mine: Vec<&serde_json::Value> = records.iter().filter(|r| r["model"] == label.as_str()).collect();
        assert_eq!(mine.len(), 1, "{label}: each question once");
        for r in &mine {
            let voted = label.ends_with("+vote2");
            assert_eq!(r["vote"].is_object(), voted, "{label}: {r}");
            if voted {
                assert_eq!(r["vote"]["of"], 2);
                let first = records
                    .iter()
                    .find(|f| f["model"] == label.trim_end_matches(" +vote2") && f["id"] == r["id"])
                    .unwrap();
                assert_eq!(r["vote"]["answers"][0], first["sql"], "episode 0 of the vote is the first episode");
                assert!(
                    r["generated_tokens"].as_u64() > first["generated_tokens"].as_u64(),
                    "a vote counts every episode"
                );
            }
        }
    }
    // Under the constraint the episodes call tools; free, SmolLM2 calls none.
    let calls = |label: &str| -> u64 {
        records.iter().filter(|r| r["model"] == label).map(|r| r["tool_calls"].as_u64().unwrap()).sum()
    };
    assert!(calls(&labels[2]) > 0, "constrained episodes called tools");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let models: Vec<&str> =
        summary["models"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
    for label in &labels {
        assert!(models.contains(&label.as_str()), "{label} in {models:?}");
    }
    let pairs: Vec<(String, String)> = summary["paired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["a"].as_str().unwrap().to_string(), p["b"].as_str().unwrap().to_string()))
        .collect();
    assert!(
        pairs.iter().any(|(a, b)| (a, b) == (&labels[0], &labels[2]) || (a, b) == (&labels[2], &labels[0])),
        "free and constrained paired: {pairs:?}"
    );
    assert!(
        pairs.iter().any(|(a, b)| a == &labels[0] && b == &labels[1]),
        "the vote paired with its first episodes: {pairs:?}"
    );
    // --vote 0 and a vote on servers are refused with the flag that fixes them.
    let mut zero = args.to_vec();
    assert_eq!(zero[9], "--vote");
    zero[10] = "0";
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sqale")).args(&zero).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--vote 1 or more"), "{err}");
}
