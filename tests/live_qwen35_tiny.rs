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

/// A mark taken deep in a sequence brings back its tokens and its whole state, the recurrent
/// layers' included (which can't be cut back to a position): what `sqale bench --depth` decodes
/// from after the prefill. The same tokens after it give bit for bit the same logits.
#[test]
fn rewinding_to_a_mark_restores_the_recurrent_state_exactly() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(convert("f16", dir.path()), &ModelOptions::default()).unwrap();
    let mut e = Engine::new(&model, options()).unwrap();
    let n = model.llama().n_vocab();
    let tokens: Vec<_> = (0..300).map(|i| llama_cpp_2::token::LlamaToken((i * 37 + 11) % n)).collect();
    e.decode(&tokens[..256]).unwrap();
    let mark = e.mark().unwrap().expect("no MTP head drafting: the state can be copied");
    assert_eq!(mark.len(), 256);
    e.decode(&tokens[256..280]).unwrap();
    let first = e.logits().to_vec();
    e.decode(&tokens[280..]).unwrap();
    e.rewind(&mark).unwrap();
    assert_eq!(e.tokens(), &tokens[..256]);
    assert!(e.logits().is_empty(), "no token's logits are current after a rewind");
    e.decode(&tokens[256..280]).unwrap();
    assert_eq!(e.logits(), &first[..], "the same tokens after the mark, the same logits");

    assert!(model.has_mtp_head(), "the fixture carries an MTP head");
    let mtp = Engine::new(&model, EngineOptions { speculate: Speculate::Mtp, ..options() }).unwrap();
    assert!(mtp.mark().unwrap().is_none(), "the MTP head's own cache is not in a copy");
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
