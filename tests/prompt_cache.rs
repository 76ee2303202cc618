//! The prompt cache on disk, end to end: real `sqale ask` processes on the real SmolLM2 GGUF
//! and a real SQLite file, each with its own cache folder (`XDG_CACHE_HOME`). SmolLM2 is steered
//! by `tests/fixtures/copy_prompt.py` into submitting the query the question gives, so every
//! episode ends by `submit_sql`.
//!
//! - A second process restores the system prompt from the file the first wrote, and plays the
//!   same episode for the seed (speculative decoding with prompt lookup included, where this
//!   build's kernels let `auto` draft).
//! - A damaged, foreign or stale file is refused with a message naming what is wrong; the
//!   episode runs as if there were no file, and the file is written again.
//! - `info --model` lists the file and its size; `prompt-cache clear` removes it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const SQL: &str = "SELECT COUNT(*) FROM customers";

/// A temporary cache root, database and model path for one test.
struct Setup {
    dir: tempfile::TempDir,
    db: PathBuf,
    model: PathBuf,
}

impl Setup {
    fn new(model: Option<PathBuf>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("demo.sqlite");
        std::fs::copy(common::demo_db(), &db).unwrap();
        Setup { model: model.unwrap_or_else(common::test_model), dir, db }
    }

    fn cache_dir(&self) -> PathBuf {
        self.dir.path().join("xdg/sqale/prompt-cache")
    }

    fn sqale(&self, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_sqale"))
            .env("XDG_CACHE_HOME", self.dir.path().join("xdg"))
            .args(args)
            .output()
            .unwrap()
    }

    /// One `ask --json` episode (seed 7) with `extra` flags: the episode and the stderr.
    fn ask(&self, extra: &[&str]) -> (Value, String) {
        let prompt = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py");
        let question = serde_json::json!({"tool": "submit_sql", "args": {"sql": SQL}}).to_string();
        let (model, db) = (self.model.to_str().unwrap(), self.db.to_str().unwrap());
        let mut args = vec!["ask", "--json", "--seed", "7", "--ctx", "2048", "--max-episode-tokens", "900"];
        args.extend(["--prompt-from", prompt, "--model", model, "--db", db]);
        args.extend(extra);
        args.push(&question);
        let out = self.sqale(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        (v["episode"].clone(), stderr)
    }

    fn cache_files(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(self.cache_dir()) {
            Ok(d) => d.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// What must be the same in two plays of one seed: every turn's text and token count, and the
/// answer.
fn played(ep: &Value) -> Value {
    let turns: Vec<Value> = ep["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| serde_json::json!([t["completion"], t["tokens"], t["finish"]]))
        .collect();
    serde_json::json!({"turns": turns, "sql": ep["sql"], "ended_by": ep["ended_by"], "context": ep["tokens"]["context_tokens"]})
}

fn source(ep: &Value) -> &str {
    ep["tokens"]["prefix_source"].as_str().unwrap_or("none")
}

#[test]
fn a_second_process_restores_the_prompt_from_disk_and_plays_the_same_episode() {
    let _g = common::one_at_a_time();
    let s = Setup::new(None);
    let before = common::sha256(&s.db);
    let (first, err) = s.ask(&[]);
    assert_eq!(source(&first), "decoded", "{err}");
    assert_eq!(first["ended_by"], "submit_sql", "{first}");
    assert_eq!(first["sql"], SQL);
    let prompt_tokens = first["tokens"]["decoded_tokens"].as_u64().unwrap();
    assert!(first["first_token_seconds"].as_f64().is_some_and(|t| t > 0.0 && t <= first["seconds"].as_f64().unwrap()));
    let files = s.cache_files();
    assert_eq!(files.len(), 1, "one file written: {files:?}");

    let (second, err) = s.ask(&[]);
    assert_eq!(source(&second), "disk", "{err}");
    assert!(!err.contains("prompt cache"), "no note: {err}");
    let reused = second["tokens"]["reused_tokens"].as_u64().unwrap();
    assert!(reused > 0 && reused < prompt_tokens, "the system turn ({reused} tokens) reused");
    assert_eq!(
        second["tokens"]["decoded_tokens"].as_u64().unwrap() + reused,
        second["tokens"]["context_tokens"].as_u64().unwrap()
    );
    assert_eq!(played(&second), played(&first), "the same episode for the same seed");

    let (off, _) = s.ask(&["--no-prompt-cache"]);
    assert_eq!(source(&off), "decoded");
    assert_eq!(played(&off), played(&first));
    assert_eq!(common::sha256(&s.db), before, "the database is never changed");

    let out = s.sqale(&["info", "--json", "--model", s.model.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = info["prompt_cache"]["files"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{info}");
    assert_eq!(listed[0]["bytes"].as_u64(), Some(std::fs::metadata(&files[0]).unwrap().len()));
    assert_eq!(listed[0]["tokens"].as_u64(), Some(reused));
    assert_eq!(listed[0]["stale"], false);

    let out = s.sqale(&["prompt-cache", "clear", "--json"]);
    let cleared: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cleared["files"], 1, "{cleared}");
    assert!(s.cache_files().is_empty());
}

/// Overwrites the single cache file with `f` of its bytes.
fn spoil(s: &Setup, f: impl Fn(&mut Vec<u8>)) {
    let files = s.cache_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let mut bytes = std::fs::read(&files[0]).unwrap();
    f(&mut bytes);
    std::fs::write(&files[0], bytes).unwrap();
}

/// Runs an episode that must refuse the file with `message`, decode the prompt and play the
/// `reference` episode; then one that restores the file written again.
fn refused_then_rewritten(s: &Setup, reference: &Value, message: &str) {
    let (ep, err) = s.ask(&[]);
    assert!(err.contains("not used: ") && err.contains(message), "{message:?} in: {err}");
    assert!(err.contains("the prompt was decoded instead"), "{err}");
    assert_eq!(source(&ep), "decoded");
    assert_eq!(played(&ep), played(reference));
    let (again, err) = s.ask(&[]);
    assert_eq!(source(&again), "disk", "written again: {err}");
    assert_eq!(played(&again), played(reference));
}

#[test]
fn a_damaged_foreign_or_stale_file_is_refused_with_a_message_and_the_episode_runs() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    // A copy of the model, whose modification time the test changes.
    let model = dir.path().join("model.gguf");
    std::fs::copy(common::test_model(), &model).unwrap();
    let s = Setup::new(Some(model.clone()));
    let (reference, _) = s.ask(&[]);
    assert_eq!(reference["ended_by"], "submit_sql");

    spoil(&s, |b| {
        let mid = b.len() / 2;
        b[mid] ^= 0x40;
    });
    refused_then_rewritten(&s, &reference, "it is damaged or truncated");

    spoil(&s, |b| b.truncate(b.len() - 1000));
    refused_then_rewritten(&s, &reference, "it is damaged or truncated");

    spoil(&s, |b| *b = b"GGUF, not a prompt cache".to_vec());
    refused_then_rewritten(&s, &reference, "it is not a sqale prompt cache file");

    let file = std::fs::File::options().write(true).open(&model).unwrap();
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600)).unwrap();
    drop(file);
    let out = s.sqale(&["info", "--json", "--model", model.to_str().unwrap()]);
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["prompt_cache"]["files"][0]["stale"], true, "{info}");
    refused_then_rewritten(&s, &reference, "it is stale: the model file changed");
    assert_eq!(s.cache_files().len(), 1, "the stale file was replaced, not left beside the new one");
}

/// Runs `sqale args…` in `s`'s cache root and waits at most `limit` for it: a run that hangs
/// (a FIFO opened for reading blocks until a writer comes) is killed, and the test fails.
fn bounded(s: &Setup, args: &[&str], limit: std::time::Duration) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .env("XDG_CACHE_HOME", s.dir.path().join("xdg"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!("`sqale {}` hung for {limit:?}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_a_link_to_a_device_or_an_oversized_file_is_refused_at_once() {
    let _g = common::one_at_a_time();
    let s = Setup::new(None);
    let (reference, _) = s.ask(&[]);
    let file = s.cache_files().pop().expect("the first ask wrote a file");
    let prompt = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py");
    let question = serde_json::json!({"tool": "submit_sql", "args": {"sql": SQL}}).to_string();
    let (model, db) = (s.model.to_str().unwrap(), s.db.to_str().unwrap());
    let ask = [
        "ask",
        "--json",
        "--seed",
        "7",
        "--ctx",
        "2048",
        "--max-episode-tokens",
        "900",
        "--prompt-from",
        prompt,
        "--model",
        model,
        "--db",
        db,
        &question,
    ];
    let limit = std::time::Duration::from_secs(120);
    let replace = |how: &dyn Fn(&std::path::Path)| {
        std::fs::remove_file(&file).unwrap();
        how(&file);
    };
    let fifo = |p: &std::path::Path| assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
    let zero = |p: &std::path::Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    let huge = |p: &std::path::Path| std::fs::File::create(p).unwrap().set_len(1 << 40).unwrap();
    for (how, message) in [
        (&fifo as &dyn Fn(&std::path::Path), "is a named pipe (FIFO), not a regular file"),
        (&zero, "is a character device, not a regular file"),
        (&huge, "more than the"),
    ] {
        replace(how);
        // `info --model` lists the cache without opening what is not a regular file.
        let out = bounded(&s, &["info", "--json", "--model", model], limit);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let out = bounded(&s, &ask, limit);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains(message), "{message:?} in: {err}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(source(&v["episode"]), "decoded");
        assert_eq!(played(&v["episode"]), played(&reference), "the episode runs as if there were no file");
        assert!(std::fs::symlink_metadata(&file).unwrap().is_file(), "the file was written again in its place");
    }
}

/// The stand-in (tests/fixtures/standin), whose trained MTP head drafts under `--speculate
/// auto`: one `ask --json` episode (seed 3) with the builtin prompt, a plain question on the demo
/// database, and `extra` flags (`auto` unless they name a `--speculate`).
fn ask_standin(s: &Setup, extra: &[&str]) -> (Value, String) {
    let (model, db) = (s.model.to_str().unwrap(), s.db.to_str().unwrap());
    let mut args = vec!["ask", "--json", "--seed", "3", "--ctx", "4096", "--max-episode-tokens", "1500"];
    if !extra.contains(&"--speculate") {
        args.extend(["--speculate", "auto"]);
    }
    args.extend(["--model", model, "--db", db]);
    args.extend(extra);
    args.push("How many customers are there?");
    let out = s.sqale(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("JSON on stdout: {stderr}"));
    (v["episode"].clone(), stderr)
}

/// The MTP head's drafts in an episode: steps, drafted and accepted tokens.
fn head_drafts(ep: &Value) -> Value {
    ep["tokens"]["speculation"]["mtp"].clone()
}

/// With the MTP head drafting, the file holds the head's part too (its draft context's state
/// and the hidden row its drafter carries): a second process restores the prompt from disk and
/// the head drafts exactly as after decoding it: the same episode, the same drafts, the same
/// drafts kept. A damaged head part is refused as any damage is, and the prompt decoded.
#[test]
fn with_the_mtp_head_drafting_a_second_process_restores_the_heads_part_and_drafts_the_same() {
    let _g = common::one_at_a_time();
    let standin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf");
    let s = Setup::new(Some(standin));
    let before = common::sha256(&s.db);
    let (first, err) = ask_standin(&s, &[]);
    assert_eq!(source(&first), "decoded", "{err}");
    let drafts = head_drafts(&first);
    assert!(drafts["drafted"].as_u64().unwrap_or(0) > 0, "the head drafted: {first}");
    assert!(drafts["accepted"].as_u64().unwrap_or(0) > 0, "the head's drafts were kept: {drafts}");
    let files = s.cache_files();
    assert_eq!(files.len(), 1, "one file written with the head drafting: {files:?}");
    let out = s.sqale(&["info", "--json", "--model", s.model.to_str().unwrap()]);
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["prompt_cache"]["files"][0]["mtp_drafting"], true, "{info}");

    let (second, err) = ask_standin(&s, &[]);
    assert_eq!(source(&second), "disk", "{err}");
    assert!(!err.contains("prompt cache"), "no note: {err}");
    assert!(second["tokens"]["reused_tokens"].as_u64().unwrap() > 0);
    assert_eq!(played(&second), played(&first), "the same episode for the same seed");
    assert_eq!(head_drafts(&second), drafts, "the head drafted after the restored prompt as after the decoded one");

    let (off, _) = ask_standin(&s, &["--no-prompt-cache"]);
    assert_eq!(source(&off), "decoded");
    assert_eq!((played(&off), head_drafts(&off)), (played(&first), drafts.clone()));

    // The head's carried row lies just before the checksum: damage there is refused.
    spoil(&s, |b| {
        let at = b.len() - 32 - 8;
        b[at] ^= 0x10;
    });
    let (damaged, err) = ask_standin(&s, &[]);
    assert!(err.contains("it is damaged or truncated") && err.contains("the prompt was decoded instead"), "{err}");
    assert_eq!(source(&damaged), "decoded");
    assert_eq!((played(&damaged), head_drafts(&damaged)), (played(&first), drafts.clone()));
    let (again, err) = ask_standin(&s, &[]);
    assert_eq!(source(&again), "disk", "written again: {err}");
    assert_eq!((played(&again), head_drafts(&again)), (played(&first), drafts));

    // Plain decoding of the same model keeps a file of its own beside the head's.
    let (plain, _) = ask_standin(&s, &["--speculate", "off"]);
    assert_eq!(source(&plain), "decoded");
    assert_eq!(played(&plain), played(&first), "drafting never changes the episode");
    assert_eq!(s.cache_files().len(), 2);
    assert_eq!(common::sha256(&s.db), before, "the database is never changed");
}
