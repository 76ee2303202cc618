//! The hybrid recurrent case SmolLM2 cannot cover: a tiny `qwen35` GGUF (Gated DeltaNet layers
//! plus full attention) converted by sqale from the committed fixture, quantised by llama.cpp,
//! and run by the engine and the agent.

mod common;

use std::path::{Path, PathBuf};

use sqale::agent::{Agent, Settings};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::speculate::Speculate;

fn convert(ty: &str, dir: &Path) -> PathBuf {
    common::convert_tiny("untied", ty, dir)
}

/// Plain decoding: the fixture has an MTP head, and with the head drafting (what `auto` does on
/// batch-invariant kernels) the engine keeps no prefix snapshot, which is what these tests check.
fn options() -> EngineOptions {
    EngineOptions { ctx: 2048, threads: Some(2), speculate: Speculate::Off, ..EngineOptions::default() }
}

#[test]
fn cache_correctness_on_a_hybrid_recurrent_model() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(convert("f16", dir.path()), &ModelOptions::default()).unwrap();
    assert!(model.is_recurrent_or_hybrid(), "qwen35 is hybrid");
    common::check_incremental_equals_scratch(&model, options());
}

#[test]
fn quantised_outputs_load_and_run_an_agent_episode() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &db).unwrap();
    let before = common::sha256(&db);
    let mut sizes = Vec::new();
    for ty in ["q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "iq4_nl"] {
        let gguf = convert(ty, dir.path());
        sizes.push((ty, std::fs::metadata(&gguf).unwrap().len()));
        let model = Model::load(&gguf, &ModelOptions::default()).unwrap();
        let engine = Engine::new(&model, options()).unwrap();
        let budget = 1400;
        let mut agent = Agent::new(engine, Settings { max_episode_tokens: budget, seed: 1, ..Settings::default() });
        let ep = agent.run("How many customers placed more than three orders in 2024?", &db).unwrap();
        assert!(ep.tokens.context_tokens <= budget);
        assert_eq!(ep.tokens.decoded_tokens + ep.tokens.reused_tokens, ep.tokens.context_tokens);
        assert!(!ep.turns.is_empty(), "{ty}: no turn generated");
        eprintln!("{ty}: {} bytes, ended_by {}, {} turns", sizes.last().unwrap().1, ep.ended_by, ep.turns.len());
    }
    // Each quantised file is a real, distinct encoding (at least some tensors change type).
    let distinct: std::collections::HashSet<u64> = sizes.iter().map(|s| s.1).collect();
    assert!(distinct.len() >= 4, "{sizes:?}");
    assert_eq!(common::sha256(&db), before);
}
