//! `sqale pull` and `sqale ask` without `--model`, against a Hugging Face cache laid out as
//! hf-hub and huggingface_hub lay it out (Hugging Face itself is unreachable here), offline.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const REPO_DIR: &str = "models--trl-lab--qwen3.5-2b-grpo-synsql";
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn sqale(hf_home: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(args)
        .env("HF_HOME", hf_home)
        .env("XDG_CACHE_HOME", cache)
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap()
}

/// A cached snapshot of the default model: the tiny fixture checkpoint, plus a reference loop.
fn populate_hf_cache(hf_home: &Path) -> PathBuf {
    let repo = hf_home.join("hub").join(REPO_DIR);
    let snap = repo.join("snapshots").join(COMMIT);
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), COMMIT).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny/untied");
    for e in std::fs::read_dir(fixture).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), snap.join(e.file_name())).unwrap();
    }
    std::fs::write(
        snap.join("sqale_agent.py"),
        "SYSTEM_PROMPT = \"You are the reference agent.\"\nUSER_TEMPLATE = \"Schema hidden. Question: {question}\"\n",
    )
    .unwrap();
    snap
}

#[test]
fn offline_without_a_cached_model_says_what_to_do() {
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("trl-lab/qwen3.5-2b-grpo-synsql is not in the Hugging Face cache"), "{err}");
    assert!(err.contains("sqale pull synsql") && err.contains("--model"), "{err}");

    let out = sqale(hf.path(), cache.path(), &["ask", "How many orders?"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HF_HUB_OFFLINE") && err.contains("--model"), "{err}");
}

#[test]
fn pull_converts_from_the_cache_records_checksums_and_ask_uses_it() {
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let snap = populate_hf_cache(hf.path());
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dir = cache.path().join("sqale/models/trl-lab--qwen3.5-2b-grpo-synsql/main");
    let gguf = dir.join("q4_k_m.gguf");
    assert!(gguf.is_file());
    assert_eq!(manifest["gguf_sha256"], common::sha256(&gguf));
    assert_eq!(manifest["out_type"], "q4_k_m");
    assert_eq!(manifest["files"]["config.json"], common::sha256(&snap.join("config.json")));
    assert_eq!(
        manifest["files"]["model-00002-of-00002.safetensors"],
        common::sha256(&snap.join("model-00002-of-00002.safetensors"))
    );
    assert!(dir.join("sqale_agent.py").is_file());
    // Nothing but the model, its manifest and the reference loop is left in the cache folder.
    assert_eq!(common::dir_listing(&dir), ["q4_k_m.gguf", "q4_k_m.json", "sqale_agent.py"]);

    // `ask` without --model finds it, and runs with the reference loop's prompt.
    let out = sqale(
        hf.path(),
        cache.path(),
        &["ask", "--json", "--seed", "2", "--max-episode-tokens", "400", "How many orders?"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"], gguf.display().to_string());
    assert!(v["episode"]["prompt_source"].as_str().unwrap().ends_with("sqale_agent.py"));
    let expected = sqale::prompt::Prompt::from_python_file(&dir.join("sqale_agent.py")).unwrap().hash();
    assert_eq!(v["episode"]["prompt_hash"], expected);
}
