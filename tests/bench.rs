//! `sqale::bench` on the test model with tiny sizes: the typed reports hold together, and
//! `sqale bench --json` prints the fields it always has (and the speculation section when asked).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use sqale::bench::{self, SpeculationSetup, SpeedSizes};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::EndedBy;

fn keys(v: &serde_json::Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn set<'a>(names: &[&'a str]) -> BTreeSet<&'a str> {
    names.iter().copied().collect()
}

const SPEED_KEYS: &[&str] = &[
    "model",
    "params",
    "size_bytes",
    "threads",
    "batch",
    "kv_type",
    "pp_tokens",
    "pp_tps_mean",
    "pp_tps_sd",
    "tg_tokens",
    "tg_tps_mean",
    "tg_tps_sd",
    "depth",
];

#[test]
fn speed_and_replay_reports_hold_together() {
    let path = common::test_model();
    let model = Model::load(&path, &ModelOptions { gpu_layers: Some(0), ..Default::default() }).unwrap();
    // One thread: the test machines are small and shared, and llama.cpp's threads wait on each
    // other badly when another process takes a core.
    let options = EngineOptions { ctx: 4096, threads: Some(1), batch: 256, ..Default::default() };
    let mut engine = Engine::new(&model, options.clone()).unwrap();

    let mut calls = Vec::new();
    let r = bench::speed(&mut engine, &options, SpeedSizes { pp: 16, tg: 4, reps: 2, depth: 0 }, &mut |rep, reps| {
        calls.push((rep, reps))
    })
    .unwrap();
    assert_eq!(calls, [(0, 2), (1, 2), (2, 2)], "warm-up, then each timed repetition");
    assert_eq!((r.pp_tokens, r.tg_tokens, r.threads, r.batch), (16, 4, Some(1), 256));
    assert_eq!(r.kv_type, "f16", "the default KV cache");
    assert_eq!(r.model, path.display().to_string());
    assert!(r.params > 100_000_000 && r.size_bytes > 90_000_000, "{r:?}");
    for rate in [r.pp_tps_mean, r.tg_tps_mean] {
        assert!(rate.is_finite() && rate > 0.0, "{r:?}");
    }
    assert!(r.pp_tps_sd.is_finite() && r.pp_tps_sd >= 0.0 && r.tg_tps_sd >= 0.0, "{r:?}");
    assert!(r.episode.is_none());
    assert_eq!(keys(&serde_json::to_value(&r).unwrap()), set(SPEED_KEYS));

    // The six-turn replay takes a minute on two busy cores (`sqale bench --episode` runs it): a
    // two-turn script here.
    let script = TWO_TURNS;
    let t = std::time::Instant::now();
    let mut steps = Vec::new();
    let e = bench::replay_script(
        &mut engine,
        &script,
        "How many suppliers are there?",
        &common::demo_db(),
        None,
        &mut |s| steps.push((s.what, s.done, s.total)),
    )
    .unwrap();
    // Each part is heard as it starts and as each assistant turn ends.
    let turns = |what| (0..=2).map(move |done| (what, done, 2));
    assert_eq!(steps, turns("cached").chain(turns("re-decode")).collect::<Vec<_>>());
    assert_eq!(e.scripted_ended_by, EndedBy::SubmitSql);
    assert_eq!((e.tool_turns, e.turns), (2, 2), "submit_sql is a tool turn");
    assert!(0 < e.generated_tokens && e.generated_tokens < e.context_tokens, "{e:?}");
    assert_eq!(e.cached_decoded_tokens, e.context_tokens, "with the cache every token is decoded once");
    // Re-decoding decodes, before each assistant turn, everything before it again: more than
    // once through, at most once per turn.
    assert!(
        e.cached_decoded_tokens < e.redecode_decoded_tokens && e.redecode_decoded_tokens <= 2 * e.context_tokens,
        "{e:?}"
    );
    assert!(e.cached_seconds > 0.0 && e.redecode_seconds > 0.0, "{e:?}");
    assert_eq!(e.redecode_over_cached, e.redecode_seconds / e.cached_seconds);
    assert!(e.live.is_none());
    eprintln!(
        "replay of {} tokens: {:.1} s (cached {:.1} s, re-decoding {:.1} s)",
        e.context_tokens,
        t.elapsed().as_secs_f64(),
        e.cached_seconds,
        e.redecode_seconds
    );
    let j = serde_json::to_value(&e).unwrap();
    assert_eq!(j["scripted_ended_by"], "submit_sql");
    assert_eq!(j["question"], "How many suppliers are there?");
    assert_eq!(
        keys(&j),
        set(&[
            "question",
            "scripted_ended_by",
            "tool_turns",
            "turns",
            "context_tokens",
            "generated_tokens",
            "cached_decoded_tokens",
            "redecode_decoded_tokens",
            "cached_seconds",
            "redecode_seconds",
            "redecode_over_cached"
        ])
    );

    // At depth: the figures of each depth, the first's on top; the filler counts against the
    // context.
    let mut seen = Vec::new();
    let sizes = SpeedSizes { pp: 8, tg: 2, reps: 1, depth: 0 };
    let d =
        bench::speed_at_depths(&mut engine, &options, sizes, &[0, 300], &mut |depth, rep, _| seen.push((depth, rep)))
            .unwrap();
    assert_eq!(seen, [(0, 0), (0, 1), (300, 0), (300, 1)]);
    assert_eq!(d.depths.iter().map(|x| x.depth).collect::<Vec<_>>(), [0, 300]);
    assert_eq!((d.depth, d.pp_tps_mean), (0, d.depths[0].pp_tps_mean));
    assert!(d.depths.iter().all(|x| x.pp_tps_mean > 0.0 && x.tg_tps_mean > 0.0), "{d:?}");
    let deep = SpeedSizes { pp: 8, tg: 2, reps: 1, depth: 4090 };
    let err = bench::speed(&mut engine, &options, deep, &mut |_, _| {}).unwrap_err();
    assert!(matches!(err, bench::BenchError::Decode(sqale::generate::GenerateError::ContextFull { .. })), "{err}");

    // An f16 KV cache, asked for.
    let f16 = EngineOptions { kv_type: sqale::engine::KvType::F16, ..options.clone() };
    let mut half = Engine::new(&model, f16.clone()).unwrap();
    let h = bench::speed(&mut half, &f16, sizes, &mut |_, _| {}).unwrap();
    assert_eq!(h.kv_type, "f16");
    assert!(h.tg_tps_mean > 0.0);
    drop(half);

    // The engine is usable afterwards, and a measurement that cannot fit says so.
    let err = bench::speed(&mut engine, &options, SpeedSizes { pp: 5000, tg: 1, reps: 1, depth: 0 }, &mut |_, _| {})
        .unwrap_err();
    assert!(
        matches!(
            err,
            bench::BenchError::Decode(sqale::generate::GenerateError::ContextFull { needed: 5000, capacity: 4096 })
        ),
        "{err}"
    );
}

/// The two-turn script the replays here use (the six-turn one takes a minute on two busy cores).
const TWO_TURNS: [&str; 2] = [
    "<think>\nLet me see the tables.\n</think>\n\n{\"tool\": \"list_tables\", \"args\": {}}",
    "<think>\nCount the suppliers.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT COUNT(*) FROM suppliers\"}}",
];

#[test]
fn speculation_bench_measures_every_draft_length_and_the_oracle_plays_the_plain_run() {
    let path = common::test_model();
    let model = Model::load(&path, &ModelOptions { gpu_layers: Some(0), ..Default::default() }).unwrap();
    // Greedy: a verify batch's rows match one-token decoding bit for bit only in the first verify
    // step after appended text; in later ones SmolLM2's logits differ by up to ~0.9 (measured
    // with the working tree of b018cf1), so a sampled oracle run drifts from the plain run after
    // a dozen tokens while the argmax holds.
    let options = EngineOptions { ctx: 4096, threads: Some(1), batch: 256, temperature: 0.0, ..Default::default() };
    let setup = SpeculationSetup { question: bench::replay::QUESTION.to_string(), tokens: 32, reps: 1, seed: 1 };
    let mut steps = Vec::new();
    let t = std::time::Instant::now();
    let s = bench::speculation(&model, &options, &setup, &mut |step| steps.push(step.to_string())).unwrap();
    eprintln!("speculation bench: {:.1} s", t.elapsed().as_secs_f64());
    assert!(steps.first().is_some_and(|s| s.contains("k=1")) && steps.len() > 16, "{steps:?}");

    let ks: Vec<usize> = s.cost.rows.iter().map(|r| r.k).collect();
    assert_eq!(ks, (1..=8).collect::<Vec<_>>());
    assert!(s.cost.context_tokens > 100 && s.cost.drafts == "rejected", "{:?}", s.cost);
    assert_eq!(s.cost.replays, 0, "a transformer rolls back in place");
    assert!(s.cost.plain_seconds.is_finite() && s.cost.plain_seconds > 0.0);
    for r in &s.cost.rows {
        assert_eq!(r.rows, r.k + 1);
        for x in [r.verify_seconds, r.plain_seconds, r.relative_cost] {
            assert!(x.is_finite() && x > 0.0, "{r:?}");
        }
    }

    let o = &s.oracle;
    assert_eq!((o.seed, o.temperature), (1, 0.0));
    assert!(o.generated_tokens > 0 && o.generated_tokens <= 32 && o.prompt_tokens == s.cost.context_tokens, "{o:?}");
    assert!(o.plain_repeatable, "the same seed samples the same tokens");
    assert_eq!(o.runs.iter().map(|r| r.k).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
    for r in &o.runs {
        // Verify rows are bit-identical to one-token decoding here (f32 KV cache on the CPU).
        assert!(r.identical, "k={}: the oracle run's tokens differ from the plain run's", r.k);
        assert!(r.given.drafted > 0 && r.given.accepted == r.given.drafted && r.acceptance == 1.0, "{r:?}");
        assert!(r.tokens_per_step > 1.0, "{r:?}");
        for x in [r.seconds, r.tokens_per_second, r.speedup] {
            assert!(x.is_finite() && x > 0.0, "{r:?}");
        }
    }

    assert_eq!(s.expected.iter().map(|e| e.acceptance).collect::<Vec<_>>(), [0.5, 0.7, 0.9]);
    for e in &s.expected {
        assert!((1..=8).contains(&e.best_k) && e.planner_k <= 8, "{e:?}");
        assert!(e.speedup.is_finite() && e.speedup > 0.0 && e.relative_cost > 0.0, "{e:?}");
        let k = e.best_k;
        let row = &s.cost.rows[k - 1];
        assert!((e.relative_cost - row.relative_cost).abs() < 1e-9, "{e:?} {row:?}");
    }

    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(keys(&j), set(&["question", "reps", "cost", "oracle", "expected"]));
    assert_eq!(
        keys(&j["cost"]),
        set(&["context_tokens", "drafts", "drafts_accepted", "replays", "plain_seconds", "rows"])
    );
    assert_eq!(keys(&j["cost"]["rows"][0]), set(&["k", "rows", "verify_seconds", "plain_seconds", "relative_cost"]));
    assert_eq!(
        keys(&j["oracle"]),
        set(&[
            "prompt_tokens",
            "generated_tokens",
            "seed",
            "temperature",
            "plain_seconds",
            "plain_seconds_sd",
            "plain_tokens_per_second",
            "plain_repeatable",
            "runs"
        ])
    );
    assert_eq!(
        keys(&j["oracle"]["runs"][0]),
        set(&["k", "seconds", "tokens_per_second", "speedup", "given", "acceptance", "tokens_per_step", "identical"])
    );
    assert_eq!(
        keys(&j["expected"][0]),
        set(&["acceptance", "best_k", "tokens_per_step", "relative_cost", "speedup", "planner_k"])
    );

    // The replay with speculation off and on (what `sqale bench` makes of `auto` on this file:
    // prompt lookup).
    let options = EngineOptions { speculate: sqale::speculate::Speculate::Lookup, ..options };
    let mut engine = Engine::new(&model, options).unwrap();
    let mut steps = Vec::new();
    let r = bench::replay_speculation(
        &mut engine,
        &TWO_TURNS,
        "How many suppliers are there?",
        &common::demo_db(),
        &mut |s| steps.push((s.what, s.done, s.total)),
    )
    .unwrap();
    // Off, then on: each heard as it starts and as each assistant turn ends.
    let turns = |what| (0..=2).map(move |done| (what, done, 2));
    assert_eq!(steps, turns("speculation off").chain(turns("speculation on")).collect::<Vec<_>>());
    assert_eq!(r.speculate, sqale::speculate::Speculate::Lookup);
    assert!(r.counts.lookup.steps > 0 && r.counts.lookup.accepted <= r.counts.lookup.drafted, "{r:?}");
    assert!(0 < r.generated_tokens && r.generated_tokens < r.context_tokens, "{r:?}");
    assert!(r.off_seconds > 0.0 && r.on_seconds > 0.0 && r.off_over_on > 0.0, "{r:?}");
    assert!(r.generated_off_seconds <= r.off_seconds && r.generated_on_seconds <= r.on_seconds, "{r:?}");
    assert!(r.lookup_tokens_per_step >= 1.0, "{r:?}");
    // The conversation came out whole: every token in place, the last decoded once.
    assert_eq!(engine.tokens().len(), r.context_tokens);
    assert_eq!(
        keys(&serde_json::to_value(&r).unwrap()),
        set(&[
            "speculate",
            "context_tokens",
            "generated_tokens",
            "off_seconds",
            "on_seconds",
            "off_over_on",
            "generated_off_seconds",
            "generated_on_seconds",
            "counts",
            "lookup_tokens_per_step",
            "lookup_acceptance"
        ])
    );
}

#[test]
fn cli_json_keeps_its_fields_and_rejects_bad_parallel_values() {
    let model = common::test_model();
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args([
            "bench",
            "--model",
            model.to_str().unwrap(),
            "--pp",
            "8",
            "--tg",
            "2",
            "--reps",
            "1",
            "--ctx",
            "512",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys(&j), set(SPEED_KEYS));
    assert_eq!((j["pp_tokens"].as_u64(), j["tg_tokens"].as_u64(), j["batch"].as_u64()), (Some(8), Some(2), Some(512)));
    assert!(j["threads"].is_null(), "threads not asked for: {j}");
    // Keys come out sorted, as before (compared by position: re-printing parsed floats could
    // change their last digit).
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut sorted: Vec<&str> = SPEED_KEYS.to_vec();
    sorted.sort_unstable();
    let positions: Vec<usize> =
        sorted.iter().map(|k| stdout.find(&format!("\"{k}\":")).expect("key printed")).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "keys sorted, as before: {stdout}");

    // Without --json, into a pipe: progress comes as plain lines.
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["bench", "--model", model.to_str().unwrap(), "--pp", "8", "--tg", "2", "--reps", "1", "--ctx", "512"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.lines().any(|l| l.starts_with("depth 0: 1/1 reps (")), "{err}");

    // --speculation adds its section and nothing else changes.
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["bench", "--model", model.to_str().unwrap(), "--pp", "8", "--tg", "4", "--reps", "1"])
        .args(["--ctx", "2048", "--threads", "1", "--speculation", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut with = set(SPEED_KEYS);
    with.insert("speculation");
    assert_eq!(keys(&j), with);
    let s = &j["speculation"];
    assert_eq!(s["cost"]["rows"].as_array().map(Vec::len), Some(8));
    assert_eq!(s["oracle"]["runs"].as_array().map(Vec::len), Some(8));
    assert_eq!(s["expected"].as_array().map(Vec::len), Some(3));

    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["bench", "--eval-bench", "x.jsonl", "--parallel", "0,2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--parallel takes values 1-64") && err.contains("[0, 2]"), "{err}");
}
