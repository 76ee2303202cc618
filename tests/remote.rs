//! The remote generator against a scripted HTTP stub that speaks vLLM's API (request and
//! response shapes as vLLM's `/v1/completions` documents them), and the faults a server can
//! throw: cut responses, a server that goes away, 503 while loading, a slow server, a context
//! overflow, a wrong API key. The real llama.cpp server is in `tests/server.rs`.

mod common;
#[path = "support/stub_server.rs"]
mod stub;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqale::agent::{Agent, EndedBy, Settings};
use sqale::eval::{GoldCache, Question};
use sqale::remote::{Pool, PoolError, PoolEvent, PoolOptions, RemoteError, RemoteGenerator, Sampling};
use stub::{Answer, Seen, Stub};

const LIST: &str = "<think>\nlook around\n</think>\n{\"tool\": \"list_tables\", \"args\": {}}";
const ANSWER: &str = "SELECT COUNT(*) FROM customers";

fn submit(sql: &str) -> String {
    format!("<think>done</think>\n{}", json!({"tool": "submit_sql", "args": {"sql": sql}}))
}

const SAMPLING: Sampling = Sampling { temperature: 0.6, top_p: 0.95, top_k: 20 };

fn options() -> PoolOptions {
    PoolOptions { timeout: Duration::from_secs(5), backoff: Duration::from_millis(10), ..PoolOptions::default() }
}

/// A vLLM stub that answers completion `i` with `script[i % len]`, its prefix cache holding
/// every prompt token it saw before.
fn vllm(script: Vec<String>) -> Stub {
    let n = AtomicUsize::new(0);
    let seen_prompt = AtomicUsize::new(0);
    stub::start(move |r: &Seen| {
        if let Some(a) = stub::vllm_probe(r, 4096) {
            return a;
        }
        let i = n.fetch_add(1, Ordering::SeqCst);
        let cached = seen_prompt.swap(r.body["prompt"].as_array().map_or(0, |a| a.len()), Ordering::SeqCst);
        stub::vllm_completion(r, &script[i % script.len()], cached)
    })
}

fn run_episode(pool: &Pool) -> sqale::Episode {
    let db = common::demo_db();
    let before = common::sha256(&db);
    let mut agent = Agent::new(RemoteGenerator::new(pool, SAMPLING), Settings { seed: 5, ..Settings::default() });
    let ep = agent.run("How many customers are there?", &db).expect("episode runs");
    assert_eq!(common::sha256(&db), before, "the database changed");
    ep
}

fn prompts(stub: &Stub) -> Vec<Vec<u32>> {
    stub.requests("/v1/completions")
        .iter()
        .map(|r| r.body["prompt"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap() as u32).collect())
        .collect()
}

#[test]
fn an_episode_on_vllm_sends_token_ids_with_every_sampling_value_and_grows_one_sequence() {
    let server = vllm(vec![LIST.to_string(), submit(ANSWER)]);
    let pool = Pool::connect(&[&server.url], options()).unwrap();
    assert_eq!(pool.servers()[0].kind, sqale::remote::ServerKind::Vllm, "probed: /props is 404 on vLLM");
    assert_eq!(pool.context(), 4096, "max_model_len from /v1/models");
    assert_eq!(pool.stop_ids(), [2, 3]);
    assert!(pool.label().starts_with("qwen3.5-2b-grpo-synsql @ vllm http://127.0.0.1:"), "{}", pool.label());
    let ep = run_episode(&pool);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    assert_eq!(ep.sql.as_deref(), Some(ANSWER));
    let requests = server.requests("/v1/completions");
    assert_eq!(requests.len(), 2);
    for r in &requests {
        let b = &r.body;
        assert_eq!(b["model"], "trl-lab/qwen3.5-2b-grpo-synsql");
        assert!(b["max_tokens"].as_u64().unwrap() > 16, "max_tokens always sent: {b}");
        assert_eq!(
            (b["temperature"].as_f64(), b["top_k"].as_i64(), b["min_p"].as_f64()),
            (Some(0.6), Some(20), Some(0.0))
        );
        assert!((b["top_p"].as_f64().unwrap() - 0.95).abs() < 1e-6);
        assert_eq!(b["stop_token_ids"], json!([2, 3]));
        assert_eq!((b["skip_special_tokens"].as_bool(), b["return_token_ids"].as_bool()), (Some(false), Some(true)));
        assert!(b["seed"].is_u64());
    }
    assert_ne!(requests[0].body["seed"], requests[1].body["seed"], "each request its own seed");
    // The second prompt is the first, the ids the server returned (its stop token dropped),
    // then the tool results' ids: nothing generated was tokenised again.
    let p = prompts(&server);
    let returned = stub::tokenize(LIST);
    assert_eq!(&p[1][..p[0].len()], &p[0][..]);
    assert_eq!(&p[1][p[0].len()..p[0].len() + returned.len()], &returned[..]);
    assert!(p[0].starts_with(&stub::tokenize(&Settings::default().prompt.shared_prefix().render())));
    // Token accounting from the server's own counters, per turn.
    let caches: Vec<_> = ep.turns.iter().map(|t| t.server_cache.expect("a remote turn has cache counts")).collect();
    assert_eq!(caches[0].prompt, p[0].len());
    assert_eq!(caches[1].cached, Some(p[0].len()), "the stub's cache held the first prompt");
    assert_eq!(caches[1].decoded, Some(p[1].len() - p[0].len()));
    assert_eq!(ep.tokens.context_tokens, p[1].len() + stub::tokenize(&submit(ANSWER)).len());
    assert_eq!(ep.tokens.generated_tokens, returned.len() + stub::tokenize(&submit(ANSWER)).len());
}

#[test]
fn a_server_that_cuts_its_answers_is_dropped_and_the_turn_is_resent_elsewhere() {
    let cutting = stub::start(|r: &Seen| {
        stub::vllm_probe(r, 4096).unwrap_or_else(|| match stub::vllm_completion(r, LIST, 0) {
            Answer::Json(_, v) => Answer::Cut(v, 40),
            other => other,
        })
    });
    let good = vllm(vec![submit(ANSWER)]);
    let pool = Pool::connect(&[&cutting.url, &good.url], options()).unwrap();
    let ep = run_episode(&pool);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    assert_eq!(cutting.requests("/v1/completions").len(), 3, "tried three times");
    assert_eq!(pool.live(), 1, "then dropped");
    assert_eq!(prompts(&good)[0], prompts(&cutting)[0], "the same ids re-sent");
}

#[test]
fn a_loading_server_is_waited_for_on_health() {
    let health_calls = Arc::new(AtomicUsize::new(0));
    let completions = AtomicUsize::new(0);
    let h = health_calls.clone();
    let server = stub::start(move |r: &Seen| {
        if r.path == "/health" {
            // Ready on the third look.
            let k = h.fetch_add(1, Ordering::SeqCst);
            return if k < 2 {
                Answer::Json(503, json!({"error": {"message": "Loading model"}}))
            } else {
                Answer::Json(200, json!({}))
            };
        }
        if let Some(a) = stub::vllm_probe(r, 4096) {
            return a;
        }
        if completions.fetch_add(1, Ordering::SeqCst) == 0 {
            return Answer::Json(503, json!({"error": {"message": "Loading model", "code": 503}}));
        }
        stub::vllm_completion(r, &submit(ANSWER), 0)
    });
    let pool = Pool::connect(&[&server.url], options()).unwrap();
    let ep = run_episode(&pool);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    assert!(health_calls.load(Ordering::SeqCst) >= 3, "waited on /health");
    assert_eq!(server.requests("/v1/completions").len(), 2);
}

#[test]
fn a_slow_server_times_out_and_its_episode_goes_to_the_other() {
    let slow = stub::start(|r: &Seen| {
        stub::vllm_probe(r, 4096)
            .unwrap_or_else(|| Answer::Slow(Duration::from_secs(3), Box::new(stub::vllm_completion(r, LIST, 0))))
    });
    let good = vllm(vec![submit(ANSWER)]);
    // The pool says when it drops a server (the command line prints it); it prints nothing.
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = events.clone();
    let on_event: sqale::remote::PoolListener = Arc::new(move |e: &PoolEvent| seen.lock().unwrap().push(e.clone()));
    let o = PoolOptions { timeout: Duration::from_millis(500), tries: 2, on_event: Some(on_event), ..options() };
    let pool = Pool::connect(&[&slow.url, &good.url], o).unwrap();
    let ep = run_episode(&pool);
    assert_eq!(ep.ended_by, EndedBy::SubmitSql);
    assert_eq!(slow.requests("/v1/completions").len(), 2);
    assert_eq!(pool.live(), 1);
    let events = events.lock().unwrap();
    assert!(
        matches!(&events[..], [PoolEvent::Dropped { url, tries: 2, error }] if *url == slow.url && error.contains("no answer within")),
        "{events:?}"
    );
    assert!(events[0].to_string().starts_with(&format!("dropping server {} after 2 failed tries", slow.url)));
}

#[test]
fn a_context_overflow_ends_the_episode_as_context_full() {
    let server = stub::start(|r: &Seen| {
        stub::vllm_probe(r, 4096).unwrap_or_else(|| {
            Answer::Json(400, json!({"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 4096 tokens", "type": "BadRequestError", "code": 400}}))
        })
    });
    let pool = Pool::connect(&[&server.url], options()).unwrap();
    let ep = run_episode(&pool);
    assert_eq!(ep.ended_by, EndedBy::ContextFull);
    assert_eq!(server.requests("/v1/completions").len(), 1, "not retried");
    assert_eq!(pool.live(), 1, "the server is fine");
}

#[test]
fn a_missing_or_wrong_api_key_is_a_clear_error_and_the_key_is_sent_as_bearer() {
    let server = stub::start(|r: &Seen| {
        if r.auth.as_deref() != Some("Bearer sekret") {
            return Answer::Json(401, json!({"error": {"message": "Unauthorized"}}));
        }
        stub::vllm_probe(r, 4096).unwrap_or_else(|| stub::vllm_completion(r, &submit(ANSWER), 0))
    });
    for key in [None, Some("wrong".to_string())] {
        let e = Pool::connect(&[&server.url], PoolOptions { key, ..options() }).unwrap_err();
        assert!(matches!(e, PoolError::Probe { source: RemoteError::Unauthorized { .. }, .. }), "{e:?}");
        assert!(e.to_string().contains("the API key is missing or is not the server's"), "{e}");
    }
    let pool = Pool::connect(&[&server.url], PoolOptions { key: Some("sekret".into()), ..options() }).unwrap();
    assert!(!format!("{pool:?}").contains("sekret"), "the key is never printed");
    assert_eq!(run_episode(&pool).ended_by, EndedBy::SubmitSql);
}

#[test]
fn a_local_tokenizer_that_disagrees_with_the_server_is_refused() {
    let server = vllm(vec![submit(ANSWER)]);
    let qwen3 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/tokenizers/qwen3/tokenizer.json");
    assert!(qwen3.is_file(), "run `bash .ci/fetch-models` first");
    let e = Pool::connect(&[&server.url], PoolOptions { tokenizer: Some(qwen3), ..options() }).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, PoolError::Tokenizer(_)) && text.contains("qwen3/tokenizer.json") && text.contains(&server.url),
        "{text}"
    );
    let missing =
        Pool::connect(&[&server.url], PoolOptions { tokenizer: Some("no/such-repo".into()), ..options() }).unwrap_err();
    assert!(missing.to_string().contains("no such file"), "{missing}");
}

#[test]
fn connection_refused_names_the_server() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let e = Pool::connect(&[&url], options()).unwrap_err();
    assert!(matches!(e, PoolError::Probe { source: RemoteError::Connect { .. }, .. }), "{e:?}");
    assert!(e.to_string().contains(&url), "{e}");
}

fn questions(n: usize) -> Vec<Question> {
    (0..n)
        .map(|i| Question {
            id: format!("q{i}"),
            db: common::demo_db(),
            question: "How many customers are there?".into(),
            evidence: None,
            gold_sql: ANSWER.into(),
            difficulty: None,
        })
        .collect()
}

fn eval(pool: &Pool, qs: &[Question], results: &std::path::Path) -> Result<usize, sqale::eval::EvalError> {
    let mut gold = GoldCache::new(sqale::env::Limits::default());
    let plan = sqale::eval::Plan { settings: &Settings::default(), label: "m", questions: qs, seed: 0 };
    sqale::eval::remote::run(pool, SAMPLING, 3, &plan, &mut gold, &mut sqale::eval::Sink::file(results))
}

/// An evaluation across two servers, one of which goes away midway: every question ends as
/// exactly one record, none failed. With no server left, episodes are recorded as failed (not
/// as wrong answers) and a resumed run plays exactly those again.
#[test]
fn eval_across_servers_survives_one_going_away_and_resumes_failed_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("episodes.jsonl");
    let qs = questions(8);
    let good = vllm(vec![LIST.to_string(), submit(ANSWER)]);
    let served = Arc::new(AtomicUsize::new(0));
    let s2 = served.clone();
    let dying = stub::start(move |r: &Seen| {
        if let Some(a) = stub::vllm_probe(r, 4096) {
            return a;
        }
        // Gone after its third completion: it answers nothing more.
        if s2.fetch_add(1, Ordering::SeqCst) >= 3 {
            return Answer::Cut(json!({}), 0);
        }
        stub::vllm_completion(r, &submit(ANSWER), 0)
    });
    let pool = Pool::connect(&[&dying.url, &good.url], options()).unwrap();
    assert_eq!(eval(&pool, &qs, &results).unwrap(), 8);
    let records = sqale::eval::read_records(&results);
    let mut ids: Vec<_> = records.iter().map(|r| r.id.clone()).collect();
    ids.sort();
    assert_eq!(ids, (0..8).map(|i| format!("q{i}")).collect::<Vec<_>>(), "each question once");
    assert!(
        records.iter().all(|r| r.error.is_none() && r.correct),
        "{:?}",
        records.iter().map(|r| &r.error).collect::<Vec<_>>()
    );
    assert_eq!(pool.live(), 1);

    // No server left: failed records, not wrong answers; resumed elsewhere, played again.
    let results = dir.path().join("second.jsonl");
    let broken = stub::start(|r: &Seen| {
        stub::vllm_probe(r, 4096).unwrap_or(Answer::Json(502, json!({"error": {"message": "bad gateway"}})))
    });
    let pool = Pool::connect(&[&broken.url], options()).unwrap();
    assert_eq!(eval(&pool, &qs[..3], &results).unwrap(), 3);
    let failed = sqale::eval::read_records(&results);
    assert_eq!(failed.len(), 3);
    assert!(failed.iter().all(|r| r.error.as_deref().is_some_and(|e| e.contains("502")) && r.episode.is_none()));
    let summary = &sqale::eval::report::summarise(&failed)[0];
    assert_eq!((summary.n, summary.failed), (0, 3), "failed episodes are not scored");
    let pool = Pool::connect(&[&good.url], options()).unwrap();
    assert_eq!(eval(&pool, &qs[..3], &results).unwrap(), 3, "the failed three are played again");
    let all = sqale::eval::read_records(&results);
    assert_eq!(all.len(), 6, "the failed records stay in the file");
    let settled = sqale::eval::settle(all);
    assert_eq!(settled.len(), 3, "each question once");
    assert!(settled.iter().all(|r| r.error.is_none()));
    let summary = &sqale::eval::report::summarise(&settled)[0];
    assert_eq!((summary.n, summary.failed, summary.correct), (3, 0, 3));
}
