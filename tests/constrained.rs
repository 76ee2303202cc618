//! Constrained calls on the real thing: SmolLM2 under llama.cpp's grammar sampler, built from the
//! tool catalogue (docs/constrained-calls.md). Small budgets: a few hundred tokens an episode.

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
    let settings = Settings { max_episode_tokens: 700, seed, calls, ..Settings::default() };
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
#[ignore = "fails today: SmolLM2 never closes its thought nor writes {\"tool\", so no constrained turn ends with a call (docs/constrained-calls.md, Measured)"]
fn constrained_turns_parse_into_catalogue_calls() {
    let _g = common::one_at_a_time();
    let model = smollm2();
    let mut stopped = 0;
    let mut calls = 0;
    for (calls_mode, seed) in [(Calls::Constrained, 3), (Calls::Constrained, 4), (Calls::Triggered, 3)] {
        let ep = episode(&model, calls_mode, Speculate::Off, 0.6, seed);
        stopped += ep.turns.iter().filter(|t| t.finish == sqale::generate::Finish::Stop).count();
        calls += assert_turns_parse(&ep);
    }
    assert!(stopped > 0 && calls > 0, "some constrained turn ended with a call ({stopped} turns, {calls} calls)");
}

#[test]
#[ignore = "unverified and slow: the whole-turn grammar decodes about 4 tokens/s on 2 cores (docs/constrained-calls.md); run with --ignored"]
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
