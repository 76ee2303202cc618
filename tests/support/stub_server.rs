//! A scripted HTTP server on 127.0.0.1 (a test double standing in for vLLM, whose request and
//! response shapes it serves as recorded from its API): each request is answered by a handler
//! the test gives, and every request is kept for the test to inspect.

#![allow(dead_code)] // each test file uses its part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// What the stub answers.
pub enum Answer {
    /// A status and a JSON body.
    Json(u16, Value),
    /// A 200 whose body stops after `n` bytes of the JSON, the connection then closed.
    Cut(Value, usize),
    /// Waits, then answers.
    Slow(Duration, Box<Answer>),
}

/// A request as received: method, path, JSON body (`Null` when none), Authorization header.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub body: Value,
    pub auth: Option<String>,
}

type Handler = dyn Fn(&Seen) -> Answer + Send + Sync;

/// A running stub; it stops accepting when dropped.
pub struct Stub {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

impl Stub {
    /// The requests seen so far to `path`.
    pub fn requests(&self, path: &str) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|s| s.path == path).cloned().collect()
    }
}

/// Starts a stub answering with `handler`.
pub fn start(handler: impl Fn(&Seen) -> Answer + Send + Sync + 'static) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let handler: Arc<Handler> = Arc::new(handler);
    let (seen2, stop2) = (seen.clone(), stop.clone());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            if stop2.load(std::sync::atomic::Ordering::SeqCst) {
                break;
            }
            let Ok(conn) = conn else { continue };
            let (handler, seen) = (handler.clone(), seen2.clone());
            std::thread::spawn(move || serve(conn, &*handler, &seen));
        }
    });
    Stub { url, seen, stop }
}

fn serve(mut conn: TcpStream, handler: &Handler, seen: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let (mut length, mut auth) = (0usize, None);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            auth = Some(h["authorization:".len()..].trim().to_string());
        }
    }
    let mut body = vec![0u8; length];
    let _ = reader.read_exact(&mut body);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = Seen { method, path, body, auth };
    seen.lock().unwrap().push(request.clone());
    let mut answer = handler(&request);
    loop {
        match answer {
            Answer::Slow(d, next) => {
                std::thread::sleep(d);
                answer = *next;
            }
            Answer::Json(status, v) => {
                let text = v.to_string();
                let _ = write!(
                    conn,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
                return;
            }
            Answer::Cut(v, n) => {
                let text = v.to_string();
                let _ = write!(
                    conn,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                    text.len(),
                    &text[..n.min(text.len())]
                );
                let _ = conn.flush();
                let _ = conn.shutdown(std::net::Shutdown::Both);
                return;
            }
        }
    }
}

/// The stub's tokenizer: `<|im_start|>` 1, `<|im_end|>` 2, `<|endoftext|>` 3, every other
/// character 1000 + its code point.
pub fn tokenize(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = text;
    'outer: while !rest.is_empty() {
        for (mark, id) in [("<|im_start|>", 1), ("<|im_end|>", 2), ("<|endoftext|>", 3)] {
            if let Some(r) = rest.strip_prefix(mark) {
                out.push(id);
                rest = r;
                continue 'outer;
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(1000 + c as u32);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// vLLM's answers to the probe: `/v1/models`, `/version`; `/props` is 404 there.
pub fn vllm_probe(seen: &Seen, max_model_len: usize) -> Option<Answer> {
    match seen.path.as_str() {
        "/props" => Some(Answer::Json(404, serde_json::json!({"detail": "Not Found"}))),
        "/version" => Some(Answer::Json(200, serde_json::json!({"version": "0.11.0"}))),
        "/health" => Some(Answer::Json(200, serde_json::json!({}))),
        "/v1/models" => Some(Answer::Json(
            200,
            serde_json::json!({"object": "list", "data": [{"id": "trl-lab/qwen3.5-2b-grpo-synsql", "object": "model", "owned_by": "vllm", "max_model_len": max_model_len}]}),
        )),
        "/tokenize" => {
            let t = tokenize(seen.body["prompt"].as_str().unwrap_or(""));
            Some(Answer::Json(200, serde_json::json!({"count": t.len(), "max_model_len": max_model_len, "tokens": t})))
        }
        _ => None,
    }
}

/// A vLLM `/v1/completions` answer generating `text` (its ids by [`tokenize`], then `<|im_end|>`,
/// which vLLM returns with `stop_token_ids`), with `cached` prompt tokens from its cache.
pub fn vllm_completion(request: &Seen, text: &str, cached: usize) -> Answer {
    let mut ids = tokenize(text);
    ids.push(2);
    let prompt = request.body["prompt"].as_array().map(|a| a.len()).unwrap_or(0);
    Answer::Json(
        200,
        serde_json::json!({
            "id": "cmpl-1", "object": "text_completion", "model": "trl-lab/qwen3.5-2b-grpo-synsql",
            "choices": [{"index": 0, "text": text, "token_ids": ids, "finish_reason": "stop", "stop_reason": 2, "logprobs": null, "prompt_token_ids": null}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": ids.len(), "total_tokens": prompt + ids.len(), "prompt_tokens_details": {"cached_tokens": cached}}
        }),
    )
}
