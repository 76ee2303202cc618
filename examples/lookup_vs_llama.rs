//! Prompt lookup through sqale's engine on a raw prompt, for comparison with llama.cpp's own
//! `llama-speculative-simple --spec-type ngram-simple` on the same file and prompt.
//!
//! `cargo run --release --example lookup_vs_llama -- MODEL.gguf N [--prompt FILE | --write-prompt FILE]`
//! generates N tokens greedily (stopping early at an end-of-turn token) after a raw prompt with
//! `--speculate off` and with `lookup`, and prints tokens/s, drafts kept and tokens per verify
//! step. The prompt is FILE's text with `--prompt`, else the agent's first prompt (system turn,
//! a question over the demo database, the assistant opening), which `--write-prompt` also writes
//! out (the file to pass to llama.cpp with `-f`).

use std::time::Instant;

use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::generate::Generator;
use sqale::prompt::Prompt;
use sqale::speculate::Speculate;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: lookup_vs_llama MODEL.gguf N [--prompt FILE | --write-prompt FILE]";
    let path = args.get(1).ok_or(usage)?;
    let n: usize = args.get(2).ok_or(usage)?.parse()?;
    let text = match (args.get(3).map(String::as_str), args.get(4)) {
        (Some("--prompt"), Some(file)) => std::fs::read_to_string(file)?,
        (flag, file) => {
            let prompt = Prompt::default();
            let user = prompt.user_turn("Which supplier shipped the most back-ordered items last quarter?", None)?;
            let text = format!("{}{}", prompt.shared_prefix(), prompt.first_turn(&user));
            match (flag, file) {
                (Some("--write-prompt"), Some(out)) => std::fs::write(out, &text)?,
                (None, _) => {}
                _ => return Err(usage.into()),
            }
            text
        }
    };
    let model = Model::load(path, &ModelOptions::default())?;
    let mut first: Option<Vec<_>> = None;
    for mode in [Speculate::Off, Speculate::Lookup] {
        let o = EngineOptions { ctx: 4096, temperature: 0.0, speculate: mode, ..Default::default() };
        let mut e = Engine::new(&model, o)?;
        e.begin("", 0)?;
        e.append(&text, usize::MAX)?;
        let start = e.tokens().len();
        let t = Instant::now();
        let c = e.complete(n, &mut |_| {})?;
        let secs = t.elapsed().as_secs_f64();
        let out = e.tokens()[start..].to_vec();
        let reference = first.get_or_insert_with(|| out.clone());
        let same = match reference.iter().zip(&out).position(|(a, b)| a != b) {
            None if reference.len() == out.len() => "yes".to_string(),
            None => format!("no: lengths {} and {}", reference.len(), out.len()),
            Some(i) => format!("no: they part at generated token {i}"),
        };
        let s = e.counters().speculation.lookup;
        println!(
            "{mode:>6}: prompt {start} tokens, {} generated in {secs:.2} s = {:.1} tokens/s; drafted {}, kept {} ({:.0} %), {:.2} tokens per verify step; same tokens as off: {same}",
            c.tokens,
            c.tokens as f64 / secs,
            s.drafted,
            s.accepted,
            100.0 * s.accepted as f64 / s.drafted.max(1) as f64,
            if s.steps > 0 { (s.accepted + s.bonus) as f64 / s.steps as f64 } else { 0.0 },
        );
    }
    Ok(())
}
