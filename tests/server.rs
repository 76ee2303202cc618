//! The agent and the evaluation on a real llama.cpp server (`llama-server`'s code, from the
//! PyPI wheel `xllamacpp` that `.ci/fetch-models` installs into models/.venv), on 127.0.0.1:
//! episodes through `ask --server` against the same file in-process, the server's prefix cache
//! turn by turn on SmolLM2 and on the hybrid `qwen35` fixture, an evaluation on two servers with
//! one killed midway, and a server with an API key.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sqale::generate::Generator;
use sqale::prompt::Prompt;
use sqale::remote::{Pool, PoolOptions, RemoteGenerator, Sampling};

#[path = "support/llama_server.rs"]
mod llama_server;
use llama_server::LlamaServer;

fn sqale(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).env_remove("SQALE_API_KEY").output().expect("run sqale")
}

/// `sqale ask --json`'s answer; its exit status says whether it has rows to show (0) or not (1).
fn json_of(out: &std::process::Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON on stdout ({e}): {stderr}"));
    assert_eq!(out.status.code(), Some(if v["rows"].is_null() { 1 } else { 0 }), "{stderr}");
    v
}

const QUESTION: &str = "Which supplier shipped the most back-ordered items?";

/// Greedy: the episode through the server and in-process on the same file. The two llama.cpp
/// builds (the wheel's and sqale's) may round differently; how far they agree is printed, and
/// the first turn, decoded from the same prompt, must start with the same text. Each turn's
/// request reuses everything the server decoded before it.
#[test]
fn ask_through_llama_server_matches_in_process_and_reuses_each_turns_prefix() {
    let _g = common::one_at_a_time();
    let model = common::test_model();
    let server = LlamaServer::start(&model, 1, 8192, None);
    let db = common::demo_db();
    let before = common::sha256(&db);
    let common_args = ["--temp", "0", "--max-episode-tokens", "1400", "--seed", "3", "--json"];
    let mut remote_args = vec!["ask", "--server", &server.url];
    remote_args.extend(common_args);
    remote_args.push(QUESTION);
    let remote = json_of(&sqale(&remote_args));
    let model_arg = model.display().to_string();
    let mut local_args = vec!["ask", "--model", &model_arg];
    local_args.extend(common_args);
    local_args.push(QUESTION);
    let local = json_of(&sqale(&local_args));
    assert_eq!(common::sha256(&db), before);
    assert!(remote["model"].as_str().unwrap().contains("@ llama-server http://127.0.0.1:"), "{}", remote["model"]);
    assert_eq!(remote["servers"][0]["kind"], "llama-server");
    let turns = |v: &Value| -> Vec<String> {
        v["episode"]["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["completion"].as_str().unwrap().to_string())
            .collect()
    };
    let (r, l) = (turns(&remote), turns(&local));
    let same = r.iter().zip(&l).take_while(|(a, b)| a == b).count();
    eprintln!(
        "greedy through llama-server vs in-process: {same} of {} / {} turns identical; ended {} / {}",
        r.len(),
        l.len(),
        remote["episode"]["ended_by"],
        local["episode"]["ended_by"]
    );
    // The first turn starts from the same prompt; greedy decoding on two builds' kernels may
    // part at a near-tie later in it (seen at character 45 after the KV cache went to f16).
    let (r0, l0) = (r.first().cloned().unwrap_or_default(), l.first().cloned().unwrap_or_default());
    let agree = r0.chars().zip(l0.chars()).take_while(|(a, b)| a == b).count();
    eprintln!("first turn: the first {agree} characters agree");
    assert!(agree >= 20, "the first turn differs from its start:\nserver: {r0:?}\nin-process: {l0:?}");
    // The cache claim, turn by turn, from the server's own counters.
    let t = remote["episode"]["turns"].as_array().unwrap();
    let mut previous: Option<(u64, u64)> = None;
    for turn in t {
        let c = &turn["server_cache"];
        let (prompt, cached, decoded) =
            (c["prompt"].as_u64().unwrap(), c["cached"].as_u64().unwrap(), c["decoded"].as_u64().unwrap());
        assert_eq!(cached + decoded, prompt, "{c}");
        if let Some((p, g)) = previous {
            // Everything sent and generated before, but for the last sampled token, which was
            // not decoded (as in sqale's own engine).
            assert!(cached + 1 >= p + g, "turn reused {cached} of {} tokens: {c}", p + g);
        }
        previous = Some((prompt, turn["tokens"].as_u64().unwrap()));
    }
}

/// The hybrid `qwen35` fixture (recurrent state plus attention) through the server: each
/// request reuses everything before it, as the in-process engine does.
#[test]
fn qwen35_through_llama_server_reuses_everything_before_each_turn() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let gguf = common::convert_tiny("untied", "f16", dir.path());
    let server = LlamaServer::start(&gguf, 1, 4096, None);
    let pool = Pool::connect(&[&server.url], PoolOptions::default()).unwrap();
    let mut g = RemoteGenerator::new(&pool, Sampling { temperature: 0.0, top_p: 1.0, top_k: 0 });
    let prompt = Prompt::default();
    g.begin_markup(&prompt.shared_prefix(), 1).unwrap();
    g.append_markup(&prompt.first_turn(&prompt.user_turn("How many orders?", None).unwrap()), usize::MAX).unwrap();
    let mut reused = Vec::new();
    let mut before = 0usize;
    for k in 0..3 {
        let sent = g.ids().len();
        let c = g.complete(12, &mut |_| {}).unwrap();
        let cache = g.last_cache().unwrap();
        assert_eq!(cache.prompt, sent);
        let cached = cache.cached.unwrap();
        if k > 0 {
            assert!(cached + 1 >= before, "request {k}: {cached} of {before} tokens reused");
        }
        reused.push((cached, cache.decoded.unwrap()));
        before = g.ids().len();
        assert_eq!(before, sent + c.tokens);
        g.append("<|im_end|>\n<|im_start|>user\nmore\n<|im_end|>\n<|im_start|>assistant\n", usize::MAX).unwrap();
    }
    eprintln!("qwen35 through llama-server, (cached, decoded) per request: {reused:?}");

    // Tokenising on the client with the checkpoint's tokenizer.json gives the server's ids.
    let tokenizer = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny/untied/tokenizer.json");
    let local = Pool::connect(&[&server.url], PoolOptions { tokenizer: Some(tokenizer), ..PoolOptions::default() })
        .expect("the fixture's tokenizer agrees with the server's");
    assert_eq!(local.stop_ids(), pool.stop_ids());
    let mut h = RemoteGenerator::new(&local, Sampling { temperature: 0.0, top_p: 1.0, top_k: 0 });
    h.begin_markup(&prompt.shared_prefix(), 1).unwrap();
    h.append_markup(&prompt.first_turn(&prompt.user_turn("How many orders?", None).unwrap()), usize::MAX).unwrap();
    let mut server_side = RemoteGenerator::new(&pool, Sampling { temperature: 0.0, top_p: 1.0, top_k: 0 });
    server_side.begin_markup(&prompt.shared_prefix(), 1).unwrap();
    server_side
        .append_markup(&prompt.first_turn(&prompt.user_turn("How many orders?", None).unwrap()), usize::MAX)
        .unwrap();
    assert_eq!(h.ids(), server_side.ids());
}

/// Two servers, one killed while the evaluation runs: every question ends as exactly one
/// record and none failed.
#[test]
fn eval_on_two_llama_servers_survives_one_killed_midway() {
    let _g = common::one_at_a_time();
    let model = common::test_model();
    let a = LlamaServer::start(&model, 1, 4096, None);
    let mut b = LlamaServer::start(&model, 1, 4096, None);
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.jsonl");
    let db = common::demo_db();
    let questions = [
        "How many customers are there?",
        "How many orders are there?",
        "How many products are there?",
        "How many suppliers are there?",
    ];
    let lines: Vec<String> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            serde_json::json!({"id": format!("q{i}"), "db": db, "question": q, "gold_sql": "SELECT 1"}).to_string()
        })
        .collect();
    std::fs::write(&manifest, lines.join("\n")).unwrap();
    let out = dir.path().join("out");
    let mut run = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["eval", "--bench"])
        .arg(&manifest)
        .args([
            "--server",
            &a.url,
            "--server",
            &b.url,
            "--parallel",
            "2",
            "--max-episode-tokens",
            "800",
            "--json",
            "-o",
        ])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let episodes = out.join("episodes.jsonl");
    let until = Instant::now() + Duration::from_secs(600);
    while std::fs::read_to_string(&episodes).map_or(0, |s| s.lines().count()) < 1 {
        assert!(Instant::now() < until, "no episode finished");
        assert!(run.try_wait().unwrap().is_none(), "eval ended early");
        std::thread::sleep(Duration::from_millis(200));
    }
    b.kill();
    let done = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    let records = sqale::eval::read_records(&episodes);
    let mut ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["q0", "q1", "q2", "q3"], "each question once");
    assert!(records.iter().all(|r| r.error.is_none() && r.episode.is_some()), "none failed: {stderr}");
    let models: Value = serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
    let entry = models.as_object().unwrap().values().next().unwrap();
    assert_eq!(entry["servers"].as_array().unwrap().len(), 2);
    eprintln!("{stderr}");
}

/// A server with an API key: without it, `ask` stops with a message naming the fix; with
/// `SQALE_API_KEY` it runs, and the key is not printed.
#[test]
fn a_server_with_an_api_key_needs_it() {
    let _g = common::one_at_a_time();
    let server = LlamaServer::start(&common::test_model(), 1, 4096, Some("sekret-key"));
    let out = sqale(&["ask", "--server", &server.url, "--max-episode-tokens", "700", "--json", QUESTION]);
    assert_eq!(out.status.code(), Some(2), "an error, not an episode without an answer");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unauthorized") && err.contains("SQALE_API_KEY"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "sekret-key\n").unwrap();
    let key_arg = key_file.display().to_string();
    let out = sqale(&[
        "ask",
        "--server",
        &server.url,
        "--server-api-key-file",
        &key_arg,
        "--max-episode-tokens",
        "700",
        "--json",
        QUESTION,
    ]);
    let v = json_of(&out);
    assert!(v["episode"]["ended_by"].is_string());
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("sekret")
            && !String::from_utf8_lossy(&out.stderr).contains("sekret")
    );
}
