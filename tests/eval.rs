//! `sqale eval` and `sqale eval score` on a small benchmark built here: two real databases,
//! questions at several difficulties, evidence, a string literal, and a gold query that fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

fn fixture(dir: &Path) -> PathBuf {
    std::fs::copy(common::demo_db(), dir.join("demo.sqlite")).unwrap();
    common::library_db(dir);
    let qs = [
        json!({"id": "q1", "db": "demo.sqlite", "question": "How many customers are there?", "gold_sql": "SELECT COUNT(*) FROM customers", "difficulty": "simple"}),
        json!({"id": "q2", "db": "demo.sqlite", "question": "How many orders are back-ordered?", "evidence": "back-ordered refers to status = 'back-ordered'", "gold_sql": "SELECT COUNT(*) FROM orders WHERE status = 'back-ordered'", "difficulty": "moderate"}),
        json!({"id": "q3", "db": "library.sqlite", "question": "Which books did Ada borrow?", "gold_sql": "SELECT b.title FROM loans l JOIN books b ON b.book_id = l.book_id JOIN members m ON m.member_id = l.member_id WHERE m.name = 'Ada'", "difficulty": "challenging"}),
        json!({"id": "q4", "db": "library.sqlite", "question": "Authors per country?", "gold_sql": "SELECT country, COUNT(*) FROM authors GROUP BY country", "difficulty": "moderate"}),
        json!({"id": "q5", "db": "library.sqlite", "question": "A question whose gold SQL is broken", "gold_sql": "SELECT nope FROM nowhere", "difficulty": "simple"}),
    ];
    let manifest = dir.join("bench.jsonl");
    std::fs::write(&manifest, qs.iter().map(|q| q.to_string() + "\n").collect::<String>()).unwrap();
    manifest
}

fn sqale(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap()
}

#[test]
fn scoring_predictions_from_another_system() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let preds = dir.path().join("preds.jsonl");
    let lines = [
        json!({"id": "q1", "sql": "select count(customer_id) from customers"}),
        // Same rows, other order and duplicated: correct under the set rule.
        json!({"id": "q3", "sql": "SELECT b.title FROM books b JOIN loans l ON l.book_id = b.book_id WHERE l.member_id = 1 UNION ALL SELECT 'Solaris' ORDER BY 1 DESC"}),
        json!({"id": "q2", "sql": "SELECT COUNT(*) FROM orders WHERE status = 'backordered'"}),
        json!({"id": "q4", "sql": "SELECT country, COUNT(*) FROM author GROUP BY country"}),
        json!({"id": "q5", "sql": "SELECT 1"}),
    ];
    std::fs::write(&preds, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let out = dir.path().join("scored");
    let o = sqale(&["eval", "score", "--bench", manifest.to_str().unwrap(), "--predictions", preds.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["models"][0];
    assert_eq!(m["n"], 4, "the broken gold query is reported apart");
    assert_eq!(m["gold_failed"], 1);
    assert_eq!(m["correct"], 2);
    assert_eq!(m["ex"], 50.0);
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(out.join("episodes.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let by_id = |id: &str| recs.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(by_id("q2")["reward"], 1.0, "executes, wrong, F1 0");
    assert_eq!(by_id("q4")["reward"], 0.5, "valid SQL that does not run");
    assert_eq!(by_id("q1")["reward"], 3.0);
    for f in ["summary.md", "summary.csv", "summary.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
}

#[test]
fn eval_runs_resumes_after_a_kill_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let before = common::sha256(&dir.path().join("demo.sqlite"));
    let out = dir.path().join("results");
    let model = common::test_model();
    let args = |json: bool| {
        let mut a = vec!["eval".to_string(), "--bench".into(), manifest.display().to_string(), "--model".into(), model.display().to_string(),
            "-o".into(), out.display().to_string(), "--max-episode-tokens".into(), "900".into(), "--ctx".into(), "2048".into(), "--seed".into(), "5".into()];
        if json {
            a.push("--json".into());
        }
        a
    };
    // Start, kill once the first episode is written, then resume.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqale")).args(args(false)).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let results = out.join("episodes.jsonl");
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&results).map(|s| s.lines().count()).unwrap_or(0) < 1 {
        assert!(started.elapsed().as_secs() < 600, "no episode finished");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first: Vec<String> = std::fs::read_to_string(&results).unwrap().lines().filter(|l| l.ends_with('}')).map(str::to_string).collect();
    assert!(!first.is_empty() && first.len() < 5, "killed midway: {} episodes", first.len());

    let o = Command::new(env!("CARGO_BIN_EXE_sqale")).args(args(true)).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&results).unwrap();
    let recs: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let mut ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["q1", "q2", "q3", "q4", "q5"], "each question once: finished ones were not redone");
    // The episodes finished before the kill are kept byte for byte.
    for line in &first {
        assert!(text.contains(line.as_str()));
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["models"][0]["n"], 4);
    assert_eq!(v["models"][0]["gold_failed"], 1);
    let q3 = recs.iter().find(|r| r["id"] == "q3").unwrap();
    assert_eq!(q3["gold_tables"], json!(["books", "loans", "members"]));
    assert_eq!(q3["gold_literals"], 1);
    for r in recs.iter().filter(|r| r["gold_ok"] == true) {
        assert!(r["episode"]["turns"].as_array().is_some_and(|t| !t.is_empty()), "full trace kept");
        assert!(r["decoded_tokens"].as_u64().unwrap() > 0);
    }
    assert_eq!(common::sha256(&dir.path().join("demo.sqlite")), before);

    // A third run has nothing left to do.
    let o = Command::new(env!("CARGO_BIN_EXE_sqale")).args(args(true)).output().unwrap();
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), text.lines().count());
}

#[test]
fn bird_layout_loads() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("dev_databases/shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    std::fs::copy(common::demo_db(), db_dir.join("shop.sqlite")).unwrap();
    let dev = json!([{"question_id": 7, "db_id": "shop", "question": "How many suppliers?", "evidence": "", "SQL": "SELECT COUNT(*) FROM suppliers", "difficulty": "simple"}]);
    std::fs::write(dir.path().join("dev.json"), dev.to_string()).unwrap();
    let qs = sqale::eval::bench::load(dir.path()).unwrap();
    assert_eq!(qs.len(), 1);
    assert_eq!(qs[0].id, "7");
    assert_eq!(qs[0].evidence, None);
    assert!(qs[0].db.ends_with("dev_databases/shop/shop.sqlite"));
}

#[test]
fn shards_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let model = common::test_model();
    let run = |shard: &str, out: &str| {
        let o = sqale(&["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap(), "--limit", "4", "--shard", shard,
            "-o", dir.path().join(out).to_str().unwrap(), "--max-episode-tokens", "900", "--ctx", "2048", "--seed", "3", "--json"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        sqale::eval::read_records(&dir.path().join(out).join("episodes.jsonl"))
    };
    let a = run("1/2", "s1");
    let b = run("2/2", "s2");
    let ids = |rs: &[sqale::eval::Record]| rs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&a), ["q1", "q3"]);
    assert_eq!(ids(&b), ["q2", "q4"]);
    let merged = dir.path().join("merged");
    let o = sqale(&["eval", "merge", dir.path().join("s1").to_str().unwrap(), dir.path().join("s2").to_str().unwrap(), "-o", merged.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["models"][0]["n"], 4);
    let mut all = ids(&sqale::eval::read_records(&merged.join("episodes.jsonl")));
    all.sort();
    assert_eq!(all, ["q1", "q2", "q3", "q4"]);
    // Same seed per question whatever the shard: q3's episode equals a whole-run q3 episode's seed.
    assert_eq!(a[1].seed, sqale::eval::episode_seed(3, "q3"));
    let o = sqale(&["eval", "--shard", "3/2", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// The HTML report opens in headless Chromium (Debian's `chromium`) and renders; the screenshot
/// is kept in `target/eval-report.png` for people to look at.
#[test]
fn html_report_renders_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let preds = dir.path().join("preds.jsonl");
    std::fs::write(&preds, "{\"id\": \"q1\", \"sql\": \"SELECT COUNT(*) FROM customers\"}\n{\"id\": \"q2\", \"sql\": \"SELECT 0\"}\n").unwrap();
    let out = dir.path().join("scored");
    let o = sqale(&["eval", "score", "--bench", manifest.to_str().unwrap(), "--predictions", preds.to_str().unwrap(), "-o", out.to_str().unwrap(), "--label", "reference-loop"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("reference-loop") && html.contains("How episodes ended"));
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().find(|p| Path::new(p).exists())
        .expect("headless Chromium is needed: apt-get install chromium");
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/eval-report.png");
    let _ = std::fs::remove_file(&shot);
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--window-size=1200,1600", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", out.join("report.html").display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "chromium failed: {log}");
    assert!(!log.contains("Uncaught") && !log.contains("CONSOLE(") , "page errors: {log}");
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
}

/// `--parallel 4` runs the episodes as four sequences of one llama.cpp context, decoded in
/// shared batches; every episode must come out exactly as with `--parallel 1`.
#[test]
fn parallel_episodes_match_serial_ones() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let model = common::test_model();
    let run = |parallel: &str| {
        let out = dir.path().join(format!("p{parallel}"));
        let o = sqale(&["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap(), "--parallel", parallel,
            "-o", out.to_str().unwrap(), "--max-episode-tokens", "768", "--seed", "11", "--json"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let models: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
        assert_eq!(models["SmolLM2-135M-Instruct.Q4_1.gguf"]["last_run"]["parallel"], parallel.parse::<u32>().unwrap());
        assert!(models["SmolLM2-135M-Instruct.Q4_1.gguf"]["last_run"]["peak_rss_bytes"].as_u64().unwrap() > 50 << 20);
        let mut recs = sqale::eval::read_records(&out.join("episodes.jsonl"));
        recs.sort_by(|a, b| a.id.cmp(&b.id));
        recs
    };
    let serial = run("1");
    let parallel = run("4");
    assert_eq!(serial.len(), 5);
    assert_eq!(parallel.len(), 5);
    for (a, b) in serial.iter().zip(&parallel) {
        assert_eq!(a.id, b.id);
        let turns = |r: &sqale::eval::Record| {
            r.episode.as_ref().map(|e| e["turns"].as_array().unwrap().iter().map(|t| (t["completion"].clone(), t["calls"].clone())).collect::<Vec<_>>())
        };
        assert_eq!(turns(a), turns(b), "question {}: the episode depends on --parallel", a.id);
        assert_eq!((a.sql.as_ref(), a.ended_by.as_ref(), a.correct, a.seed), (b.sql.as_ref(), b.ended_by.as_ref(), b.correct, b.seed));
        assert_eq!((a.decoded_tokens, a.generated_tokens), (b.decoded_tokens, b.generated_tokens), "question {}", a.id);
    }
    assert!(serial.iter().filter(|r| r.gold_ok).all(|r| r.generated_tokens > 0));
}

/// `--schema gold` and `--schema distractors:N` run on copies holding only the chosen tables
/// (grown along foreign keys), never touching the benchmark's own files.
#[test]
fn schema_conditions_cut_copies_of_the_database() {
    use sqale::eval::subset::{self, SchemaCondition};
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let before = common::sha256(&dir.path().join("demo.sqlite"));
    let files_before = std::fs::read_dir(dir.path()).unwrap().count();
    let limits = sqale::env::Limits::default();
    let tables_of = |db: &Path| {
        let env = sqale::env::Environment::open(db).unwrap();
        env.table_graph().unwrap()
    };
    let originals = sqale::eval::bench::load(&manifest).unwrap();
    for condition in [SchemaCondition::Gold, SchemaCondition::Distractors(2)] {
        let mut qs = sqale::eval::bench::load(&manifest).unwrap();
        let mut gold = sqale::eval::GoldCache::new(limits.clone());
        let cache = dir.path().join("cuts");
        subset::apply(&mut qs, condition, 7, &mut gold, &cache, &mut |_, _| {}).unwrap();
        for (q, original) in qs.iter().zip(&originals) {
            let (all_tables, keys) = tables_of(&original.db);
            assert!(all_tables.len() >= 4);
            let g = gold.get(q);
            if g.rows.is_err() {
                assert!(q.db.starts_with(dir.path()) && !q.db.starts_with(&cache), "a question whose gold fails keeps its database");
                continue;
            }
            assert!(q.db.starts_with(&cache), "{}", q.db.display());
            let (kept, _) = tables_of(&q.db);
            let gold_tables: Vec<String> = g.tables.clone();
            for t in &gold_tables {
                assert!(kept.contains(t), "{t} kept in {kept:?}");
            }
            match condition {
                SchemaCondition::Gold => assert_eq!(kept.len(), gold_tables.len(), "{kept:?}"),
                _ => {
                    assert_eq!(kept.len(), gold_tables.len() + 2, "{kept:?}");
                    // Added tables are linked by a key to another kept table, unless no key leads
                    // out of the kept set any more (library: notes is linked to nothing).
                    let linked = |t: &String| keys.iter().any(|(a, b)| (a == t && kept.contains(b)) || (b == t && kept.contains(a)));
                    let exhausted = all_tables.iter().filter(|t| !kept.contains(t)).all(|t| !linked(t));
                    for t in kept.iter().filter(|t| !gold_tables.contains(t)) {
                        assert!(linked(t) || exhausted, "{t} is linked in {kept:?}");
                    }
                }
            }
            // The gold query gives the same rows on the copy.
            let mut env = sqale::env::Environment::open(&q.db).unwrap();
            assert_eq!(env.execute(&q.gold_sql).unwrap().rows, g.rows.as_ref().unwrap().rows, "{}", q.id);
        }
    }
    assert_eq!(common::sha256(&dir.path().join("demo.sqlite")), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), files_before + 1, "only the cache folder was added");

    // End to end: the label carries the condition, and the episode's database is the copy.
    let out = dir.path().join("gold-run");
    let model = common::test_model();
    let o = sqale(&["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap(), "--limit", "1", "--schema", "gold",
        "-o", out.to_str().unwrap(), "--max-episode-tokens", "600", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = sqale::eval::read_records(&out.join("episodes.jsonl"));
    assert_eq!(recs[0].model, "SmolLM2-135M-Instruct.Q4_1.gguf @gold");
    let db = recs[0].episode.as_ref().unwrap()["db"].as_str().unwrap().to_string();
    assert!(db.contains("gold-run/databases/"), "{db}");
    let o = sqale(&["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap(), "--schema", "half"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("distractors:N"));
}

fn strings(v: &[&str]) -> common::ParquetColumn {
    common::ParquetColumn::Strings(v.iter().map(|s| Some(s.to_string())).collect())
}

/// A tiny SQaLe pair: queries (eight phrasings in a list column) and schemas (DDL + rows as
/// JSON), two schemas, three questions.
fn sqale_fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let queries = dir.join("queries.parquet");
    let schemas = dir.join("schemas");
    std::fs::create_dir_all(&schemas).unwrap();
    let phrasings = |base: &str| (1..=8).map(|k| format!("{base} (phrasing {k})")).collect::<Vec<_>>();
    common::write_parquet(&queries, &[
        ("question_id", strings(&["sq1", "sq2", "sq3"])),
        ("schema_id", strings(&["schema_000001", "schema_000001", "schema_000002"])),
        ("sql", strings(&[
            "SELECT COUNT(*) FROM ships WHERE flag = 'Malta'",
            "SELECT s.name FROM ships s JOIN voyages v ON v.ship_id = s.id GROUP BY s.id ORDER BY COUNT(*) DESC LIMIT 1",
            "SELECT AVG(price) FROM items",
        ])),
        ("difficulty", strings(&["simple", "challenging", "moderate"])),
        ("questions", common::ParquetColumn::Lists(vec![phrasings("How many ships fly the Maltese flag?"), phrasings("Which ship made the most voyages?"), phrasings("What is the average item price?")])),
        ("relevant_tables", strings(&["[\"ships\"]", "[\"ships\", \"voyages\"]", "[\"items\"]"])),
        ("execution_result", strings(&["[[2]]", "[[\"Aurora\"]]", "[[2.5]]"])),
    ]);
    common::write_parquet(&schemas.join("part-0.parquet"), &[
        ("schema_id", strings(&["schema_000002", "schema_000001", "schema_000003"])),
        ("full_schema", strings(&[
            "CREATE TABLE items ( id INTEGER PRIMARY KEY, price Numeric NOT NULL );",
            "CREATE TABLE ships ( id int8 NOT NULL UNIQUE, name Varchar NOT NULL, flag Varchar ); CREATE TABLE voyages ( id INTEGER PRIMARY KEY, ship_id int8 NOT NULL, port TEXT, FOREIGN KEY (ship_id) REFERENCES ships(id) );",
            "CREATE TABLE unused ( x INTEGER );",
        ])),
        ("schema_content", strings(&[
            r#"{"items": [{"id": 1, "price": 2.0}, {"id": 2, "price": 3.0}]}"#,
            r#"{"voyages": [{"id": 1, "ship_id": 1, "port": "Valletta"}, {"id": 2, "ship_id": 1, "port": "Genoa"}, {"id": 3, "ship_id": 2, "port": "Oslo"}], "ships": [{"id": 1, "name": "Aurora", "flag": "Malta"}, {"id": 2, "name": "Borealis", "flag": "Malta"}, {"id": 3, "name": "Cygnus", "flag": null}]}"#,
            r#"{"unused": []}"#,
        ])),
    ]);
    (queries, schemas)
}

/// An EHRSQL-style file (`valid.json` with `query`, `db_id`, `is_impossible`) beside its
/// database; gold queries use EHRSQL's `current_time` and vital-sign placeholders.
fn ehrsql_fixture(dir: &Path) -> PathBuf {
    let conn = rusqlite::Connection::open(dir.join("clinic.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE patients (subject_id INTEGER PRIMARY KEY, gender TEXT, dob TEXT);
         CREATE TABLE vitals (subject_id INTEGER REFERENCES patients(subject_id), charttime TEXT, heart_rate REAL);
         INSERT INTO patients VALUES (1, 'f', '2050-03-01 00:00:00'), (2, 'm', '2071-07-07 00:00:00');
         INSERT INTO vitals VALUES (1, '2105-12-30 10:00:00', 72), (1, '2105-12-31 08:00:00', 130), (2, '2104-01-01 00:00:00', 55);",
    )
    .unwrap();
    drop(conn);
    let items = json!([
        {"id": "e1", "db_id": "clinic", "question": "How many patients are there?", "query": "select count(*) from patients", "is_impossible": false},
        {"id": "e2", "db_id": "clinic", "question": "How many normal heart rate readings were there this year?",
         "query": "select count(*) from vitals where vitals.heart_rate between heart_rate_lower and heart_rate_upper and strftime('%y', vitals.charttime) = strftime('%y', current_time)", "is_impossible": false},
        {"id": "e3", "db_id": "clinic", "question": "What is the patient's favourite colour?", "query": "null", "is_impossible": true},
    ]);
    let path = dir.join("valid.json");
    std::fs::write(&path, items.to_string()).unwrap();
    path
}

/// Every source format scores the same way: SQaLe parquet (databases built once, phrasings
/// selectable) and an EHRSQL file (official fill-ins applied to the gold).
#[test]
fn sqale_parquet_and_ehrsql_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (queries, schemas) = sqale_fixture(dir.path());
    let spec = format!("sqale:{},{}", queries.display(), schemas.display());
    let cache = dir.path().join("cache");
    let load = |phrasing: &str, limit: Option<usize>| {
        let mut progress = |_: usize, _: usize| {};
        let mut options = sqale::eval::bench::LoadOptions { limit, shard: None, phrasing: phrasing.parse().unwrap(), cache: cache.clone(), progress: &mut progress };
        sqale::eval::bench::open(&spec, &mut options).unwrap()
    };
    let qs = load("3", None);
    assert_eq!(qs.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(), ["sq1", "sq2", "sq3"]);
    assert_eq!(qs[0].question, "How many ships fly the Maltese flag? (phrasing 3)");
    assert_eq!(qs[1].difficulty.as_deref(), Some("challenging"));
    assert_eq!(qs[0].db, qs[1].db, "one database per schema");
    let built: Vec<_> = std::fs::read_dir(cache.join("sqale")).unwrap().flatten().collect();
    assert_eq!(built.len(), 2, "only the schemas asked for are built");
    let mut gold = sqale::eval::GoldCache::new(sqale::env::Limits::default());
    for q in &qs {
        let g = gold.get(q);
        assert!(g.rows.is_ok(), "{}: {:?}", q.id, g.rows.as_ref().err());
    }
    assert_eq!(format!("{:?}", gold.get(&qs[1]).rows.as_ref().unwrap().rows), "[[Text(\"Aurora\")]]");
    assert_eq!(load("8", Some(1))[0].question, "How many ships fly the Maltese flag? (phrasing 8)");
    let mut progress = |_: usize, _: usize| {};
    let mut options = sqale::eval::bench::LoadOptions { limit: None, shard: None, phrasing: "9".parse().unwrap(), cache: cache.clone(), progress: &mut progress };
    let err = sqale::eval::bench::open(&spec, &mut options).unwrap_err().to_string();
    assert!(err.contains("no phrasing"), "{err}");

    // Scoring another system's predictions against the SQaLe databases.
    let preds = dir.path().join("preds.jsonl");
    std::fs::write(&preds, "{\"id\": \"sq1\", \"sql\": \"SELECT count(*) FROM ships WHERE flag = 'Malta'\"}\n{\"id\": \"sq3\", \"sql\": \"SELECT 2.5\"}\n").unwrap();
    let out = dir.path().join("scored");
    let o = sqale(&["eval", "score", "--bench", &spec, "--predictions", preds.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][0]["correct"].as_u64()), (Some(3), Some(2)));

    // EHRSQL: the unanswerable question is left out; placeholders are filled in the gold.
    let ehr = ehrsql_fixture(dir.path());
    let qs = sqale::eval::bench::load(&ehr).unwrap();
    assert_eq!(qs.len(), 2);
    assert!(qs[1].gold_sql.contains("'2105-12-31 23:59:00'") && qs[1].gold_sql.contains("between 60.0 and 100.0") && qs[1].gold_sql.contains("'%Y'"), "{}", qs[1].gold_sql);
    let mut gold = sqale::eval::GoldCache::new(sqale::env::Limits::default());
    assert_eq!(format!("{:?}", gold.get(&qs[1]).rows.as_ref().unwrap().rows), "[[Integer(1)]]");
    let preds = dir.path().join("ehr.jsonl");
    std::fs::write(&preds, "{\"id\": \"e1\", \"sql\": \"SELECT COUNT(DISTINCT subject_id) FROM patients\"}\n").unwrap();
    let o = sqale(&["eval", "score", "--bench", ehr.to_str().unwrap(), "--predictions", preds.to_str().unwrap(), "-o", dir.path().join("ehr-out").to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][0]["correct"].as_u64()), (Some(2), Some(1)));

    // A live episode on a built SQaLe database.
    let out = dir.path().join("live");
    let model = common::test_model();
    let o = sqale(&["eval", "--bench", &spec, "--model", model.to_str().unwrap(), "--limit", "1", "-o", out.to_str().unwrap(), "--max-episode-tokens", "600", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = sqale::eval::read_records(&out.join("episodes.jsonl"));
    assert_eq!(recs.len(), 1);
    assert!(recs[0].episode.as_ref().unwrap()["db"].as_str().unwrap().ends_with(".sqlite"));
}

/// SQaLe exports with one row per phrasing (`question`, `question_style`) are grouped by id.
#[test]
fn sqale_rows_per_phrasing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, schemas) = sqale_fixture(dir.path());
    let queries = dir.path().join("styles.parquet");
    common::write_parquet(&queries, &[
        ("question id", strings(&["a", "a", "b", "b"])),
        ("schema id", strings(&["schema_000002", "schema_000002", "schema_000002", "schema_000002"])),
        ("sql statament", strings(&["SELECT 1", "SELECT 1", "SELECT 2", "SELECT 2"])),
        ("question", strings(&["plain a", "vague a", "plain b", "vague b"])),
        ("question style", strings(&["Formal", "Vague", "Formal", "Vague"])),
    ]);
    let mut progress = |_: usize, _: usize| {};
    let mut options = sqale::eval::bench::LoadOptions { limit: None, shard: Some((2, 2)), phrasing: "vague".parse().unwrap(), cache: dir.path().join("c"), progress: &mut progress };
    let qs = sqale::eval::bench::open(&format!("sqale:{},{}", queries.display(), schemas.display()), &mut options).unwrap();
    assert_eq!(qs.len(), 1);
    assert_eq!((qs[0].id.as_str(), qs[0].question.as_str(), qs[0].gold_sql.as_str()), ("b", "vague b", "SELECT 2"));
}
