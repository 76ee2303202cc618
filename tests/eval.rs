//! `sqale eval` and `sqale eval score` on a small benchmark built here: two real databases,
//! questions at several difficulties, evidence, a string literal, and a gold query that fails.

#[path = "support/chromium.rs"]
mod chromium;
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use chromium::run_chromium;
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
    let o = sqale(&[
        "eval",
        "score",
        "--bench",
        manifest.to_str().unwrap(),
        "--predictions",
        preds.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &v["models"][0];
    assert_eq!(m["n"], 4, "the broken gold query is reported apart");
    assert_eq!(m["gold_failed"], 1);
    assert_eq!(m["correct"], 2);
    assert_eq!(m["ex"], 50.0);
    let recs: Vec<serde_json::Value> = std::fs::read_to_string(out.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: &str| recs.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(by_id("q2")["reward"], 1.0, "executes, wrong, F1 0");
    assert_eq!(by_id("q4")["reward"], 0.5, "valid SQL that does not run");
    assert_eq!(by_id("q1")["reward"], 3.0);
    for f in ["summary.md", "summary.csv", "summary.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }

    // Scoring again onto the folder is refused unless asked for; questions without a
    // prediction are missing, not wrong, and a prediction of no question is said so.
    let some = dir.path().join("some.jsonl");
    std::fs::write(&some, format!("{}\n{}\n", lines[0], json!({"id": "q9", "sql": "SELECT 1"}))).unwrap();
    let again = |extra: &[&str]| {
        let mut args = vec!["eval", "score", "--bench", manifest.to_str().unwrap(), "--predictions"];
        args.extend([some.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
        args.extend(extra);
        sqale(&args)
    };
    let before = std::fs::read(out.join("episodes.jsonl")).unwrap();
    let o = again(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("already holds results") && err.contains("--replace"), "{err}");
    assert_eq!(std::fs::read(out.join("episodes.jsonl")).unwrap(), before, "nothing replaced");
    let o = again(&["--replace"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("4 question(s) have no prediction: counted as missing, not as wrong"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][0]["correct"].as_u64()), (Some(1), Some(1)), "{v}");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("no prediction") && notes.contains("not questions of the benchmark") && notes.contains("q9"),
        "{notes}"
    );
    assert!(std::fs::read_to_string(out.join("summary.md")).unwrap().contains("## Left out"));
}

#[test]
fn eval_runs_resumes_after_a_kill_and_reports() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let before = common::sha256(&dir.path().join("demo.sqlite"));
    let out = dir.path().join("results");
    let model = common::test_model();
    let args = |json: bool| {
        let mut a = vec![
            "eval".to_string(),
            "--bench".into(),
            manifest.display().to_string(),
            "--model".into(),
            model.display().to_string(),
            "-o".into(),
            out.display().to_string(),
            "--max-episode-tokens".into(),
            "700".into(),
            "--ctx".into(),
            "2048".into(),
            "--seed".into(),
            "5".into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    // Start, kill once the first episode is written (not only a question whose gold fails),
    // then resume.
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(args(false))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let results = out.join("episodes.jsonl");
    let started = std::time::Instant::now();
    let with_episode = |text: String| {
        text.lines()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v["episode"].is_object()))
            .count()
    };
    while std::fs::read_to_string(&results).map(with_episode).unwrap_or(0) < 1 {
        assert!(started.elapsed().as_secs() < 600, "no episode finished");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first: Vec<String> =
        std::fs::read_to_string(&results).unwrap().lines().filter(|l| l.ends_with('}')).map(str::to_string).collect();
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
    for r in sqale::eval::read_records(&results).iter().filter(|r| r.gold_ok) {
        assert!(r.episode.as_ref().is_some_and(|e| !e.turns.is_empty()), "full trace kept");
        assert!(r.decoded_tokens > 0);
    }
    assert_eq!(common::sha256(&dir.path().join("demo.sqlite")), before);

    // The killed run's throughput is kept beside the resumed run's: between them, every episode.
    let runs = |models: &serde_json::Value| {
        let m = &models[model.file_name().unwrap().to_str().unwrap()];
        let earlier = m["earlier_runs"].as_array().cloned().unwrap_or_default();
        (earlier, m["last_run"].clone())
    };
    let models: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
    let (earlier, last) = runs(&models);
    let played = |o: &[String]| {
        o.iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v["episode"].is_object()))
            .count() as u64
    };
    assert_eq!(earlier.len(), 1, "{models}");
    assert_eq!(earlier[0]["episodes"].as_u64(), Some(played(&first)), "{models}");
    assert!(earlier[0]["seconds"].as_f64().unwrap() > 0.0);
    assert_ne!(earlier[0]["started_ms"], last["started_ms"]);
    let all: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(earlier[0]["episodes"].as_u64().unwrap() + last["episodes"].as_u64().unwrap(), played(&all));
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let total = format!("| {} |", played(&all));
    assert!(summary.contains(&total), "the runs table counts both runs' episodes: {summary}");

    // A third run has nothing left to do, and keeps both runs.
    let o = Command::new(env!("CARGO_BIN_EXE_sqale")).args(args(true)).output().unwrap();
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), text.lines().count());
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
    assert_eq!(runs(&again), runs(&models));
}

#[test]
fn bird_layout_loads() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("dev_databases/shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    std::fs::copy(common::demo_db(), db_dir.join("shop.sqlite")).unwrap();
    let dev = json!([{"question_id": 7, "db_id": "shop", "question": "How many suppliers?", "evidence": "", "SQL": "SELECT COUNT(*) FROM suppliers", "difficulty": "simple"}]);
    std::fs::write(dir.path().join("dev.json"), dev.to_string()).unwrap();
    let qs = sqale::eval::source::load(dir.path()).unwrap();
    assert_eq!(qs.len(), 1);
    assert_eq!(qs[0].id, "7");
    assert_eq!(qs[0].evidence, None);
    assert!(qs[0].db.ends_with("dev_databases/shop/shop.sqlite"));
}

#[test]
fn shards_merge_into_the_whole_run() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let model = common::test_model();
    let run = |shard: &str, out: &str| {
        let o = sqale(&[
            "eval",
            "--bench",
            manifest.to_str().unwrap(),
            "--model",
            model.to_str().unwrap(),
            "--limit",
            "2",
            "--shard",
            shard,
            "-o",
            dir.path().join(out).to_str().unwrap(),
            "--max-episode-tokens",
            "700",
            "--ctx",
            "2048",
            "--seed",
            "3",
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        sqale::eval::read_records(&dir.path().join(out).join("episodes.jsonl"))
    };
    let a = run("1/2", "s1");
    let b = run("2/2", "s2");
    let ids = |rs: &[sqale::eval::Record]| rs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&a), ["q1", "q3"]);
    assert_eq!(ids(&b), ["q2", "q4"]);
    let merged = dir.path().join("merged");
    let o = sqale(&[
        "eval",
        "merge",
        dir.path().join("s1").to_str().unwrap(),
        dir.path().join("s2").to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["models"][0]["n"], 4);
    let mut all = ids(&sqale::eval::read_records(&merged.join("episodes.jsonl")));
    all.sort();
    assert_eq!(all, ["q1", "q2", "q3", "q4"]);
    // Same seed per question whatever the shard: q3's episode equals a whole-run q3 episode's seed.
    assert_eq!(a[1].seed, sqale::eval::episode_seed(3, "q3"));
    let o =
        sqale(&["eval", "--shard", "3/2", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// Lays `html` out in Chromium and returns every SVG label (`<text>`) that sticks out of its
/// figure or overlaps another label of the same figure, as measured by the browser
/// (`getBoundingClientRect` after layout), for a copy of the page with a measuring script added.
fn label_problems(html: &str, dir: &Path) -> Vec<String> {
    const MEASURE: &str = r#"<script>
(function () {
  const out = [];
  document.querySelectorAll('svg').forEach(function (svg, fig) {
    const box = svg.getBoundingClientRect();
    const texts = Array.from(svg.querySelectorAll('text')).map(function (t) { return { s: t.textContent, r: t.getBoundingClientRect() }; })
      .filter(function (t) { return t.r.width > 0; });
    texts.forEach(function (t) {
      if (t.r.left < box.left - 0.5 || t.r.right > box.right + 0.5 || t.r.top < box.top - 0.5 || t.r.bottom > box.bottom + 0.5)
        out.push('figure ' + fig + ': "' + t.s + '" is cut off');
    });
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].r, b = texts[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) out.push('figure ' + fig + ': "' + texts[i].s + '" overlaps "' + texts[j].s + '"');
    }
  });
  const pre = document.createElement('pre');
  pre.id = 'label-problems';
  pre.textContent = JSON.stringify({ figures: document.querySelectorAll('svg').length, problems: out });
  document.body.appendChild(pre);
})();
</script>"#;
    assert!(!html.contains("<script"), "the report itself has no scripts");
    let page = dir.join("measured.html");
    std::fs::write(&page, html.replace("</body>", &format!("{MEASURE}</body>"))).unwrap();
    let dom = run_chromium(&page, &["--dump-dom".to_string()]);
    let found = dom
        .split("<pre id=\"label-problems\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no measurement in the dumped DOM: {dom}"));
    let text = found.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(v["figures"].as_u64().unwrap() > 0, "no SVG figure measured");
    v["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

/// A short episode in the shape the agent writes, for a report's trace.
fn episode(question: &str, sql: &str) -> sqale::agent::Episode {
    serde_json::from_value(json!({
        "question": question, "evidence": null, "db": "demo.sqlite", "sql": sql, "sql_source": "submit",
        "ended_by": "submit_sql", "tool_turns": 1, "tool_calls": 2, "tables_opened": ["customers"],
        "turns": [{"index": 1, "final_turn": false, "completion": "<tool_call>{\"name\": \"describe_table\"}</tool_call>", "tokens": 20, "finish": "stop",
                   "calls": [{"tool": "describe_table", "args": {"table": "customers"}, "ok": true, "result": "customer_id INTEGER <PRIMARY KEY>"},
                             {"tool": "submit_sql", "args": {"sql": sql}, "ok": true, "result": "submitted"}], "seconds": 0.4}],
        "tokens": {"context_tokens": 700, "decoded_tokens": 700, "reused_tokens": 0, "generated_tokens": 20, "prefill_seconds": 0.3, "generate_seconds": 0.2},
        "seed": 1, "prompt_hash": "x", "prompt_source": "builtin", "seconds": 0.5
    }))
    .unwrap()
}

/// The HTML report compares two quantisations as a user would: per question both models' SQL,
/// whether each was right and the trace a click away; the runs table with readable parameters;
/// no dangling "disagree on 0:". Headless Chromium (Debian's `chromium`) lays it out, and no
/// label of any plot is cut off or overlaps another, even for two long-named models at the same
/// point (which the first layout failed); the screenshot is kept in `target/eval-report.png`.
#[test]
fn html_report_compares_models_and_lays_out_cleanly_in_chromium() {
    let _g = common::one_at_a_time();
    use sqale::eval::results::{self, ModelEntry, ResultsDir, RunStats};
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    // Two "quantisations" of one model scored on the fixture, merged through the library.
    let (a, b) = ("SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M-Instruct.Q4_1-copy.gguf");
    let score = |label: &str, q1: &str, q2: &str| {
        let preds = dir.path().join(format!("{label}.jsonl"));
        let lines =
            [json!({"id": "q1", "sql": q1}), json!({"id": "q2", "sql": q2}), json!({"id": "q5", "sql": "SELECT 1"})];
        std::fs::write(&preds, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
        let out = dir.path().join(label);
        let o = sqale(&[
            "eval",
            "score",
            "--bench",
            manifest.to_str().unwrap(),
            "--predictions",
            preds.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--label",
            label,
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    // Right on one question each: the same accuracy, so both sit on the same spot of each plot.
    let inputs = [
        score(a, "SELECT COUNT(*) FROM customers", "SELECT 0"),
        score(b, "SELECT 0", "SELECT COUNT(*) FROM orders WHERE status = 'back-ordered'"),
    ];
    let merged = results::merge(&inputs, &dir.path().join("merged"), false).unwrap();
    // Give both the same file size and speed, and q1 an episode, so that the plots have points
    // (on the same spot) and the question table a trace.
    let mut recs = merged.records();
    for r in recs.iter_mut() {
        r.seconds = 2.0;
        if r.id == "q1" {
            r.episode = Some(episode(r.question.as_deref().unwrap(), r.sql.as_deref().unwrap()));
        }
    }
    merged.write_records(&recs).unwrap();
    for label in [a, b] {
        let run = RunStats {
            parallel: 4,
            episodes: 5,
            seconds: 30.0,
            generated_tokens: 1500,
            peak_rss_bytes: Some(300 << 20),
            // The second model ran on a busy machine: its speed is marked.
            load: Some(sqale::eval::load::Load {
                loadavg_start: 1.0,
                loadavg_end: 3.5,
                cpus: 2,
                others: if label == b { 0.48 } else { 0.01 },
                steal: 0.0,
            }),
            started_ms: None,
        };
        merged
            .record_model(
                label,
                ModelEntry {
                    path: format!("/models/{label}"),
                    bytes: 100_000_000,
                    params: 134_515_008,
                    last_run: Some(run),
                    earlier_runs: Vec::new(),
                    servers: None,
                    weights: None,
                    imatrix: None,
                    mix: Vec::new(),
                    fallback: None,
                    sha256: None,
                    settings: None,
                },
            )
            .unwrap();
    }
    let reports = results::write_reports(merged.path()).unwrap();
    assert_eq!(reports.summary.models.len(), 2);
    assert_eq!(reports.summary.models[0].ex, reports.summary.models[1].ex);
    assert_eq!(
        reports.summary.paired[0].disagreements,
        [("q1".to_string(), true, false), ("q2".to_string(), false, true)]
    );
    let md = std::fs::read_to_string(merged.file(ResultsDir::SUMMARY_MD)).unwrap();
    assert!(md.contains("134.5 M") && !md.contains("134515008"), "{md}");
    assert!(md.contains("they disagree on 2: q1, q2"), "{md}");
    let summary: results::SummaryFile =
        serde_json::from_str(&std::fs::read_to_string(merged.file(ResultsDir::SUMMARY_JSON)).unwrap()).unwrap();
    assert_eq!(summary.runs[a].last_run.as_ref().unwrap().parallel, 4, "summary.json reads back typed");

    let html = std::fs::read_to_string(merged.file(ResultsDir::REPORT_HTML)).unwrap();
    for needed in [
        "<svg",
        "How episodes ended",
        "<h2>Runs</h2>",
        "134.5 M",
        "episodes/min",
        "<h2>Questions</h2>",
        "href=\"#q-q2\"",
        "id=\"q-q2\"",
        "✓ right",
        "✗ wrong",
        "<details><summary>episode trace",
        "describe_table",
        "customer_id INTEGER &lt;PRIMARY KEY&gt;",
        "How many orders are back-ordered?",
        "status = 'back-ordered'",
        "gold query failed",
        "95.4",
        "busy: others 48 %",
        "the machine was busy during its run (other processes used 48 % of the 2 CPUs",
    ] {
        assert!(html.contains(needed), "the report lacks {needed:?}");
    }
    assert!(md.contains("Warning: ") && md.contains("other processes used 48 %"), "{md}");
    assert!(!html.contains("on 0:") && !html.contains("134515008"));
    for external in ["http://", "https://", "<link", "<script", "src="] {
        assert!(!html.contains(external), "the report is self-contained: found {external:?}");
    }
    // Both models' SQL for q2, in its row.
    let q2_row = html.split("id=\"q-q2\"").nth(1).unwrap().split("</tr>").next().unwrap();
    assert!(q2_row.contains("SELECT 0") && q2_row.contains("SELECT COUNT(*) FROM orders"), "{q2_row}");

    // The measurement finds what the first layout did wrong: two labels written at the same spot
    // beside coinciding points, and a long name right-aligned to a fixed margin.
    let old = format!(
        "<html><body><svg viewBox=\"0 0 640 300\" width=\"640\" height=\"300\"><text x=\"558\" y=\"94\" font-size=\"10\">{a}</text>\
         <text x=\"558\" y=\"94\" font-size=\"10\">{b}</text></svg><svg viewBox=\"0 0 640 100\" width=\"640\" height=\"100\">\
         <text x=\"154\" y=\"25\" font-size=\"11\" text-anchor=\"end\">{a}</text></svg></body></html>"
    );
    let problems = label_problems(&old, dir.path());
    assert!(
        problems.iter().any(|p| p.contains("overlaps")) && problems.iter().any(|p| p.contains("cut off")),
        "{problems:?}"
    );
    // The report itself has neither.
    let problems = label_problems(&html, dir.path());
    assert!(problems.is_empty(), "labels cut off or overlapping in report.html: {problems:#?}");

    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/eval-report.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&shot);
    run_chromium(&merged.file(ResultsDir::REPORT_HTML), &[format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
}

/// `--parallel 4` runs the episodes as four sequences of one llama.cpp context, decoded in
/// shared batches; every episode must come out exactly as with `--parallel 1`.
#[test]
fn parallel_episodes_match_serial_ones() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    let model = common::test_model();
    let run = |parallel: &str| {
        let out = dir.path().join(format!("p{parallel}"));
        let o = sqale(&[
            "eval",
            "--bench",
            manifest.to_str().unwrap(),
            "--model",
            model.to_str().unwrap(),
            "--parallel",
            parallel,
            "-o",
            out.to_str().unwrap(),
            "--max-episode-tokens",
            "768",
            "--seed",
            "11",
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let models: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("models.json")).unwrap()).unwrap();
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
        assert_eq!(a.turn_signature(), b.turn_signature(), "question {}: the episode depends on --parallel", a.id);
        assert_eq!(
            (a.sql.as_ref(), a.ended_by.as_ref(), a.correct, a.seed),
            (b.sql.as_ref(), b.ended_by.as_ref(), b.correct, b.seed)
        );
        // Which episode decodes the shared system prompt (the others restore its snapshot) depends
        // on which worker asks first, so compare what the context holds, not who decoded it.
        let tokens = |r: &sqale::eval::Record| r.episode.as_ref().map(|e| e.tokens);
        let (ta, tb) = (tokens(a).unwrap_or_default(), tokens(b).unwrap_or_default());
        assert_eq!(
            (ta.context_tokens, a.generated_tokens),
            (tb.context_tokens, b.generated_tokens),
            "question {}",
            a.id
        );
        for t in [ta, tb] {
            assert_eq!(
                t.decoded_tokens + t.reused_tokens,
                t.context_tokens,
                "question {}: every token decoded once",
                a.id
            );
        }
    }
    let decoded = |rs: &[sqale::eval::Record]| rs.iter().map(|r| r.decoded_tokens).sum::<usize>();
    assert_eq!(decoded(&serial), decoded(&parallel), "the same tokens decoded in all, the prompt once");
    assert!(serial.iter().filter(|r| r.gold_ok).all(|r| r.generated_tokens > 0));
}

/// `--schema gold` and `--schema distractors:N` run on copies holding only the chosen tables
/// (grown along foreign keys), never touching the benchmark's own files.
#[test]
fn schema_conditions_cut_copies_of_the_database() {
    let _g = common::one_at_a_time();
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
    let originals = sqale::eval::source::load(&manifest).unwrap();
    for condition in [SchemaCondition::Gold, SchemaCondition::Distractors(2)] {
        let mut qs = sqale::eval::source::load(&manifest).unwrap();
        let mut gold = sqale::eval::GoldCache::new(limits.clone());
        let cache = dir.path().join("cuts");
        subset::apply(&mut qs, condition, 7, &mut gold, &cache, &mut |_, _| {}).unwrap();
        for (q, original) in qs.iter().zip(&originals) {
            let (all_tables, keys) = tables_of(&original.db);
            assert!(all_tables.len() >= 4);
            let g = gold.get(q);
            if g.rows.is_err() {
                assert!(
                    q.db.starts_with(dir.path()) && !q.db.starts_with(&cache),
                    "a question whose gold fails keeps its database"
                );
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
                    let linked = |t: &String| {
                        keys.iter().any(|(a, b)| (a == t && kept.contains(b)) || (b == t && kept.contains(a)))
                    };
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
    let o = sqale(&[
        "eval",
        "--bench",
        manifest.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--limit",
        "1",
        "--schema",
        "gold",
        "-o",
        out.to_str().unwrap(),
        "--max-episode-tokens",
        "600",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = sqale::eval::read_records(&out.join("episodes.jsonl"));
    assert_eq!(recs[0].model, "SmolLM2-135M-Instruct.Q4_1.gguf @gold");
    let db = recs[0].episode.as_ref().unwrap().db.clone();
    assert!(db.contains("gold-run/databases/"), "{db}");
    let o =
        sqale(&["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap(), "--schema", "half"]);
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
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let (queries, schemas) = sqale_fixture(dir.path());
    let spec = format!("sqale:{},{}", queries.display(), schemas.display());
    let cache = dir.path().join("cache");
    let load = |phrasing: &str, limit: Option<usize>| {
        let mut progress = |_: usize, _: usize| {};
        let mut options = sqale::eval::source::LoadOptions {
            limit,
            shard: None,
            phrasing: phrasing.parse().unwrap(),
            cache: cache.clone(),
            progress: &mut progress,
        };
        sqale::eval::source::open(&spec, &mut options).unwrap()
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
    let mut options = sqale::eval::source::LoadOptions {
        limit: None,
        shard: None,
        phrasing: "9".parse().unwrap(),
        cache: cache.clone(),
        progress: &mut progress,
    };
    let err = sqale::eval::source::open(&spec, &mut options).unwrap_err().to_string();
    assert!(err.contains("no phrasing"), "{err}");

    // Scoring another system's predictions against the SQaLe databases.
    let preds = dir.path().join("preds.jsonl");
    std::fs::write(&preds, "{\"id\": \"sq1\", \"sql\": \"SELECT count(*) FROM ships WHERE flag = 'Malta'\"}\n{\"id\": \"sq3\", \"sql\": \"SELECT 2.5\"}\n").unwrap();
    let out = dir.path().join("scored");
    let o = sqale(&[
        "eval",
        "score",
        "--bench",
        &spec,
        "--predictions",
        preds.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // sq2 has no prediction: missing, not wrong.
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][0]["correct"].as_u64()), (Some(2), Some(2)));
    assert!(v["notes"].to_string().contains("1 question(s) have no prediction"), "{v}");

    // EHRSQL: the unanswerable question is left out; placeholders are filled in the gold.
    let ehr = ehrsql_fixture(dir.path());
    let qs = sqale::eval::source::load(&ehr).unwrap();
    assert_eq!(qs.len(), 2);
    assert!(
        qs[1].gold_sql.contains("'2105-12-31 23:59:00'")
            && qs[1].gold_sql.contains("between 60.0 and 100.0")
            && qs[1].gold_sql.contains("'%Y'"),
        "{}",
        qs[1].gold_sql
    );
    let mut gold = sqale::eval::GoldCache::new(sqale::env::Limits::default());
    assert_eq!(format!("{:?}", gold.get(&qs[1]).rows.as_ref().unwrap().rows), "[[Integer(1)]]");
    let preds = dir.path().join("ehr.jsonl");
    std::fs::write(&preds, "{\"id\": \"e1\", \"sql\": \"SELECT COUNT(DISTINCT subject_id) FROM patients\"}\n").unwrap();
    let o = sqale(&[
        "eval",
        "score",
        "--bench",
        ehr.to_str().unwrap(),
        "--predictions",
        preds.to_str().unwrap(),
        "-o",
        dir.path().join("ehr-out").to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The second question has no prediction: missing, not wrong.
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][0]["correct"].as_u64()), (Some(1), Some(1)));

    // A live episode on a built SQaLe database.
    let out = dir.path().join("live");
    let model = common::test_model();
    let o = sqale(&[
        "eval",
        "--bench",
        &spec,
        "--model",
        model.to_str().unwrap(),
        "--limit",
        "1",
        "-o",
        out.to_str().unwrap(),
        "--max-episode-tokens",
        "600",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let recs = sqale::eval::read_records(&out.join("episodes.jsonl"));
    assert_eq!(recs.len(), 1);
    assert!(recs[0].episode.as_ref().unwrap().db.ends_with(".sqlite"));
}

/// SQaLe exports with one row per phrasing (`question`, `question_style`) are grouped by id.
#[test]
fn sqale_rows_per_phrasing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, schemas) = sqale_fixture(dir.path());
    let queries = dir.path().join("styles.parquet");
    common::write_parquet(
        &queries,
        &[
            ("question id", strings(&["a", "a", "b", "b"])),
            ("schema id", strings(&["schema_000002", "schema_000002", "schema_000002", "schema_000002"])),
            ("sql statament", strings(&["SELECT 1", "SELECT 1", "SELECT 2", "SELECT 2"])),
            ("question", strings(&["plain a", "vague a", "plain b", "vague b"])),
            ("question style", strings(&["Formal", "Vague", "Formal", "Vague"])),
        ],
    );
    let mut progress = |_: usize, _: usize| {};
    let mut options = sqale::eval::source::LoadOptions {
        limit: None,
        shard: Some((2, 2)),
        phrasing: "vague".parse().unwrap(),
        cache: dir.path().join("c"),
        progress: &mut progress,
    };
    let qs =
        sqale::eval::source::open(&format!("sqale:{},{}", queries.display(), schemas.display()), &mut options).unwrap();
    assert_eq!(qs.len(), 1);
    assert_eq!((qs[0].id.as_str(), qs[0].question.as_str(), qs[0].gold_sql.as_str()), ("b", "vague b", "SELECT 2"));
}

/// A manifest names the built-in demo database as `"demo"` (no copy of `data/demo.sqlite`
/// needed). An episode under a 600-token budget: `eval` warns that the prompt takes more than
/// half of it, prints a line per episode and per model when stderr is not a terminal (here a
/// pipe), and records the time to the first generated token, well before the episode's end.
#[test]
fn demo_by_name_budget_warning_progress_lines_and_time_to_first_token() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("bench.jsonl");
    let q = json!({"id": "d1", "db": "demo", "question": "How many customers are there?", "gold_sql": "SELECT COUNT(*) FROM customers"});
    std::fs::write(&manifest, format!("{q}\n")).unwrap();
    let preds = dir.path().join("p.jsonl");
    std::fs::write(&preds, format!("{}\n", json!({"id": "d1", "sql": "SELECT COUNT(*) FROM customers"}))).unwrap();
    let scored = dir.path().join("scored");
    let o = sqale(&[
        "eval",
        "score",
        "--bench",
        manifest.to_str().unwrap(),
        "--predictions",
        preds.to_str().unwrap(),
        "-o",
        scored.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((s["models"][0]["correct"].as_u64(), s["models"][0]["gold_failed"].as_u64()), (Some(1), Some(0)), "{s}");

    let out = dir.path().join("results");
    let model = common::test_model();
    let o = sqale(&[
        "eval",
        "--bench",
        manifest.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--max-episode-tokens",
        "600",
        "--ctx",
        "2048",
        "--threads",
        "2",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let warning = stderr.lines().find(|l| l.starts_with("warning: ")).unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(warning.contains("the prompt takes") && warning.contains("of the episode's 600 tokens"), "{warning}");
    let label = "SmolLM2-135M-Instruct.Q4_1.gguf";
    assert!(stderr.contains(&format!("{label}: episode 1/1 d1: ")), "{stderr}");
    assert!(
        stderr.lines().any(|l| l.starts_with(&format!("{label}: 1 episodes played")) && l.ends_with(" s")),
        "{stderr}"
    );
    let line = std::fs::read_to_string(out.join("episodes.jsonl")).unwrap();
    let r: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    let e = &r["episode"];
    let (first, seconds) = (e["first_token_seconds"].as_f64().unwrap(), e["seconds"].as_f64().unwrap());
    let prompt = e["prompt_tokens"].as_u64().unwrap();
    eprintln!("prompt {prompt} tokens; first token at {first:.2} s of {seconds:.2} s");
    assert!(prompt > 300 && warning.contains(&format!("takes {prompt} ")), "{prompt}: {warning}");
    assert!(first > 0.0 && first < seconds, "first token at {first} s of {seconds} s");
    assert!(e["tokens"]["generated_tokens"].as_u64().unwrap() > 5, "{e}");
}

/// Results folders that meet lose nothing and credit nothing wrongly: a merge of folders played
/// with other seeds is refused (or keeps both), a resume compares the model's file and the
/// settings, a run that plays nothing keeps the speeds of the run that did, the reports cover the
/// questions selected now, a changed gold query is scored again, and lines that are not records
/// or repeat one are reported.
#[test]
fn folders_that_meet_lose_nothing() {
    let _g = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let manifest = fixture(dir.path());
    for d in ["d1", "d2"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
    }
    // Two different files of one name.
    let m1 = dir.path().join("d1/m.gguf");
    let m2 = dir.path().join("d2/m.gguf");
    std::fs::copy(common::test_model(), &m1).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf"), &m2).unwrap();
    let run_with = |model: &Path, out: &str, limit: &str, seed: &str, budget: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec!["eval", "--bench", manifest.to_str().unwrap(), "--model", model.to_str().unwrap()];
        args.extend(["--limit", limit, "--seed", seed, "--max-episode-tokens", budget, "--ctx", "2048", "--json"]);
        args.extend(["-o", out.to_str().unwrap()]);
        args.extend(extra);
        sqale(&args)
    };
    let run = |model: &Path, out: &str, limit: &str, seed: &str, extra: &[&str]| {
        run_with(model, out, limit, seed, "700", extra)
    };
    let ok = |o: std::process::Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let refused = |o: std::process::Output, needle: &str| {
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success() && err.contains(needle), "{needle}: {err}");
    };
    let a = dir.path().join("a");
    ok(run(&m1, "a", "2", "1", &[]));
    ok(run(&m1, "b", "1", "2", &[]));
    let models = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("models.json")).unwrap()).unwrap()
    };
    let run_a = models(&a)["m.gguf"].clone();
    assert_eq!(run_a["last_run"]["episodes"], 2, "{run_a}");
    assert_eq!(run_a["settings"]["seed"], 1, "{run_a}");
    assert_eq!(run_a["sha256"].as_str().unwrap(), common::sha256(&m1), "{run_a}");
    assert!(run_a["last_run"]["load"]["cpus"].as_u64().unwrap() > 0, "the machine's load is recorded: {run_a}");

    // A merge of a seed-1 and a seed-2 folder is refused, naming the seed; --keep-both keeps both.
    let merge = |out: &str, extra: &[&str]| {
        let mut args = vec!["eval", "merge", a.to_str().unwrap()];
        let b = dir.path().join("b");
        let out = dir.path().join(out);
        args.extend([b.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
        args.extend(extra);
        sqale(&args)
    };
    refused(merge("merged", &[]), "seed 1 against 2");
    let v = ok(merge("both", &["--keep-both"]));
    let labels: Vec<&str> = v["models"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
    assert_eq!(labels, ["m.gguf", "m.gguf (seed 2)"], "{v}");
    assert_eq!((v["models"][0]["n"].as_u64(), v["models"][1]["n"].as_u64()), (Some(2), Some(1)));

    // Two files of one name in one run, or another file of the folder's name, are refused.
    refused(run(&m1, "c", "1", "1", &["--model", m2.to_str().unwrap()]), "share the name m.gguf");
    refused(run(&m2, "a", "2", "1", &[]), "from another file");
    // Other settings are refused, naming them.
    refused(run(&m1, "a", "2", "2", &[]), "seed 1 against 2");
    refused(run_with(&m1, "a", "2", "1", "600", &[]), "max-episode-tokens 700 against 600");

    // The same command again plays nothing and keeps the speeds of the run that played.
    let v = ok(run(&m1, "a", "2", "1", &[]));
    assert_eq!(v["models"][0]["n"], 2);
    assert_eq!(models(&a)["m.gguf"]["last_run"], run_a["last_run"], "the speeds of the run that played are kept");
    // --limit 1 reports one question, and says what it left out.
    let v = ok(run(&m1, "a", "1", "1", &[]));
    assert_eq!(v["models"][0]["n"], 1, "{v}");
    assert!(v["notes"].to_string().contains("1 record(s) of 1 question(s) not selected now"), "{v}");

    // A changed gold query is scored again; lines that are not records, and repeated records,
    // are reported.
    let text = std::fs::read_to_string(&manifest).unwrap();
    let changed = text.replace("SELECT COUNT(*) FROM customers", "SELECT COUNT(*) + 1000 FROM customers");
    assert_ne!(changed, text);
    std::fs::write(&manifest, changed).unwrap();
    let episodes = a.join("episodes.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&episodes).unwrap().lines().map(str::to_string).collect();
    std::fs::write(&episodes, format!("{}\nnot a record\n{}\n", lines.join("\n"), lines[1])).unwrap();
    let o = run(&m1, "a", "2", "1", &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 record(s) of the results folder scored again"));
    let v = ok(o);
    let q1 = sqale::eval::read_records(&episodes).into_iter().find(|r| r.id == "q1").unwrap();
    assert_eq!(q1.gold_sql.as_deref(), Some("SELECT COUNT(*) + 1000 FROM customers"));
    assert!(!q1.correct && q1.episode.is_some(), "scored against the new gold, its episode kept");
    let notes = v["notes"].to_string();
    assert!(notes.contains("1 line(s) of episodes.jsonl are not records") && notes.contains("line 3"), "{notes}");
    assert!(notes.contains("1 duplicate record(s)"), "{notes}");
    assert_eq!(v["models"][0]["n"], 2, "the duplicate is not counted: {v}");
}
