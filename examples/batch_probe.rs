//! Probe: does llama.cpp give a token the same logits whether it is decoded alone or in a
//! batch with the next one?
//!
//! `cargo run --release --example batch_probe -- MODEL.gguf` decodes, after the system turn and
//! a question, token pairs `[a, b]` once as two one-token batches and once as one two-token
//! batch, and prints the largest |Δlogit| after `b`. Where it is not 0, no verifier can make
//! sampled speculative decoding bit-identical to plain decoding: plain decoding itself gives
//! other logits when its tokens are batched differently (docs/speculative-decoding.md).

use llama_cpp_2::token::LlamaToken;
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::generate::Generator;
use sqale::prompt::Prompt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: batch_probe MODEL.gguf")?;
    let model = Model::load(path, &ModelOptions::default())?;
    let o = EngineOptions { ctx: 4096, temperature: 0.0, ..Default::default() };
    let prompt = Prompt::default();
    let user = prompt.first_turn(&prompt.user_turn("Which table holds the orders?", None)?);
    let mut e = Engine::new(&model, o)?;
    // The first token the model would write, and a few others (SmolLM2's ids; any ids work).
    let start = |e: &mut Engine<'_>| -> Result<(), Box<dyn std::error::Error>> {
        e.begin_markup(&prompt.shared_prefix(), 0)?;
        e.append_markup(&user, usize::MAX)?;
        Ok(())
    };
    start(&mut e)?;
    let first = argmax(e.logits()) as i32;
    for (a, b) in [(first, 504), (504, 3252), (3725, 3252), (504, 504), (13, 3252), (3252, 504)] {
        let (a, b) = (LlamaToken(a), LlamaToken(b));
        start(&mut e)?;
        e.decode(&[a])?;
        e.decode(&[b])?;
        let alone = e.logits().to_vec();
        start(&mut e)?;
        e.decode(&[a, b])?;
        let diff = alone.iter().zip(e.logits()).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        println!("[{} {}]: one at a time vs one batch of two: max |Δlogit| {diff:.3e}", a.0, b.0);
    }
    Ok(())
}

fn argmax(v: &[f32]) -> usize {
    v.iter().enumerate().fold((0, f32::MIN), |b, (i, &x)| if x > b.1 { (i, x) } else { b }).0
}
