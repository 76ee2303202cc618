//! Probe: do a verify batch's rows give the same logits as decoding one token at a time?
//!
//! `cargo run --release --example verify_probe -- MODEL.gguf [THREADS] [KV_TYPE]` prints, for verify
//! batches of 2..=9 rows, the largest |Δlogit| of the last kept row against plain decoding
//! (docs/speculative-decoding.md: where llama.cpp's logits depend on the batch), with the KV
//! cache in `KV_TYPE` (auto, f16 or f32; default auto).

use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::generate::Generator;
use sqale::prompt::Prompt;
use sqale::speculate::Speculate;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: verify_probe MODEL.gguf [THREADS] [KV_TYPE]")?;
    let threads = args.get(2).map(|t| t.parse()).transpose()?;
    let kv_type = args.get(3).map(|k| k.parse()).transpose()?.unwrap_or_default();
    let model = Model::load(path, &ModelOptions::default())?;
    let o = EngineOptions {
        ctx: 4096,
        threads,
        kv_type,
        temperature: 0.0,
        speculate: Speculate::Lookup,
        ..Default::default()
    };
    let prompt = Prompt::default();
    let user = prompt.first_turn(&prompt.user_turn("Which supplier shipped the most back-ordered items?", None)?);
    let mut plain = Engine::new(&model, o.clone())?;
    plain.begin_markup(&prompt.shared_prefix(), 0)?;
    plain.append_markup(&user, usize::MAX)?;
    let start = plain.tokens().len();
    // The greedy continuation, one token at a time, and the logits after each token.
    let mut after = Vec::new();
    for _ in 0..9 {
        let logits = plain.logits();
        let t = llama_cpp_2::token::LlamaToken(argmax(logits) as i32);
        plain.decode(&[t])?;
        after.push(plain.logits().to_vec());
    }
    let cont = plain.tokens()[start..].to_vec();
    let mut fast = Engine::new(&model, o)?;
    for rows in 2..=9 {
        let mut line = format!("rows {rows}:");
        for j in 0..rows {
            // Spoil the draft after row j so that row j is the last one kept.
            let mut draft = cont[1..rows].to_vec();
            if j + 1 < rows {
                draft[j] = llama_cpp_2::token::LlamaToken((draft[j].0 + 1) % model.llama().n_vocab());
            }
            fast.begin_markup(&prompt.shared_prefix(), 0)?;
            fast.append_markup(&user, usize::MAX)?;
            let v = fast.verify(cont[0], &draft)?;
            let kept = v.accepted;
            let (a, b) = (fast.logits(), &after[kept]);
            let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
            line.push_str(&format!(" row{kept} {diff:.1e}"));
        }
        println!("{line}");
    }
    Ok(())
}

fn argmax(v: &[f32]) -> usize {
    v.iter().enumerate().fold((0, f32::MIN), |b, (i, &x)| if x > b.1 { (i, x) } else { b }).0
}
