//! Conversion parity with the reference implementation: tiny random Qwen3.5 checkpoints made by
//! `scripts/make_qwen35_fixture.py` with transformers 5.23 (committed with their logits) are
//! converted by sqale, loaded by llama.cpp, and must reproduce transformers' logits.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};

fn fixture(variant: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny").join(variant)
}

struct Reference {
    tokens: Vec<i32>,
    logits: Vec<Vec<f32>>,
    argmax: Vec<usize>,
}

fn reference(variant: &str) -> Reference {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(variant).join("reference.json")).unwrap()).unwrap();
    let nums = |x: &Value| x.as_array().unwrap().iter().map(|f| f.as_f64().unwrap() as f32).collect::<Vec<_>>();
    Reference {
        tokens: v["tokens"].as_array().unwrap().iter().map(|t| t.as_i64().unwrap() as i32).collect(),
        logits: v["logits"].as_array().unwrap().iter().map(nums).collect(),
        argmax: v["argmax"].as_array().unwrap().iter().map(|a| a.as_u64().unwrap() as usize).collect(),
    }
}

pub fn convert(variant: &str, ty: &str, dir: &Path) -> PathBuf {
    common::convert_tiny(variant, ty, dir)
}

/// Logits at every position, decoding one token at a time.
fn llama_logits(gguf: &Path, tokens: &[i32]) -> Vec<Vec<f32>> {
    let model = Model::load(gguf, &ModelOptions::default()).unwrap();
    assert_eq!(model.meta("general.architecture").as_deref(), Some("qwen35"));
    let mut engine =
        Engine::new(&model, EngineOptions { ctx: 256, threads: Some(2), ..EngineOptions::default() }).unwrap();
    tokens
        .iter()
        .map(|&t| {
            engine.decode(&[llama_cpp_2::token::LlamaToken::new(t)]).unwrap();
            engine.logits().to_vec()
        })
        .collect()
}

fn argmax(v: &[f32]) -> usize {
    v.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap()
}

/// (max |Δ| / logit range, positions whose argmax differs).
fn compare(reference: &Reference, got: &[Vec<f32>]) -> (f32, usize) {
    let all = reference.logits.iter().flatten();
    let range = all.clone().copied().fold(f32::MIN, f32::max) - all.copied().fold(f32::MAX, f32::min);
    let mut max = 0f32;
    let mut wrong = 0;
    for (pos, (r, g)) in reference.logits.iter().zip(got).enumerate() {
        assert_eq!(r.len(), g.len(), "vocabulary size");
        for (a, b) in r.iter().zip(g) {
            max = max.max((a - b).abs());
        }
        if argmax(g) != reference.argmax[pos] {
            wrong += 1;
        }
    }
    (max / range, wrong)
}

#[test]
fn f32_conversion_reproduces_transformers_logits() {
    let dir = tempfile::tempdir().unwrap();
    for variant in ["tied", "untied", "causal"] {
        let r = reference(variant);
        let gguf = convert(variant, "f32", dir.path());
        let got = llama_logits(&gguf, &r.tokens);
        let (err, wrong) = compare(&r, &got);
        eprintln!("{variant} f32: max |Δlogit| = {:.2e} of the range, {wrong} argmax differ", err);
        assert!(err <= 1e-3, "{variant}: max error {err} of the logit range");
        assert_eq!(wrong, 0, "{variant}: argmax differs at {wrong} positions");
    }
}

#[test]
fn f16_bf16_and_q8_0_stay_within_looser_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let r = reference("untied");
    // Stated bounds, about 1.5x what was measured (bf16 3.3e-2 / 3 argmax, f16 6.6e-3 / 0,
    // q8_0 0.28 / 13 of 59). The weights convert exactly (bf16 is lossless for bf16 weights);
    // the error is llama.cpp computing in lower precision: it rounds activations to bf16 for bf16
    // matrices and to 8 bits for q8_0 ones. This random tiny model amplifies that: its
    // linear-attention output is tiny before the gated norm, and its logits are nearly flat, so
    // argmax flips easily. The correlation with the reference logits shows the shape is kept.
    for (ty, bound, max_wrong, min_corr) in
        [("bf16", 5e-2, 5, 0.999), ("f16", 1e-2, 1, 0.9999), ("q8_0", 0.4, 20, 0.98)]
    {
        let gguf = convert("untied", ty, dir.path());
        let got = llama_logits(&gguf, &r.tokens);
        let (err, wrong) = compare(&r, &got);
        let corr = correlation(&r.logits, &got);
        eprintln!("untied {ty}: max |Δlogit| = {err:.2e} of the range, {wrong} argmax differ, correlation {corr:.5}");
        assert!(err <= bound, "{ty}: max error {err} of the logit range > {bound}");
        assert!(wrong <= max_wrong, "{ty}: argmax differs at {wrong} positions");
        assert!(corr >= min_corr, "{ty}: correlation {corr} < {min_corr}");
    }
}

/// Pearson correlation of all logits.
fn correlation(a: &[Vec<f32>], b: &[Vec<f32>]) -> f64 {
    let xs: Vec<f64> = a.iter().flatten().map(|&x| x as f64).collect();
    let ys: Vec<f64> = b.iter().flatten().map(|&y| y as f64).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let vy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}
