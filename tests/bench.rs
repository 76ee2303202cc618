//! `sqale::bench` on the test model with tiny sizes: the typed reports hold together, and
//! `sqale bench --json` prints the fields it always has.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use sqale::bench::{self, SpeedSizes};
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
    "pp_tokens",
    "pp_tps_mean",
    "pp_tps_sd",
    "tg_tokens",
    "tg_tps_mean",
    "tg_tps_sd",
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
    let r = bench::speed(&mut engine, &options, SpeedSizes { pp: 16, tg: 4, reps: 2 }, &mut |rep, reps| {
        calls.push((rep, reps))
    })
    .unwrap();
    assert_eq!(calls, [(0, 2), (1, 2), (2, 2)], "warm-up, then each timed repetition");
    assert_eq!((r.pp_tokens, r.tg_tokens, r.threads, r.batch), (16, 4, Some(1), 256));
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
    let script = [
        "<think>\nLet me see the tables.\n</think>\n\n{\"tool\": \"list_tables\", \"args\": {}}",
        "<think>\nCount the suppliers.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT COUNT(*) FROM suppliers\"}}",
    ];
    let t = std::time::Instant::now();
    let e =
        bench::replay_script(&mut engine, &script, "How many suppliers are there?", &common::demo_db(), None).unwrap();
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

    // The engine is usable afterwards, and a measurement that cannot fit says so.
    let err = bench::speed(&mut engine, &options, SpeedSizes { pp: 5000, tg: 1, reps: 1 }, &mut |_, _| {}).unwrap_err();
    assert!(
        matches!(
            err,
            bench::BenchError::Decode(sqale::generate::GenerateError::ContextFull { needed: 5000, capacity: 4096 })
        ),
        "{err}"
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

    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["bench", "--eval-bench", "x.jsonl", "--parallel", "0,2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--parallel takes values 1-64") && err.contains("[0, 2]"), "{err}");
}
