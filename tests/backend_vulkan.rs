//! The Vulkan backend on a real device: Mesa's lavapipe in CI (a CPU implementation of Vulkan,
//! about 5 tokens/s of prefill for SmolLM2, so everything here is short). Built and run only with
//! `--features vulkan`: `bash .ci/vulkan` installs the driver and shader tools and runs it.
#![cfg(feature = "vulkan")]

mod common;

use sqale::agent::{Agent, Settings};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::prompt::Prompt;

fn logits_run(model: &Model, tokens: &[llama_cpp_2::token::LlamaToken], split: usize) -> Vec<Vec<f32>> {
    let options = EngineOptions { ctx: 512, batch: 64, temperature: 0.0, ..Default::default() };
    let mut e = Engine::new(model, options).unwrap();
    e.decode(&tokens[..split]).unwrap();
    let mut out = vec![e.logits().to_vec()];
    for t in &tokens[split..] {
        e.decode(std::slice::from_ref(t)).unwrap();
        out.push(e.logits().to_vec());
    }
    out
}

/// One test, so that the environment is set before llama.cpp starts its backends.
#[test]
fn vulkan_decodes_like_the_cpu_and_runs_an_episode() {
    if std::env::var_os("GGML_VK_VISIBLE_DEVICES").is_none() {
        // llama.cpp skips CPU-type Vulkan devices (lavapipe) unless they are listed.
        std::env::set_var("GGML_VK_VISIBLE_DEVICES", "0");
    }
    let devices = sqale::engine::devices();
    let vk = devices.iter().find(|d| d.backend.eq_ignore_ascii_case("vulkan")).unwrap_or_else(|| {
        panic!(
            "no Vulkan device among {:?}: install mesa-vulkan-drivers (lavapipe)",
            devices.iter().map(|d| &d.name).collect::<Vec<_>>()
        )
    });
    assert!(sqale::engine::GPU_BACKENDS.contains("vulkan"));
    let path = common::test_model();
    let gpu = Model::load(&path, &ModelOptions { device: Some(vk.name.clone()), ..Default::default() }).unwrap();
    let cpu = Model::load(&path, &ModelOptions { gpu_layers: Some(0), ..Default::default() }).unwrap();
    let err = Model::load(&path, &ModelOptions { device: Some("Vulkan9".into()), ..Default::default() })
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no device \"Vulkan9\"") && err.contains(&vk.name), "{err}");

    // Incremental decoding (a prompt in one batch, then token by token) on Vulkan against the CPU.
    let text = "<|im_start|>system\nYou answer questions about SQLite databases.<|im_end|>\n<|im_start|>user\nHow many tables are there?<|im_end|>\n<|im_start|>assistant\n";
    let tokens = cpu.tokenize(text, true);
    let split = tokens.len() - 4;
    let on_gpu = logits_run(&gpu, &tokens, split);
    let on_cpu = logits_run(&cpu, &tokens, split);
    for (k, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        let range = c.iter().cloned().fold(f32::MIN, f32::max) - c.iter().cloned().fold(f32::MAX, f32::min);
        let diff = common::max_abs_diff(g, c);
        eprintln!("position {k}: max |vulkan - cpu| = {diff:.4} (logit range {range:.1})");
        // Vulkan's shaders accumulate in other orders and partly in f16: measured up to 2.6%.
        assert!(diff <= 0.04 * range, "position {k}: {diff} of {range}");
        assert_eq!(common::argmax(g), common::argmax(c), "position {k}");
    }
    // The same decode again on Vulkan gives the same logits (the cache holds no stale state).
    let again = logits_run(&gpu, &tokens, split);
    for (g, a) in on_gpu.iter().zip(&again) {
        assert!(common::max_abs_diff(g, a) <= 1e-4, "Vulkan replays differ");
    }

    // A short agent episode, with a short prompt to spare lavapipe.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &db).unwrap();
    let before = common::sha256(&db);
    let prompt = Prompt {
        system: "Answer with SQLite tool calls as JSON: {\"tool\": \"list_tables\", \"args\": {}}.".into(),
        user_template: "Question: {question}".into(),
        source: "test".into(),
    };
    let engine = Engine::new(&gpu, EngineOptions { ctx: 512, ..Default::default() }).unwrap();
    let budget = 120;
    let mut agent = Agent::new(engine, Settings { prompt, max_episode_tokens: budget, seed: 3, ..Settings::default() });
    let ep = agent.run("How many customers are there?", &db).unwrap();
    eprintln!("episode on {}: {} turns, ended by {}, {:?}", vk.name, ep.turns.len(), ep.ended_by, ep.tokens);
    assert!(ep.tokens.context_tokens <= budget);
    assert_eq!(ep.tokens.decoded_tokens + ep.tokens.reused_tokens, ep.tokens.context_tokens);
    assert!(ep.tokens.generated_tokens > 0);
    assert_eq!(common::sha256(&db), before);
}
