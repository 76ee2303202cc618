//! `sqale pull` and `sqale ask` without `--model`, against a Hugging Face cache laid out as
//! hf-hub and huggingface_hub lay it out (Hugging Face itself is unreachable here), offline.

mod common;
#[path = "support/headless.rs"]
mod headless;

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

/// A repository id or revision that would leave the cache is refused before any path is made.
#[test]
fn bad_repository_ids_and_revisions_are_refused_before_any_path() {
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (name, what) in [
        ("trl-lab/qwen3.5-2b-grpo-synsql@../../x", "revision \"../../x\" is not valid"),
        ("../../etc/name", "repository id \"../../etc/name\" is not valid"),
        ("org/name@/tmp/x", "revision \"/tmp/x\" is not valid"),
    ] {
        let out = sqale(hf.path(), cache.path(), &["pull", name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(what), "{name}: {err}");
        assert_eq!(err.matches(what).count(), 1, "said once: {err}");
    }
    assert!(common::dir_listing(cache.path()).is_empty(), "nothing made in the cache");
    assert!(common::dir_listing(hf.path()).is_empty(), "nothing made in the Hugging Face cache");
}

/// A type that needs an importance matrix is refused without one before anything is fetched.
#[test]
fn a_type_that_needs_an_importance_matrix_is_refused_before_the_download() {
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql", "--type", "iq2_xs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("iq2_xs needs an importance matrix") && err.contains("--imatrix"), "{err}");
    assert!(!err.contains("Hugging Face cache"), "refused before looking for the checkpoint: {err}");
    assert!(common::dir_listing(cache.path()).is_empty(), "nothing made in the cache");
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
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // An episode ran: exit 0 with an answer's rows, 1 without (never an error's 2).
    let code = if v["rows"].is_null() { 1 } else { 0 };
    assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["model"], gguf.display().to_string());
    assert!(v["episode"]["prompt_source"].as_str().unwrap().ends_with("sqale_agent.py"));
    let expected = sqale::prompt::Prompt::from_python_file(&dir.join("sqale_agent.py")).unwrap().hash();
    assert_eq!(v["episode"]["prompt_hash"], expected);
}

/// Puts the checkpoint folder `from`, less its MTP head, into the cache as `repo_dir`'s snapshot
/// `COMMIT` on `main`.
fn cache_checkpoint(hf_home: &Path, repo_dir: &str, from: &Path) {
    let repo = hf_home.join("hub").join(repo_dir);
    let snap = repo.join("snapshots").join(COMMIT);
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), COMMIT).unwrap();
    if snap.exists() {
        std::fs::remove_dir_all(&snap).unwrap();
    }
    headless::headless_copy(from, &snap);
}

fn nextn_layers(gguf: &Path) -> Option<u64> {
    let h = sqale_convert::gguf::read_header(gguf).unwrap();
    h.get("qwen35.nextn_predict_layers").and_then(sqale_convert::gguf::Value::as_u64)
}

#[test]
fn pull_grafts_the_base_head_onto_a_fine_tune_without_one() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny");
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // The fine-tune as transformers saves it (no mtp.*); the base is not cached yet.
    cache_checkpoint(hf.path(), REPO_DIR, &fixtures.join("untied"));
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql", "--type", "f16"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no MTP head") && err.contains("Qwen/Qwen3.5-2B") && err.contains("--no-mtp"), "{err}");
    let dir = cache.path().join("sqale/models/trl-lab--qwen3.5-2b-grpo-synsql/main");
    assert!(!dir.join("f16.gguf").exists());

    // --no-mtp: no head, no base needed.
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql", "--type", "f16", "--no-mtp"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // stderr is a pipe, not a terminal: progress comes as plain lines.
    assert!(err.lines().any(|l| l.starts_with("convert: ") && l.contains(" tensors (")), "{err}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("f16.json")).unwrap()).unwrap();
    assert_eq!(manifest["mtp_head"], serde_json::Value::Null);
    assert_eq!(nextn_layers(&dir.join("f16.gguf")), None);

    // With the base (tied/, which has a head) cached: its head is grafted by default.
    let base = hf.path().join("hub/models--Qwen--Qwen3.5-2B/snapshots").join(COMMIT);
    std::fs::create_dir_all(&base).unwrap();
    for e in std::fs::read_dir(fixtures.join("tied")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), base.join(e.file_name())).unwrap();
    }
    std::fs::create_dir_all(hf.path().join("hub/models--Qwen--Qwen3.5-2B/refs")).unwrap();
    std::fs::write(hf.path().join("hub/models--Qwen--Qwen3.5-2B/refs/main"), COMMIT).unwrap();
    let out = sqale(hf.path(), cache.path(), &["pull", "synsql", "--type", "f16", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(manifest["mtp_head"], "Qwen/Qwen3.5-2B@main");
    let gguf = dir.join("f16.gguf");
    assert_eq!(nextn_layers(&gguf), Some(1));
    // The head is the base's, as converting the base writes it.
    let base_gguf = cache.path().join("base.gguf");
    let opts = sqale_convert::ConvertOptions { out_type: "f16".parse().unwrap(), ..Default::default() };
    sqale_convert::convert(&base, &base_gguf, &opts, &mut |_| {}).unwrap();
    let head = |p: &Path| {
        let h = sqale_convert::gguf::read_header(p).unwrap();
        let bytes = std::fs::read(p).unwrap();
        h.tensors
            .iter()
            .filter(|t| t.name.starts_with("blk.4."))
            .map(|t| {
                let at = (h.data_offset + t.offset) as usize;
                (t.name.clone(), bytes[at..at + t.size as usize].to_vec())
            })
            .collect::<Vec<_>>()
    };
    let (got, want) = (head(&gguf), head(&base_gguf));
    assert_eq!(got.len(), 15);
    assert_eq!(got, want);
}

/// A file server shaped like the Hub's `resolve` endpoint, on 127.0.0.1, as hf-hub reads it:
/// a one-byte range answers with the commit, the etag and the size; a range from byte N sends
/// the rest. The first read of `break_file` stops halfway and closes, as a dropped connection
/// does. Every range asked for is kept in the returned log, as `file bytes=N-`.
fn mock_hub(
    repos: Vec<(&'static str, PathBuf)>,
    break_file: &'static str,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = log.clone();
    std::thread::spawn(move || {
        let mut broken = false;
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut range = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("range:") {
                    range = v.trim().to_string();
                }
            }
            let path = request.split(' ').nth(1).unwrap_or("").to_string();
            let file = repos.iter().find_map(|(repo, dir)| {
                let name = path.strip_prefix(&format!("/{repo}/resolve/main/"))?;
                std::fs::read(dir.join(name)).ok().map(|b| (name.to_string(), b))
            });
            let Some((name, bytes)) = file else {
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                continue;
            };
            seen.lock().unwrap().push(format!("{name} {range}"));
            let size = bytes.len();
            let start: usize =
                range.trim_start_matches("bytes=").split('-').next().and_then(|n| n.parse().ok()).unwrap_or(0);
            let end = if range.ends_with("-0") { 0 } else { size - 1 };
            let body = &bytes[start..=end];
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{end}/{size}\r\n\
                 ETag: \"{}\"\r\nX-Repo-Commit: {COMMIT}\r\nConnection: close\r\n\r\n",
                body.len(),
                sqale::hash::sha256_hex(&bytes),
            );
            let _ = stream.write_all(head.as_bytes());
            if name == break_file && end > 0 && !broken {
                broken = true;
                let _ = stream.write_all(&body[..body.len() / 2]);
                let _ = stream.shutdown(std::net::Shutdown::Both);
                continue;
            }
            let _ = stream.write_all(body);
        }
    });
    (url, log)
}

/// `sqale pull` downloading through hf-hub from a local endpoint: a line of progress per file into
/// a pipe, a broken download taken up again where it stopped, the base's head fetched the same way.
#[test]
fn pull_downloads_with_progress_and_resumes_a_broken_file() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny");
    let broken = "model-00002-of-00002.safetensors";
    // The fine-tune as transformers saves it, without its MTP head: the base's is fetched too.
    let fine_tune = tempfile::tempdir().unwrap();
    headless::headless_copy(&fixtures.join("untied"), fine_tune.path());
    let (endpoint, log) = mock_hub(
        vec![
            ("trl-lab/qwen3.5-2b-grpo-synsql", fine_tune.path().to_path_buf()),
            ("Qwen/Qwen3.5-2B", fixtures.join("tied")),
        ],
        broken,
    );
    let (hf, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["pull", "synsql", "--type", "f16"])
        .env("HF_HOME", hf.path())
        .env("XDG_CACHE_HOME", cache.path())
        .env("HF_ENDPOINT", &endpoint)
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_TOKEN")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");

    // stderr is a pipe: each downloaded file ends with a line of its whole size.
    for (repo, dir) in
        [("trl-lab/qwen3.5-2b-grpo-synsql", fine_tune.path()), ("Qwen/Qwen3.5-2B", &fixtures.join("tied"))]
    {
        for shard in ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"] {
            let mb = std::fs::metadata(dir.join(shard)).unwrap().len() as f64 / 1e6;
            let done = format!("download: {mb:.1}/{mb:.1} MB {repo}/{shard} (");
            assert_eq!(err.lines().filter(|l| l.starts_with(&done)).count(), 1, "one {done:?} in {err}");
        }
    }
    // The broken file was asked for again from where the first read stopped, not from byte 0.
    let size = std::fs::metadata(fine_tune.path().join(broken)).unwrap().len() as usize;
    let ranges: Vec<String> = log.lock().unwrap().iter().filter(|l| l.starts_with(broken)).cloned().collect();
    assert!(ranges.contains(&format!("{broken} bytes={}-", size / 2)), "{ranges:?}");
    // The cache holds the files as served, and the manifest says so.
    let dir = cache.path().join("sqale/models/trl-lab--qwen3.5-2b-grpo-synsql/main");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("f16.json")).unwrap()).unwrap();
    assert_eq!(manifest["files"][broken], common::sha256(&fine_tune.path().join(broken)));
    assert_eq!(manifest["mtp_head"], "Qwen/Qwen3.5-2B@main");
}
