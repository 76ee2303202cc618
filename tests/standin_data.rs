//! `scripts/standin_data.py`, the databases and questions of the trained stand-in: the same seed
//! gives the same files, schemas are held out whole, every database has 3 to 12 tables and its
//! declared keys, and every gold query runs in sqale's own environment and returns rows; and
//! `scripts/standin_episodes.py`, whose expert scripts `sqale play` plays to the gold answer.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use sqale::env::Environment;

fn generate(out: &Path) {
    let status = Command::new("python3")
        .args(["scripts/standin_data.py", out.to_str().unwrap(), "--schemas", "14", "--heldout", "3", "--seed", "5"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("python3 runs");
    assert!(status.success(), "standin_data.py failed");
}

fn questions(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn databases_and_questions_are_reproducible_held_out_by_schema_and_answerable() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    generate(a.path());
    generate(b.path());
    for file in ["train.jsonl", "heldout.jsonl", "dbs/s000_clinic.sqlite", "dbs/s013_library.sqlite"] {
        assert_eq!(
            std::fs::read(a.path().join(file)).unwrap(),
            std::fs::read(b.path().join(file)).unwrap(),
            "{file} differs between two runs with one seed"
        );
    }
    let (train, heldout) = (questions(&a.path().join("train.jsonl")), questions(&a.path().join("heldout.jsonl")));
    let dbs = |qs: &[Value]| qs.iter().map(|q| q["db"].as_str().unwrap().to_string()).collect::<BTreeSet<_>>();
    assert!(dbs(&train).is_disjoint(&dbs(&heldout)), "a schema is in both splits");
    assert_eq!(dbs(&heldout).len(), 3);

    let kinds: BTreeSet<&str> = train.iter().chain(&heldout).map(|q| q["kind"].as_str().unwrap()).collect();
    for kind in ["count", "filter", "join", "join2", "group", "group_join", "superlative"] {
        assert!(kinds.contains(kind), "no {kind} question in {kinds:?}");
    }
    let mut hidden_literals = 0;
    for q in train.iter().chain(&heldout) {
        let mut env = Environment::open(a.path().join(q["db"].as_str().unwrap())).unwrap();
        let rows = env.execute(q["gold_sql"].as_str().unwrap()).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert!(!rows.rows.is_empty(), "{q} returns no row");
        if let Some(l) = q["plan"].get("literal") {
            hidden_literals += usize::from(l["value"] != l["said"]);
        }
    }
    assert!(hidden_literals > 0, "no literal is spelt differently in the database than in its question");

    let mut composite = false;
    let mut self_reference = false;
    for db in dbs(&train).iter().chain(&dbs(&heldout)) {
        let mut env = Environment::open(a.path().join(db)).unwrap();
        let tables = env.execute("SELECT name FROM sqlite_schema WHERE type = 'table'").unwrap().rows.len();
        assert!((3..=12).contains(&tables), "{db}: {tables} tables");
        let listed = env.call("list_tables", &serde_json::json!({}));
        assert!(listed.ok && listed.result.starts_with(&format!("{tables} tables")), "{}", listed.result);
        let ddl = env.execute("SELECT group_concat(sql, ' ') FROM sqlite_schema").unwrap();
        let ddl = format!("{:?}", ddl.rows);
        composite |= ddl.contains("FOREIGN KEY (");
        self_reference |= ["manager_id", "mentor_id", "supervisor_id", "parent_id", "referred_by", "companion_id"]
            .iter()
            .any(|c| ddl.contains(c));
    }
    assert!(composite && self_reference, "composite {composite}, self-reference {self_reference}");
}

#[test]
fn expert_scripts_play_through_the_real_agent_to_the_gold_query() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path());
    let (questions_file, script) = (dir.path().join("train.jsonl"), dir.path().join("train-script.jsonl"));
    let status = Command::new("python3")
        .args(["scripts/standin_episodes.py", questions_file.to_str().unwrap(), script.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    let played = dir.path().join("train-episodes.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["play", script.to_str().unwrap(), "--out", played.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let gold = questions(&questions_file);
    let episodes = questions(&played);
    assert_eq!(episodes.len(), gold.len());
    let mut limited = 0;
    for (e, q) in episodes.iter().zip(&gold) {
        assert_eq!(e["sql"], q["gold_sql"], "{}", e["id"]);
        match e["ended_by"].as_str() {
            Some("submit_sql") => {}
            Some("final_turn") => limited += 1,
            other => panic!("{} ended by {other:?}", e["id"]),
        }
        let text: String = e["segments"].as_array().unwrap().iter().map(|s| s[0].as_str().unwrap()).collect();
        assert!(!text.contains("Error: could not read tool call") && !text.contains("no tool call found"), "{text}");
    }
    assert!(limited > 0 && limited < episodes.len() / 4, "{limited} of {} episodes reach the limit", episodes.len());
}
