//! Importance matrices on the real things: sqale's collection against llama.cpp's own
//! `llama-imatrix` and `llama-quantize` (built from source by `.ci/fetch-models`), both ways;
//! episodes teacher-forced with their shared prefix counted once; and what is refused, writing
//! nothing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use sqale::divergence::{Piece, Transcript};
use sqale::engine::{Model, ModelOptions};
use sqale::generate::Markup;
use sqale::imatrix::{self, ImatrixSetup, Source};
use sqale_convert::gguf::{self, Value};
use sqale_convert::Imatrix;

/// One of llama.cpp's tools, built by `.ci/fetch-models` (scripts/build-llama-tools).
fn llama_tool(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/llama.cpp/bin").join(name);
    assert!(p.is_file(), "{} missing: run `bash .ci/fetch-models` (it builds llama.cpp's tools)", p.display());
    p
}

fn sqale(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().expect("run sqale")
}

fn ok(out: Output, what: &str) -> String {
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{what} failed: {text}");
    text
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The test model's weights dequantised exactly to f32 (`quantize --allow-requantize`), made
/// once per test binary: the full-precision model llama.cpp's tools are given too.
fn reference() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("f32.gguf");
        let model = common::test_model();
        ok(sqale(&["quantize", s(&model), s(&out), "--type", "f32", "--allow-requantize"]), "dequantising to f32");
        dir
    });
    Box::leak(dir.path().join("f32.gguf").into_boxed_path())
}

/// Text for the calibration: the README (plain English with code), as both tools read it.
fn text() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

fn header(path: &Path) -> gguf::GgufHeader {
    gguf::read_header(path).expect("a GGUF header")
}

fn files_in(dir: &Path) -> Vec<String> {
    common::dir_listing(dir)
}

#[test]
fn sqale_and_llama_cpp_read_each_others_importance_matrices() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let f32 = reference();
    let ours = work.path().join("sqale.imatrix.gguf");
    let theirs = work.path().join("llama.imatrix.gguf");
    let text = text();
    ok(
        sqale(&["imatrix", "-m", s(f32), "--text", s(&text), "--chunk", "128", "--chunks", "4", "-o", s(&ours)]),
        "sqale imatrix",
    );
    let out = Command::new(llama_tool("llama-imatrix"))
        .args(["-m", s(f32), "-f", s(&text), "-c", "128", "-b", "128", "--chunks", "4", "-t", "2", "-o", s(&theirs)])
        .output()
        .unwrap();
    ok(out, "llama-imatrix");

    // sqale reads llama.cpp's file, and the two agree: the same weights, the same tokens, the
    // same mean squared activations but for the last digits of kernels that round differently.
    let (a, b) = (Imatrix::read(&ours).unwrap(), Imatrix::read(&theirs).unwrap());
    assert_eq!(a.entries.keys().collect::<Vec<_>>(), b.entries.keys().collect::<Vec<_>>());
    assert_eq!(a.entries.len(), 210, "SmolLM2: 30 blocks of 7 weight matrices");
    let mut medians = Vec::new();
    for (name, e) in &a.entries {
        let f = &b.entries[name];
        assert_eq!(e.counts, f.counts, "{name}: tokens counted");
        let (x, y) = (e.importance(), f.importance());
        let mut rel: Vec<f32> = x.iter().zip(&y).map(|(p, q)| (p - q).abs() / q.abs().max(1e-6)).collect();
        rel.sort_by(f32::total_cmp);
        medians.push(rel[rel.len() / 2]);
    }
    medians.sort_by(f32::total_cmp);
    assert!(medians[medians.len() - 1] < 0.02, "sqale's and llama.cpp's statistics differ: {medians:?}");

    // The two merge, as llama-imatrix's --in-file: sums and counts add.
    let both = work.path().join("both.imatrix.gguf");
    ok(sqale(&["imatrix", "-m", s(f32), "--in-file", s(&ours), "--in-file", s(&theirs), "-o", s(&both)]), "merge");
    let m = Imatrix::read(&both).unwrap();
    let name = "blk.3.ffn_down.weight";
    assert_eq!(m.entries[name].counts[0], a.entries[name].counts[0] + b.entries[name].counts[0]);
    assert_eq!(m.datasets.len(), a.datasets.len() + b.datasets.len());

    // llama.cpp's quantiser reads sqale's file: it loads every entry and names it in the output.
    let q = work.path().join("llama-q3.gguf");
    let out = Command::new(llama_tool("llama-quantize"))
        .args(["--imatrix", s(&ours), s(f32), s(&q), "q3_k_m", "2"])
        .output()
        .unwrap();
    let log = ok(out, "llama-quantize --imatrix (sqale's file)");
    assert!(log.contains("loaded 210 importance matrix entries"), "{log}");
    assert_eq!(header(&q).get("quantize.imatrix.entries_count").and_then(Value::as_u64), Some(210));

    // And sqale's quantiser takes llama.cpp's, for a type that cannot be made without one.
    let iq = work.path().join("sqale-iq3.gguf");
    ok(sqale(&["quantize", s(f32), s(&iq), "--type", "iq3_xxs", "--imatrix", s(&theirs)]), "sqale quantize iq3_xxs");
    let h = header(&iq);
    assert_eq!(h.get("quantize.imatrix.file").and_then(Value::as_str), Some("llama.imatrix.gguf"));
    assert!(h.tensors.iter().any(|t| t.type_name() == "iq3_xxs"), "no iq3_xxs tensor in the output");
    // The output runs.
    let model = Model::load(&iq, &ModelOptions::default()).expect("the iq3_xxs file loads");
    assert!(model.n_params() > 100_000_000);
}

fn transcript(id: &str, prefix: &str, text: &str, sampled: Vec<u32>) -> Transcript {
    Transcript {
        id: id.into(),
        ended_by: Some(sqale::EndedBy::SubmitSql),
        pieces: vec![Piece::Prefix(Markup::parsed(prefix)), Piece::Text(Markup::parsed(text)), Piece::Sampled(sampled)],
        ids: None,
    }
}

#[test]
fn recorded_episodes_count_their_shared_prefix_once() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let model = Model::load(common::test_model(), &ModelOptions::default()).unwrap();
    let prefix = "<|im_start|>system\nYou answer questions over a SQLite database with its tools.<|im_end|>\n";
    let sampled: Vec<u32> =
        model.tokenize("SELECT COUNT(*) FROM customers", false).iter().map(|t| t.0 as u32).collect();
    let episodes = [
        transcript(
            "a",
            prefix,
            "<|im_start|>user\nHow many customers?<|im_end|>\n<|im_start|>assistant\n",
            sampled.clone(),
        ),
        transcript("b", prefix, "<|im_start|>user\nCount the customers.<|im_end|>\n<|im_start|>assistant\n", sampled),
    ];
    let file = work.path().join("transcripts.jsonl");
    let lines: Vec<String> = episodes.iter().map(|t| serde_json::to_string(t).unwrap()).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();

    let setup = ImatrixSetup { threads: Some(2), ..ImatrixSetup::default() };
    let (m, report) = imatrix::imatrix(&model, &[Source::Episodes(file)], &setup, &mut |_| {}).unwrap();
    let prefix_tokens = model.tokenize(prefix, true).len();
    assert_eq!(report.sequences, 2);
    assert_eq!(report.counted_tokens, report.decoded_tokens - prefix_tokens, "{report:?}");
    assert_eq!(m.entries.len(), 210);
    let counts: Vec<f32> = m.entries.values().map(|e| e.counts[0]).collect();
    assert!(counts.iter().all(|&c| c == report.counted_tokens as f32), "every weight saw every counted token");
    assert!(m.datasets[0].starts_with("episodes:"));

    // A folder without episodes is refused with what to give instead.
    let e = imatrix::imatrix(&model, &[Source::Episodes(work.path().join("nothing"))], &setup, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("no recorded episodes here") && e.contains("divergence/transcripts.jsonl"), "{e}");
}

#[test]
fn a_benchmark_is_played_then_teacher_forced() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("agent.imatrix.gguf");
    let model = common::test_model();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let text = ok(
        sqale(&[
            "imatrix",
            "-m",
            s(&model),
            "--bench",
            s(&bench),
            "--limit",
            "2",
            "--max-episode-tokens",
            "600",
            "-o",
            s(&out),
            "--json",
        ]),
        "sqale imatrix --bench",
    );
    let json: serde_json::Value = serde_json::from_str(&text[..text.rfind('}').unwrap() + 1]).unwrap();
    assert_eq!(json["sequences"], 2, "{json}");
    let (decoded, counted) = (json["decoded_tokens"].as_u64().unwrap(), json["counted_tokens"].as_u64().unwrap());
    assert!(counted < decoded && counted > 0, "the second episode's system turn is counted once: {json}");
    let m = Imatrix::read(&out).unwrap();
    assert!(m.datasets[0].starts_with("bench:"), "{:?}", m.datasets);
    m.check_model(&header(&model), &out, &model).expect("it fits the model it was made on");
}

#[test]
fn what_cannot_be_quantised_is_refused_and_nothing_is_written() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let f32 = reference();
    let good = work.path().join("good.imatrix.gguf");
    let made =
        sqale(&["imatrix", "-m", s(f32), "--text", s(&text()), "--chunk", "64", "--chunks", "1", "-o", s(&good)]);
    // stderr is a pipe, not a terminal: progress comes as plain lines.
    let progress = String::from_utf8_lossy(&made.stderr).into_owned();
    assert!(progress.lines().any(|l| l.starts_with("collect: ") && l.contains(" tokens (")), "{progress}");
    ok(made, "sqale imatrix");
    let out = work.path().join("out.gguf");
    let refused = |args: &[&str], needle: &str| {
        let before = files_in(work.path());
        let o = sqale(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "accepted: {args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(files_in(work.path()), before, "{args:?} left a file behind");
    };
    // A type llama.cpp will not make without a matrix.
    refused(&["quantize", s(f32), s(&out), "--type", "iq2_xs"], "needs an importance matrix");
    // An already quantised input, without --allow-requantize.
    refused(&["quantize", s(&common::test_model()), s(&out), "--type", "q2_k"], "--allow-requantize");

    // A matrix made on another model: the tiny Qwen3.5 fixture.
    let tiny = common::convert_tiny("tied", "f16", work.path());
    let other = work.path().join("other.imatrix.gguf");
    ok(
        sqale(&["imatrix", "-m", s(&tiny), "--text", s(&text()), "--chunk", "64", "--chunks", "1", "-o", s(&other)]),
        "sqale imatrix on the tiny model",
    );
    refused(&["quantize", s(f32), s(&out), "--type", "q3_k_m", "--imatrix", s(&other)], "does not belong to");
    refused(&["imatrix", "-m", s(f32), "--in-file", s(&other), "-o", s(&out)], "does not belong to");

    // A matrix missing one of the model's weights.
    let mut m = Imatrix::read(&good).unwrap();
    m.entries.remove("blk.7.ffn_down.weight");
    let missing = work.path().join("missing.imatrix.gguf");
    m.write(&missing).unwrap();
    refused(&["quantize", s(f32), s(&out), "--type", "q3_k_m", "--imatrix", s(&missing)], "blk.7.ffn_down.weight");

    // A truncated file.
    let bytes = std::fs::read(&good).unwrap();
    let cut = work.path().join("cut.imatrix.gguf");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&["quantize", s(f32), s(&out), "--type", "q3_k_m", "--imatrix", s(&cut)], "not a valid GGUF");
    // A model given as the matrix.
    refused(&["quantize", s(f32), s(&out), "--type", "q3_k_m", "--imatrix", s(&tiny)], "is a model");
}

#[test]
fn the_divergence_report_marks_the_files_made_with_a_matrix() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let f32 = reference();
    let m = work.path().join("text.imatrix.gguf");
    ok(
        sqale(&["imatrix", "-m", s(f32), "--text", s(&text()), "--chunk", "64", "--chunks", "2", "-o", s(&m)]),
        "imatrix",
    );
    let (plain, weighed) = (work.path().join("q2_k.gguf"), work.path().join("q2_k-imatrix.gguf"));
    let said = ok(sqale(&["quantize", s(f32), s(&plain), "--type", "q2_k"]), "quantize q2_k");
    // stderr is a pipe, not a terminal: progress comes as plain lines, one when it completes.
    let done = said.lines().rfind(|l| l.starts_with("quantise: ") && l.contains(" tensors ("));
    let (n, of) = done.and_then(|l| l["quantise: ".len()..].split_once(' ')?.0.split_once('/')).expect(&said);
    assert_eq!(n, of, "{said}");
    ok(sqale(&["quantize", s(f32), s(&weighed), "--type", "q2_k", "--imatrix", s(&m)]), "quantize q2_k --imatrix");
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let out = work.path().join("results");
    ok(
        sqale(&[
            "eval",
            "--bench",
            s(&bench),
            "--limit",
            "1",
            "--max-episode-tokens",
            "700",
            "--reference",
            s(f32),
            "--model",
            s(&plain),
            "--model",
            s(&weighed),
            "--kld-only",
            "-o",
            s(&out),
        ]),
        "eval --kld-only",
    );
    let models: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
    assert_eq!(models["q2_k-imatrix.gguf"]["imatrix"], "text.imatrix.gguf (text:".to_string() + s(&text()) + ")");
    assert!(models["q2_k.gguf"].get("imatrix").is_none(), "{models}");
    assert!(models["q2_k.gguf"]["bytes"].as_u64().unwrap() > 50_000_000, "--kld-only records the file: {models}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let figure = &html[html.find("Mean KLD against file size").expect("the divergence figure")..];
    assert_eq!(figure.matches("<polygon").count(), 1, "one diamond, for the file made with a matrix");
    assert!(figure.contains("importance matrix text.imatrix.gguf"), "{figure}");
    // The same type with and without the matrix is paired by default, on the page and in the
    // summary, and `eval compare` pairs any two.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let pair = &summary["pairwise"][0];
    assert_eq!((pair["a"].as_str(), pair["b"].as_str()), (Some("q2_k.gguf"), Some("q2_k-imatrix.gguf")), "{summary}");
    assert_eq!(pair["kld"]["questions"], 1, "{pair}");
    assert!(pair["kld"]["too_few"].as_str().unwrap().contains("1 questions; an interval needs 10"), "{pair}");
    assert!(html.contains("Files compared with each other") && html.contains("without and with an importance matrix"));
    let compared = sqale(&["eval", "compare", s(&out), "q2_k.gguf", "q2_k-imatrix.gguf", "--json"]);
    assert!(compared.status.success(), "{}", String::from_utf8_lossy(&compared.stderr));
    let c: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
    assert_eq!(c["kld"]["diff"]["value"].as_f64(), pair["kld"]["diff"]["value"].as_f64(), "{c}");
    let o = sqale(&["eval", "compare", s(&out), "q2_k.gguf", "q9.gguf"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("holds no model q9.gguf: it holds "), "{err}");
}
