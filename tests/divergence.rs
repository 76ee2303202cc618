//! `sqale eval --reference`: divergence of quantisations from a reference along the reference's
//! own episodes, on real GGUF files (the tiny hybrid `qwen35` fixture converted by sqale, and
//! SmolLM2) and real llama.cpp. The comparison with `llama-perplexity --kl-divergence` needs
//! llama.cpp's tools built from source and is `benches/kld-vs-llama.sh` (docs/evaluation.md).

#[path = "support/chromium.rs"]
mod chromium;
mod common;
#[path = "support/stub_server.rs"]
mod stub;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use sqale::agent::{Agent, Settings};
use sqale::divergence::{force, Recorder, Sequence, Transcript};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::speculate::Speculate;

fn sqale(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap()
}

fn bench() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl").display().to_string()
}

/// The tiny fixture converted to each of `types` in `dir`.
fn tiny(dir: &Path, types: &[&str]) -> Vec<PathBuf> {
    types.iter().map(|t| common::convert_tiny("untied", t, dir)).collect()
}

fn eval(out: &Path, reference: &Path, models: &[&PathBuf], limit: usize, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec![
        "eval".into(),
        "--bench".into(),
        bench(),
        "--limit".into(),
        limit.to_string(),
        "--max-episode-tokens".into(),
        "1200".into(),
        "--threads".into(),
        "2".into(),
        "--json".into(),
        "-o".into(),
        out.display().to_string(),
        "--reference".into(),
        reference.display().to_string(),
    ];
    for m in models {
        args.extend(["--model".into(), m.display().to_string()]);
    }
    if !extra.contains(&"--ctx") {
        args.extend(["--ctx".into(), "2048".into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    sqale(&refs)
}

fn summary(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Plays one greedy episode on `model` through a recorder; returns the transcript and the
/// engine's own token sequence.
fn recorded_episode(model: &Model, budget: usize) -> (Transcript, Vec<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.sqlite");
    std::fs::copy(common::demo_db(), &db).unwrap();
    let options = EngineOptions { ctx: 2048, threads: Some(2), temperature: 0.0, ..EngineOptions::default() };
    let engine = Engine::new(model, options).unwrap();
    let mut agent = Agent::new(Recorder::new(engine), Settings { max_episode_tokens: budget, ..Settings::default() });
    let ep = agent.run("How many customers placed more than three orders in 2024?", &db).unwrap();
    let held: Vec<i32> = agent.generator().inner().tokens().iter().map(|t| t.0).collect();
    let t = Transcript { id: "q".into(), ended_by: Some(ep.ended_by), pieces: agent.generator_mut().take(), ids: None };
    (t, held)
}

/// The transcript tokenizes back to exactly the sequence the engine held, and teacher forcing
/// scores the right positions: under greedy decoding, the forced pass's most probable token is
/// the token the episode generated (an off-by-one would agree about as often as chance).
fn check_replay(model: &Model, budget: usize) {
    let (t, held) = recorded_episode(model, budget);
    assert!(t.sampled() > 50, "too few tokens generated: {}", t.sampled());
    let seq = Sequence::of(model, &t).unwrap();
    let forced: Vec<i32> = seq.tokens.iter().map(|t| t.0).collect();
    assert_eq!(forced, held, "the transcript is not the engine's sequence");
    assert_eq!(seq.sampled.len(), t.sampled());
    let options = EngineOptions { ctx: 2048, threads: Some(2), speculate: Speculate::Off, ..EngineOptions::default() };
    let mut engine = Engine::new(model, options).unwrap();
    let mut agree = 0;
    force(&mut engine, &seq, &mut |g, logits| {
        let argmax = common::argmax(logits) as i32;
        agree += (argmax == seq.tokens[seq.sampled[g].0].0) as usize;
    })
    .unwrap();
    let share = agree as f64 / seq.sampled.len() as f64;
    eprintln!("{}: {agree} of {} greedy tokens are the forced argmax", model.path().display(), seq.sampled.len());
    // Not all: a token decoded in a batch rounds differently from one decoded alone.
    assert!(share > 0.95, "{agree} of {}", seq.sampled.len());
}

#[test]
fn transcripts_replay_the_engines_exact_sequence_smollm2() {
    let _g = common::one_at_a_time();
    let model = Model::load(common::test_model(), &ModelOptions::default()).unwrap();
    check_replay(&model, 800);
}

#[test]
fn transcripts_replay_the_engines_exact_sequence_hybrid_qwen35() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let model = Model::load(&tiny(dir.path(), &["f32"])[0], &ModelOptions::default()).unwrap();
    check_replay(&model, 1500);
}

#[test]
fn divergence_rises_in_order_of_precision_and_the_reference_is_zero_against_itself() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let files = tiny(dir.path(), &["f32", "f16", "q8_0", "q6_k", "q4_k_m", "q4_0"]);
    let out = dir.path().join("out");
    let models: Vec<&PathBuf> = files[1..].iter().collect();
    let o = eval(&out, &files[0], &models, 3, &["--kld-only", "--parallel", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    let d = s["divergence"].as_array().unwrap();
    let mean = |label: &str| -> f64 {
        let m = d.iter().find(|m| m["model"] == label).unwrap_or_else(|| panic!("no {label}: {d:?}"));
        assert_eq!(m["questions"], 3, "{m}");
        m["mean_kld"]["value"].as_f64().unwrap()
    };
    let reference = d.iter().find(|m| m["model"] == "tiny-untied-f32.gguf").unwrap();
    assert_eq!(reference["mean_kld"]["value"], 0.0, "{reference}");
    assert_eq!(reference["p999_kld"]["value"], 0.0, "{reference}");
    assert_eq!(reference["top1"]["value"], 100.0, "{reference}");
    let order: Vec<(&str, f64)> = ["f16", "q8_0", "q6_k", "q4_k_m", "q4_0"]
        .iter()
        .map(|t| (*t, mean(&format!("tiny-untied-{t}.gguf"))))
        .collect();
    eprintln!("mean KLD against f32: {order:?}");
    // q6_k falls back to q8_0 on the fixture's small rows (not a multiple of 256): equal there.
    let [f16, q8, q6, q4km, q40] = [0, 1, 2, 3, 4].map(|i| order[i].1);
    assert!(0.0 < f16 && f16 < q8 && q8 <= q6 && q6 < q4km && q4km < q40, "{order:?}");
    // Every measured token is in the per-token figures, and the places add up.
    for m in d {
        let places: u64 = m["by_place"].as_array().unwrap().iter().map(|p| p["tokens"].as_u64().unwrap()).sum();
        assert_eq!(places, m["tokens"].as_u64().unwrap(), "{m}");
        assert_eq!(m["histogram"].as_array().unwrap().iter().map(|h| h.as_u64().unwrap()).sum::<u64>(), places);
    }
    // The reference's episodes were played (its EX), the models' were not (--kld-only).
    let played: Vec<String> =
        lines(&out.join("episodes.jsonl")).iter().map(|r| r["model"].as_str().unwrap().to_string()).collect();
    assert_eq!(played, vec!["tiny-untied-f32.gguf"; 3]);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## Divergence from the reference tiny-untied-f32.gguf"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Mean KLD against file size") && html.matches("<polyline").count() >= 6,
        "report lacks the divergence plots"
    );
    // llama-perplexity's other figures: Δp and the perplexity ratio, 0 and 1 for the reference.
    assert_eq!(
        (reference["mean_dp"]["value"].as_f64(), reference["ppl_ratio"]["value"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    let q40 = d.iter().find(|m| m["model"] == "tiny-untied-q4_0.gguf").unwrap();
    assert!(
        q40["ppl_ratio"]["value"].as_f64().unwrap() > 1.0 && q40["rms_dp"]["value"].as_f64().unwrap() > 0.0,
        "{q40}"
    );
    assert!(q40["max_kld"].as_f64().unwrap() >= q40["p999_kld"]["value"].as_f64().unwrap(), "{q40}");
    assert_eq!(q40["by_question"].as_array().unwrap().len(), 3, "{q40}");
    // Three questions support no interval: the reports say so instead of printing one.
    assert_eq!(q40["too_few"]["mean_kld"], "too few to estimate (3 questions; an interval needs 10)", "{q40}");
    assert!(md.contains("(too few to estimate)"), "{md}");
    // Nor does the KLD-against-size figure draw the interval the table leaves out.
    assert!(html.contains("Mean KLD against file size") && !html.contains("class=\"whisker\""), "a whisker drawn");

    // The page opens with the divergence table, a row per model, before execution accuracy.
    let table = html
        .split("<table class=\"divergence\">")
        .nth(1)
        .expect("the divergence table")
        .split("</table>")
        .next()
        .unwrap();
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    assert!(at("<table class=\"divergence\">") < at("<h2>Execution accuracy</h2>"), "the divergence comes first");
    assert!(at("<table class=\"divergence\">") < at("Mean KLD against file size"));
    for head in [
        "file MiB",
        "bits / weight",
        "tensor types",
        "mean KLD",
        "median KLD",
        "p99 KLD",
        "max KLD",
        "top-1 %",
        "mean Δp %",
        "RMS Δp %",
        "PPL ratio",
        "first divergence",
        "EX − reference",
    ] {
        assert!(table.contains(&format!("<th>{head}")), "the table lacks {head:?}: {table}");
    }
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 6, "{table}");
    for (row, t) in rows.iter().zip(["f32", "f16", "q8_0", "q6_k", "q4_k_m", "q4_0"]) {
        assert!(row.contains(&format!("tiny-untied-{t}.gguf")), "{row}");
        // The reference against itself is the check, 0 by construction: no interval at all.
        assert_eq!(row.contains("too few to estimate"), t != "f32", "{row}");
    }
    // q6_k's rows do not divide into 256-weight blocks here: the row says what the file holds.
    assert!(rows[3].contains("fallback: ") && rows[3].contains("are not q6_k"), "{}", rows[3]);
    assert!(rows[5].contains(" q4_0") && !rows[5].contains("fallback"), "{}", rows[5]);
    // The per-question table sorts by a click (the page's one script); sizes are in MiB.
    assert!(html.contains("<table class=\"sortable\">") && html.matches("<script>").count() == 1, "no sortable table");
    assert!(html.contains("GGUF size (MiB)") && !html.contains("(GB)"));
    // In Chromium, a click on q4_0's mean-KLD head sorts the questions by it, a second click
    // reverses them, and a click on the question head sorts by id.
    let ids = |v: &Value| v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>();
    let clicks = sorted_in_chromium(&html, dir.path(), "tiny-untied-q4_0.gguf mean KLD");
    let by_kld: Vec<String> = {
        let mut qs: Vec<(f64, String)> = q40["by_question"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| (q["mean_kld"].as_f64().unwrap(), q["id"].as_str().unwrap().to_string()))
            .collect();
        qs.sort_by(|a, b| a.0.total_cmp(&b.0));
        qs.into_iter().map(|q| q.1).collect()
    };
    assert_eq!(ids(&clicks["asc"]), by_kld, "{clicks}");
    assert_eq!(ids(&clicks["desc"]), by_kld.iter().rev().cloned().collect::<Vec<_>>(), "{clicks}");
    let mut by_id = by_kld.clone();
    by_id.sort();
    assert_eq!(ids(&clicks["by_id"]), by_id, "{clicks}");
}

/// Lays `html` out in Chromium with a script that clicks the per-question table's head named
/// `head` twice, then the question head, and writes down the order of the rows' question ids
/// after each (`asc`, `desc`, `by_id`).
fn sorted_in_chromium(html: &str, dir: &Path, head: &str) -> Value {
    let script = r#"<script>
(function () {
  const t = document.querySelector('table.sortable');
  const heads = Array.from(t.querySelectorAll('thead th'));
  const order = function () { return Array.from(t.tBodies[0].rows).map(function (r) { return r.cells[0].getAttribute('data-v'); }); };
  const out = {};
  const th = heads.find(function (h) { return h.textContent.replace(/[▲▼ ]+$/, '') === HEAD; });
  th.click(); out.asc = order();
  th.click(); out.desc = order();
  heads[0].click(); out.by_id = order();
  const pre = document.createElement('pre');
  pre.id = 'sorted';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#
        .replace("HEAD", &serde_json::to_string(head).unwrap());
    let page = dir.join("sort-check.html");
    std::fs::write(&page, html.replace("</body>", &format!("{script}</body>"))).unwrap();
    let dom = chromium::run_chromium(&page, &["--dump-dom".to_string()]);
    let json = dom.split("<pre id=\"sorted\">").nth(1).and_then(|s| s.split("</pre>").next()).expect("the script ran");
    serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&")).unwrap()
}

#[test]
fn a_second_run_measures_only_what_is_missing_and_models_play_their_own_episodes() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let files = tiny(dir.path(), &["f32", "q8_0", "q4_0", "f16"]);
    let out = dir.path().join("out");
    let o = eval(&out, &files[0], &[&files[2]], 2, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let refs = out.join("divergence/reference");
    let stamp = |p: &Path| -> Vec<(String, std::time::SystemTime)> {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.metadata().unwrap().modified().unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = stamp(&refs);
    assert_eq!(before.len(), 2);
    // Again, with one more question and one more model.
    let o = eval(&out, &files[0], &[&files[2], &files[1]], 3, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = stamp(&refs);
    assert_eq!(after.len(), 3);
    assert!(before.iter().all(|b| after.contains(b)), "a kept reference file was computed again");
    let records = lines(&out.join("divergence/records.jsonl"));
    let mut keys: Vec<(String, String)> = records
        .iter()
        .map(|r| (r["model"].as_str().unwrap().to_string(), r["id"].as_str().unwrap().to_string()))
        .collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!((n, keys.len()), (9, 9), "each (model, question) measured exactly once: {keys:?}");
    // The models played their own episodes too, so the EX comparison sits beside the KLD.
    let s = summary(&out);
    assert_eq!(s["models"].as_array().unwrap().len(), 3);
    assert_eq!(s["paired"][0]["a"], "tiny-untied-f32.gguf");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| model | mean KLD | top-1 | EX (paired) |"), "{md}");
    // A later model in a smaller context: episodes longer than it are skipped, with why.
    let o = eval(&out, &files[0], &[&files[3]], 3, &["--kld-only", "--ctx", "1000"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f16: Vec<Value> = lines(&out.join("divergence/records.jsonl"))
        .into_iter()
        .filter(|r| r["model"] == "tiny-untied-f16.gguf")
        .collect();
    assert_eq!(f16.len(), 3);
    let skipped = f16
        .iter()
        .filter(|r| r["skipped"].as_str().is_some_and(|w| w.contains("a larger context measures it")))
        .count();
    assert!(skipped > 0, "{f16:?}");
}

#[test]
fn bad_references_and_cut_episodes_are_refused_or_recorded_as_skipped() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let files = tiny(dir.path(), &["f32", "q4_0"]);
    let smol = common::test_model();
    // Another vocabulary and architecture: refused before the model plays anything.
    let out = dir.path().join("vocab");
    let o = eval(&out, &files[0], &[&smol], 1, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot be compared with the reference") && err.contains("architecture"), "{err}");
    let played = lines(&out.join("episodes.jsonl"));
    assert!(played.iter().all(|r| r["model"] == "tiny-untied-f32.gguf"), "the refused model played");
    // The same folder with another reference: refused, nothing changed.
    let records_before = std::fs::read(out.join("divergence/records.jsonl")).unwrap();
    let o = eval(&out, &files[1], &[], 1, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds divergence data against tiny-untied-f32.gguf"), "{err}");
    assert_eq!(std::fs::read(out.join("divergence/records.jsonl")).unwrap(), records_before);
    // A folder where the reference played without --reference: its sequences are unknown.
    let plain = dir.path().join("plain");
    let f32s = files[0].display().to_string();
    let o = sqale(&[
        "eval",
        "--bench",
        &bench(),
        "--limit",
        "1",
        "--max-episode-tokens",
        "1200",
        "--ctx",
        "2048",
        "--json",
        "-o",
        plain.to_str().unwrap(),
        "--model",
        &f32s,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = eval(&plain, &files[0], &[], 1, &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("played without --reference") && err.contains("another --out"), "{err}");
    // Episodes cut by the context: recorded as skipped, with why, for every model.
    let cut = dir.path().join("cut");
    let o = sqale(&[
        "eval",
        "--bench",
        &bench(),
        "--limit",
        "2",
        "--max-episode-tokens",
        "1500",
        "--ctx",
        "1100",
        "--json",
        "-o",
        cut.to_str().unwrap(),
        "--reference",
        &f32s,
        "--model",
        files[1].to_str().unwrap(),
        "--kld-only",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ended: Vec<Value> = lines(&cut.join("episodes.jsonl")).iter().map(|r| r["ended_by"].clone()).collect();
    assert!(ended.iter().all(|e| e == "context_full"), "{ended:?}");
    let records = lines(&cut.join("divergence/records.jsonl"));
    assert_eq!(records.len(), 4);
    assert!(records.iter().all(|r| r["skipped"].as_str().unwrap().contains("context_full")), "{records:?}");
    let md = std::fs::read_to_string(cut.join("summary.md")).unwrap();
    assert!(md.contains("2 question(s) not measured"), "{md}");
}

/// A stand-in for vLLM backed by real llama.cpp: `/tokenize` and `prompt_logprobs` come from
/// SmolLM2 itself (the same file the test measures locally), completions are one canned turn
/// tokenized by it. Serves vLLM's documented response shapes on 127.0.0.1.
fn vllm_backed_by(path: PathBuf) -> stub::Stub {
    let model = std::sync::Arc::new(Model::load(&path, &ModelOptions::default()).unwrap());
    stub::start(move |seen| {
        let m = &*model;
        if seen.path == "/tokenize" {
            let add = seen.body["add_special_tokens"].as_bool().unwrap_or(false);
            let t: Vec<i32> = m.tokenize(seen.body["prompt"].as_str().unwrap_or(""), add).iter().map(|t| t.0).collect();
            return stub::Answer::Json(200, serde_json::json!({"count": t.len(), "max_model_len": 4096, "tokens": t}));
        }
        if let Some(a) = stub::vllm_probe(seen, 4096) {
            return a;
        }
        let prompt: Vec<i32> =
            seen.body["prompt"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i32).collect();
        if let Some(k) = seen.body["prompt_logprobs"].as_u64() {
            let tokens: Vec<llama_cpp_2::token::LlamaToken> =
                prompt.iter().map(|&t| llama_cpp_2::token::LlamaToken(t)).collect();
            let seq = Sequence {
                prefix: Default::default(),
                prefix_tokens: 0,
                tokens,
                sampled: (1..prompt.len()).map(|p| (p, 0)).collect(),
            };
            let options =
                EngineOptions { ctx: 4096, threads: Some(1), speculate: Speculate::Off, ..EngineOptions::default() };
            let mut engine = Engine::new(m, options).unwrap();
            let mut entries = vec![Value::Null];
            force(&mut engine, &seq, &mut |g, logits| {
                let actual = prompt[g + 1] as u32;
                let mut top = sqale::divergence::measure::top_k(logits, k as usize);
                if !top.iter().any(|t| t.0 == actual) {
                    let all = sqale::divergence::measure::top_k(logits, logits.len());
                    top.push(*all.iter().find(|t| t.0 == actual).unwrap());
                }
                let map: serde_json::Map<String, Value> = top
                    .iter()
                    .enumerate()
                    .map(|(r, (id, lp))| {
                        (id.to_string(), serde_json::json!({"logprob": lp, "rank": r + 1, "decoded_token": ""}))
                    })
                    .collect();
                entries.push(Value::Object(map));
            })
            .unwrap();
            return stub::Answer::Json(
                200,
                serde_json::json!({
                    "choices": [{"index": 0, "text": "", "token_ids": [], "finish_reason": "length", "prompt_logprobs": entries}],
                    "usage": {"prompt_tokens": prompt.len(), "completion_tokens": 1}
                }),
            );
        }
        let text = "<think>\nCount the customers.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT COUNT(*) FROM customers\"}}";
        let mut ids: Vec<i32> = m.tokenize(text, false).iter().map(|t| t.0).collect();
        ids.push(m.tokenize("<|im_end|>", false)[0].0);
        stub::Answer::Json(
            200,
            serde_json::json!({
                "choices": [{"index": 0, "text": text, "token_ids": ids, "finish_reason": "stop", "stop_reason": ids.last()}],
                "usage": {"prompt_tokens": prompt.len(), "completion_tokens": ids.len(), "prompt_tokens_details": {"cached_tokens": 0}}
            }),
        )
    })
}

#[test]
fn a_reference_on_a_vllm_server_is_measured_along_its_own_token_ids() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let server = vllm_backed_by(common::test_model());
    let smol = common::test_model().display().to_string();
    let out = dir.path().join("out");
    let run = |out: &Path, model: &str| {
        sqale(&[
            "eval",
            "--bench",
            &bench(),
            "--limit",
            "2",
            "--max-episode-tokens",
            "1500",
            "--ctx",
            "2048",
            "--json",
            "-o",
            out.to_str().unwrap(),
            "--reference-server",
            &server.url,
            "--model",
            model,
            "--kld-only",
            "--kld-top-k",
            "8",
        ])
    };
    let o = run(&out, &smol);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The reference's distributions were asked of the server, top 8, once per episode.
    let asked: Vec<_> =
        server.requests("/v1/completions").into_iter().filter(|s| s.body.get("prompt_logprobs").is_some()).collect();
    assert_eq!(asked.len(), 2);
    assert!(asked.iter().all(|s| s.body["prompt_logprobs"] == 8 && s.body["max_tokens"] == 1));
    let transcripts = lines(&out.join("divergence/transcripts.jsonl"));
    assert!(
        transcripts.iter().all(|t| t["ids"].as_array().is_some_and(|a| a.len() > 100)),
        "the server's ids are kept"
    );
    // The same weights here and behind the server: the divergence is (nearly) none, at every
    // place of the canned turn. An off-by-one position would be far from 0.
    let s = summary(&out);
    let d = &s["divergence"][0];
    assert_eq!(d["model"], "SmolLM2-135M-Instruct.Q4_1.gguf");
    assert_eq!(d["questions"], 2, "{d}");
    assert!(d["mean_kld"]["value"].as_f64().unwrap() < 1e-3, "{d}");
    assert!(d["top1"]["value"].as_f64().unwrap() > 99.0, "{d}");
    let places: Vec<&str> = d["by_place"].as_array().unwrap().iter().map(|p| p["place"].as_str().unwrap()).collect();
    // The canned turn: thinking, the blank line after it (answer text), the call and its SQL.
    assert_eq!(places, vec!["thinking", "tool_call", "sql", "answer"], "{d}");
    assert_eq!(d["first_divergence"]["same"], 2, "{d}");
    // A model with another vocabulary: refused, naming why.
    let tiny_gguf = tiny(dir.path(), &["f32"]).remove(0);
    let o = run(&dir.path().join("other"), tiny_gguf.to_str().unwrap());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tokenizes the episode otherwise than the reference's server"), "{err}");
}

#[test]
fn shards_measured_apart_merge_into_one_report() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let files = tiny(dir.path(), &["f32", "q4_0"]);
    let (a, b, merged) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("m"));
    for (out, shard) in [(&a, "1/2"), (&b, "2/2")] {
        let o = eval(out, &files[0], &[&files[1]], 3, &["--kld-only", "--shard", shard]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let questions = |out: &Path, model: &str| -> u64 {
        let s = summary(out);
        let m = s["divergence"].as_array().unwrap().iter().find(|m| m["model"] == model).cloned().unwrap();
        m["questions"].as_u64().unwrap()
    };
    let q4 = "tiny-untied-q4_0.gguf";
    let (qa, qb) = (questions(&a, q4), questions(&b, q4));
    assert!(qa > 0 && qb > 0);
    let o =
        sqale(&["eval", "merge", a.to_str().unwrap(), b.to_str().unwrap(), "-o", merged.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(questions(&merged, q4), qa + qb);
    assert_eq!(questions(&merged, "tiny-untied-f32.gguf"), qa + qb);
    assert_eq!(std::fs::read_dir(merged.join("divergence/reference")).unwrap().count() as u64, qa + qb);
    // A folder measured against another reference is not merged in.
    let other = dir.path().join("other");
    let o = eval(&other, &files[1], &[], 1, &["--kld-only"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = sqale(&[
        "eval",
        "merge",
        a.to_str().unwrap(),
        other.to_str().unwrap(),
        "-o",
        dir.path().join("m2").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds divergence data against"));
}

/// The value llama-perplexity printed after `label` (a line `label: value`, spaces around).
fn grab(log: &str, label: &str) -> f64 {
    log.lines()
        .find_map(|l| {
            let rest = l.trim_start().strip_prefix(label)?.trim_start().strip_prefix(':')?;
            rest.split_whitespace().next()?.trim_end_matches('%').parse().ok()
        })
        .unwrap_or_else(|| {
            panic!("llama-perplexity printed no {label:?}; its log ends: {}", &log[log.len().saturating_sub(1500)..])
        })
}

/// llama-perplexity's whole `--kl-divergence` table (PPL(Q), PPL(base), their ln ratio, Cor(ln
/// PPL), the KLD's and Δp's percentiles, maximum and minimum, same top p) against sqale's, from
/// the function the reports use, on the same text and files: the tiny `qwen35` fixture's f32
/// conversion as the reference, its q8_0 and q4_k_m as the models (as docs/measurements.md's
/// check), 255 scored tokens of the README. Tolerances as `benches/kld-vs-llama.sh` states them
/// (llama.cpp keeps the reference's log-probabilities as 16-bit values). The fixture's near-flat
/// distributions keep every token within the 16 nats of the most probable one that llama.cpp's
/// reference file holds; on text a model cannot predict, its PPL(base) would measure that clamp.
#[test]
fn the_whole_table_matches_llama_perplexity_on_the_same_text() {
    let _g = common::one_at_a_time();
    let perplexity = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/llama.cpp/bin/llama-perplexity");
    assert!(
        perplexity.is_file(),
        "{} missing: run `bash .ci/fetch-models` (it builds llama.cpp's tools)",
        perplexity.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let files = tiny(dir.path(), &["f32", "q8_0", "q4_k_m"]);
    let reference = &files[0];
    let text_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let text = std::fs::read_to_string(&text_path).unwrap();
    let (ctx, base) = (512, dir.path().join("base.kld"));
    // llama.cpp's log thread drops what it has not written yet when the process exits (more
    // often on a loaded machine), the statistics last of all: a run whose log lacks `last` is
    // tried again, ten times at most.
    let run = |m: &Path, extra: &[&str], last: &str| {
        let mut log = String::new();
        for _ in 0..10 {
            let mut c = Command::new(&perplexity);
            c.arg("-m").arg(m).arg("-f").arg(&text_path);
            c.args(["-c", "512", "-b", "512", "--chunks", "1", "-t", "2", "-fa", "off", "-ctk", "f32", "-ctv", "f32"]);
            c.arg("--kl-divergence-base").arg(&base).args(extra);
            let o = c.output().unwrap();
            log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            assert!(o.status.success(), "{log}");
            if log.contains(last) {
                break;
            }
        }
        log
    };
    run(reference, &[], "");
    for model in &files[1..] {
        let log = run(model, &["--kl-divergence"], "Same top p");
        let t = sqale::divergence::text::table(reference, model, &text, ctx, 1, 2).unwrap();
        assert_eq!(t.tokens, ctx - ctx / 2 - 1);
        let mut checks: Vec<(String, f64, f64, f64)> = vec![
            ("Mean PPL(Q)".into(), t.ppl, 0.01, 1e-4),
            ("Mean PPL(base)".into(), t.ppl_base, 0.01, 1e-4),
            // A difference of two logs: 1 % of either perplexity is 0.01 of it.
            ("Mean ln(PPL(Q)/PPL(base))".into(), t.ln_ratio, 0.0, 0.01),
            ("Cor(ln(PPL(Q)), ln(PPL(base)))".into(), 100.0 * t.cor, 0.0, 0.5),
            ("Mean    KLD".into(), t.mean_kld, 0.01, 1e-4),
            ("Mean    Δp".into(), 100.0 * t.mean_dp, 0.01, 0.01),
            ("RMS Δp".into(), 100.0 * t.rms_dp, 0.01, 0.01),
            ("Same top p".into(), 100.0 * t.same_top, 0.0, 1.0),
        ];
        let label = |name: &str, what: &str| match name {
            "Maximum" | "Minimum" => format!("{name} {what}"),
            "Median" => format!("{name}  {what}"),
            _ => format!("{name}   {what}"),
        };
        // A percentile of 255 tokens is one token's figure: where the two cut the chunk into
        // batches otherwise, the CPU backend's repacked q4_K rows round a few logits otherwise.
        for ((name, _), v) in sqale::divergence::report::KLD_PERCENTILES.iter().zip(&t.kld) {
            checks.push((label(name, "KLD"), *v, 0.03, 1e-4));
        }
        for ((name, _), v) in sqale::divergence::report::DP_PERCENTILES.iter().zip(&t.dp) {
            checks.push((label(name, "Δp"), 100.0 * v, 0.03, 0.01));
        }
        let mut differ = Vec::new();
        for (name, ours, rel, tol) in &checks {
            let theirs = grab(&log, name);
            eprintln!("{} {name:<34} llama.cpp {theirs:12.6} sqale {ours:12.6}", model.display());
            if (ours - theirs).abs() > rel * theirs.abs() + tol {
                differ.push(format!("{name}: llama.cpp {theirs}, sqale {ours}"));
            }
        }
        assert!(differ.is_empty(), "{}: beyond the tolerance: {differ:#?}", model.display());
        assert!(t.mean_kld > 0.0 && t.same_top < 1.0, "a quantised file differs from its f32: {t:?}");
    }
}
