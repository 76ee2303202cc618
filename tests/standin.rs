//! The committed stand-in (tests/fixtures/standin, docs/stand-in.md): its files match their
//! checksums, this repository's scripts and `sqale play` make exactly its training episodes, and
//! the model itself answers a question on a schema it never saw by exploring it with the tools.
//! (That its training script reproduces the committed loss curve needs torch: .ci/standin.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin")
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA256SUMS as name → digest.
fn sums() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(fixtures().join("SHA256SUMS")).unwrap();
    text.lines()
        .map(|l| {
            let (digest, name) = l.split_once("  ").unwrap();
            (name.to_string(), digest.to_string())
        })
        .collect()
}

fn run(cmd: &mut Command) -> std::process::Output {
    let o = cmd.current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(o.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

/// The stand-in's databases, questions and played training episodes, made once per test binary
/// by the same steps as scripts/make-standin.
fn made() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        run(Command::new("python3").args(["scripts/standin_data.py", d, "--seed", "1"]));
        let (questions, script) = (format!("{d}/train.jsonl"), format!("{d}/train-script.jsonl"));
        run(Command::new("python3").args(["scripts/standin_episodes.py", &questions, &script, "--seed", "1"]));
        run(Command::new(env!("CARGO_BIN_EXE_sqale")).args([
            "play",
            &script,
            "--out",
            &format!("{d}/train-episodes.jsonl"),
        ]));
        dir
    })
    .path()
}

#[test]
fn the_committed_files_match_their_checksums() {
    let sums = sums();
    let gguf = std::fs::read(fixtures().join("standin-f16.gguf")).unwrap();
    assert_eq!(sha256(&gguf), sums["standin-f16.gguf"], "standin-f16.gguf does not match SHA256SUMS");
    let o = run(Command::new("gzip").arg("-dc").arg(fixtures().join("train-episodes.jsonl.gz")));
    assert_eq!(sha256(&o.stdout), sums["train-episodes.jsonl"], "train-episodes.jsonl.gz does not match SHA256SUMS");
}

#[test]
fn the_scripts_make_exactly_the_committed_training_episodes() {
    let episodes = std::fs::read(made().join("train-episodes.jsonl")).unwrap();
    assert_eq!(
        sha256(&episodes),
        sums()["train-episodes.jsonl"],
        "scripts/standin_data.py, standin_episodes.py and `sqale play` no longer make the episodes the stand-in was \
         trained on: remake it (scripts/make-standin) or restore what changed"
    );
}

/// A question on one of the 40 held-out schemas, which the stand-in never saw in training.
const HELD_OUT: &str = "s200_music_q02";

/// The stand-in follows the protocol on a schema it never saw: it opens with `list_tables`, its
/// later turns are calls that the real tools run, and it ends by `submit_sql` with a query that
/// returns the gold query's rows. (It answers 44 % of the held-out questions: docs/stand-in.md.)
#[test]
fn the_standin_answers_a_question_on_a_held_out_schema() {
    let heldout = std::fs::read_to_string(made().join("heldout.jsonl")).unwrap();
    let q: Value =
        heldout.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|q| q["id"] == HELD_OUT).unwrap();
    let db = made().join(q["db"].as_str().unwrap());
    let before = std::fs::read(&db).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["ask", "--json", "--seed", "1", "--ctx", "4096", "--model"])
        .arg(fixtures().join("standin-f16.gguf"))
        .arg("--db")
        .arg(&db)
        .arg(q["question"].as_str().unwrap())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let ep = &v["episode"];
    let calls: Vec<&Value> =
        ep["turns"].as_array().unwrap().iter().flat_map(|t| t["calls"].as_array().unwrap()).collect();
    assert_eq!(calls.first().map(|c| &c["tool"]), Some(&Value::from("list_tables")), "{ep}");
    assert!(calls.len() >= 3, "{} calls: {ep}", calls.len());
    let known = [
        "list_tables",
        "describe_table",
        "sample_rows",
        "distinct_values",
        "run_query",
        "submit_sql",
        "join_path",
        "foreign_keys",
    ];
    assert!(calls.iter().all(|c| known.contains(&c["tool"].as_str().unwrap())), "{ep}");
    assert!(calls[0]["ok"] == true && calls[0]["result"].as_str().unwrap().contains("tables:"), "{ep}");
    assert_eq!(ep["ended_by"], "submit_sql", "{ep}");
    // Scored as `sqale eval` scores it: the rows as a set equal the gold query's.
    let mut env = sqale::env::Environment::open(&db).unwrap();
    let gold = env.execute(q["gold_sql"].as_str().unwrap()).unwrap();
    let submitted = ep["sql"].as_str();
    let score = sqale::eval::score::score(&mut env, submitted, &gold);
    assert!(score.correct, "{submitted:?} against the gold query: {score:?}");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");
}
