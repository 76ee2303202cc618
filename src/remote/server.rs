//! One inference server over HTTP: what kind it is, its `/tokenize`, and one completion from a
//! list of token ids, in the request and response shapes of vLLM's `/v1/completions` and
//! llama.cpp's `llama-server` `/completion`.
//!
//! Every sampling value is sent explicitly (both servers have defaults of their own that differ
//! from sqale's), `max_tokens` / `n_predict` always (vLLM's default is 16), and the prompt is
//! always token ids, so that the conversation stays the one token sequence the model sampled.

use std::time::Duration;

use serde_json::{json, Value};

/// Which server API to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerKind {
    /// vLLM's OpenAI-compatible server (`/v1/completions` with `return_token_ids`).
    Vllm,
    /// llama.cpp's `llama-server` (native `/completion` with `return_tokens`).
    LlamaServer,
}

impl ServerKind {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerKind::Vllm => "vllm",
            ServerKind::LlamaServer => "llama-server",
        }
    }
}

impl std::fmt::Display for ServerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ServerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "vllm" => Ok(ServerKind::Vllm),
            "llama-server" | "llamacpp" | "llama.cpp" => Ok(ServerKind::LlamaServer),
            _ => Err(format!("unknown server kind {s:?}: use vllm, llama-server or auto")),
        }
    }
}

/// What went wrong talking to a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// Nothing answered (connection refused, DNS, reset before a response).
    #[error("{url}: cannot connect: {message}")]
    Connect {
        /// The server.
        url: String,
        /// The transport's message.
        message: String,
    },
    /// No answer within the timeout ([`crate::remote::PoolOptions::timeout`]).
    #[error("{url}: no answer within {seconds} s")]
    Timeout {
        /// The server.
        url: String,
        /// The timeout.
        seconds: f64,
    },
    /// 401 or 403: the API key is missing or wrong. Not retried.
    #[error("{url}: {status} unauthorized: the API key is missing or is not the server's")]
    Unauthorized {
        /// The server.
        url: String,
        /// 401 or 403.
        status: u16,
    },
    /// The prompt and the tokens asked for don't fit the server's context.
    #[error("{url}: the request does not fit the server's context: {message}")]
    ContextOverflow {
        /// The server.
        url: String,
        /// The server's message.
        message: String,
    },
    /// 503: the model is still loading (or the server is busy); wait and retry.
    #[error("{url}: 503 unavailable (loading or busy): {message}")]
    Unavailable {
        /// The server.
        url: String,
        /// The server's message.
        message: String,
    },
    /// Another HTTP error status.
    #[error("{url}: HTTP {status}: {message}")]
    Status {
        /// The server.
        url: String,
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The server's API cannot do what was asked (e.g. prompt log-probabilities on llama-server).
    #[error("{url}: {what}")]
    Unsupported {
        /// The server.
        url: String,
        /// What it cannot do, and what to use instead.
        what: String,
    },
    /// Every server of a pool was dropped after failing: none is left to ask until one answers
    /// a probe again.
    #[error("every inference server is down ({servers} of {servers} dropped after failing; last error: {last})")]
    AllDown {
        /// Servers in the pool.
        servers: usize,
        /// Why the last one was dropped.
        last: String,
    },
    /// The response was cut short or is not what the API promises.
    #[error("{url}: bad response: {message}")]
    BadResponse {
        /// The server.
        url: String,
        /// What was wrong.
        message: String,
    },
}

impl RemoteError {
    /// Whether trying again (after a pause, or on another server) may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            RemoteError::Connect { .. }
            | RemoteError::Timeout { .. }
            | RemoteError::Unavailable { .. }
            | RemoteError::AllDown { .. }
            | RemoteError::BadResponse { .. } => true,
            RemoteError::Status { status, .. } => *status >= 500 || *status == 429,
            RemoteError::Unauthorized { .. }
            | RemoteError::ContextOverflow { .. }
            | RemoteError::Unsupported { .. } => false,
        }
    }
}

/// A position's most probable tokens and their log-probabilities, most probable first.
pub type TopLogprobs = Vec<(u32, f32)>;

/// How to sample a completion (sqale's in-process chain: top-k, then top-p, then temperature).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Temperature; 0 is greedy.
    pub temperature: f32,
    /// Nucleus threshold.
    pub top_p: f32,
    /// Top-k cut-off.
    pub top_k: i32,
}

/// A completion request: the whole conversation so far as token ids.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The conversation's token ids.
    pub prompt: &'a [u32],
    /// Most tokens to generate.
    pub max_tokens: usize,
    /// Sampling values.
    pub sampling: Sampling,
    /// The request's seed.
    pub seed: u32,
    /// Token ids that end a completion (`<|im_end|>`, `<|endoftext|>`).
    pub stop_ids: &'a [u32],
    /// The grammar the completion is held to (constrained calls); `None` for free text.
    pub grammar: Option<&'a crate::protocol::CallGrammar>,
}

/// A completion's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Generated token ids, without a final stop token.
    pub tokens: Vec<u32>,
    /// Their text, as the server rendered it (special tokens included, the stop token not).
    pub text: String,
    /// Whether generation ended on a stop token (else on the token limit).
    pub stopped: bool,
    /// Prompt tokens the server took from its cache (`None` when it doesn't say).
    pub cached: Option<usize>,
    /// Prompt tokens the server decoded (`None` when it doesn't say).
    pub decoded: Option<usize>,
}

/// What a server said about itself when probed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ServerInfo {
    /// The base URL.
    pub url: String,
    /// Its API.
    pub kind: ServerKind,
    /// The model id it serves (vLLM's `/v1/models` id; llama-server's model path or alias).
    pub model: String,
    /// Its version, where it reports one.
    pub version: Option<String>,
    /// Context tokens per sequence (llama-server's per-slot `n_ctx`; vLLM's `max_model_len`).
    pub context: Option<usize>,
    /// Sequences it decodes at once (llama-server's slots), where known.
    pub slots: Option<usize>,
}

/// One server: its base URL, kind, key and an HTTP agent.
#[derive(Clone)]
pub struct Server {
    url: String,
    kind: ServerKind,
    key: Option<String>,
    timeout: Duration,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Server").field("url", &self.url).field("kind", &self.kind).finish()
    }
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::AgentBuilder::new().timeout_connect(Duration::from_secs(5).min(timeout)).timeout(timeout).build()
}

/// `http://host:port` without a trailing slash; a bare `host:port` gets `http://`.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    }
}

impl Server {
    /// A server of a known kind at `url` (no request is made).
    pub fn new(url: &str, kind: ServerKind, key: Option<String>, timeout: Duration) -> Self {
        Server { url: normalize_url(url), kind, key, timeout, agent: agent(timeout) }
    }

    /// Finds out what `url` serves: `kind` if given, else probed (`/props` answers on
    /// llama-server only; vLLM has `/version`). Then the model id, version and context.
    pub fn probe(
        url: &str,
        kind: Option<ServerKind>,
        key: Option<String>,
        timeout: Duration,
    ) -> Result<(Self, ServerInfo), RemoteError> {
        let mut server = Server::new(url, kind.unwrap_or(ServerKind::LlamaServer), key, timeout);
        let (kind, props) = match (kind, server.get("/props")) {
            (Some(k), props) => (k, props),
            (None, Ok(p)) if p.get("default_generation_settings").is_some() => (ServerKind::LlamaServer, Ok(p)),
            (None, Err(e))
                if matches!(
                    e,
                    RemoteError::Unauthorized { .. } | RemoteError::Connect { .. } | RemoteError::Timeout { .. }
                ) =>
            {
                return Err(e)
            }
            (None, props) => (ServerKind::Vllm, props),
        };
        server.kind = kind;
        let info = match kind {
            ServerKind::LlamaServer => {
                let p = props?;
                let dgs = &p["default_generation_settings"];
                let n_ctx = dgs.get("n_ctx").and_then(Value::as_u64).map(|n| n as usize);
                let model = p
                    .get("model_alias")
                    .and_then(Value::as_str)
                    .or_else(|| p.get("model_path").and_then(Value::as_str))
                    .unwrap_or("unknown")
                    .to_string();
                ServerInfo {
                    url: server.url.clone(),
                    kind,
                    model,
                    version: p.get("build_info").and_then(Value::as_str).map(str::to_string),
                    context: n_ctx,
                    slots: p.get("total_slots").and_then(Value::as_u64).map(|n| n as usize),
                }
            }
            ServerKind::Vllm => {
                let models = server.get("/v1/models")?;
                let first = models["data"].get(0).ok_or_else(|| RemoteError::BadResponse {
                    url: server.url.clone(),
                    message: "GET /v1/models lists no model".into(),
                })?;
                let version = server.get("/version").ok().and_then(|v| v["version"].as_str().map(str::to_string));
                ServerInfo {
                    url: server.url.clone(),
                    kind,
                    model: first["id"].as_str().unwrap_or("unknown").to_string(),
                    version,
                    context: first.get("max_model_len").and_then(Value::as_u64).map(|n| n as usize),
                    slots: None,
                }
            }
        };
        Ok((server, info))
    }

    /// The base URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its API.
    pub fn kind(&self) -> ServerKind {
        self.kind
    }

    /// The server's own tokenisation of `text`: with `parse_special`, special-token markup such
    /// as `<|im_start|>` read as the special tokens, without it as plain text; a BOS only with
    /// `add_special`.
    ///
    /// vLLM's `/tokenize` always reads special tokens, so without `parse_special` the text is
    /// sent in pieces cut between each `<` and a `|` after it: no `<|…|>` token can form across
    /// a cut (the tokens around a cut may differ from a whole tokenisation; a client-side
    /// `tokenizer.json` is exact).
    pub fn tokenize(
        &self,
        text: &str,
        add_special: bool,
        parse_special: bool,
        model: &str,
    ) -> Result<Vec<u32>, RemoteError> {
        let pieces: Vec<&str> = match self.kind {
            ServerKind::Vllm if !parse_special => cut_before_bars(text),
            _ => vec![text],
        };
        let mut out = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            let add = add_special && i == 0;
            let body = match self.kind {
                ServerKind::LlamaServer => {
                    json!({"content": piece, "add_special": add, "parse_special": parse_special})
                }
                ServerKind::Vllm => json!({"model": model, "prompt": piece, "add_special_tokens": add}),
            };
            let v = self.post("/tokenize", &body)?;
            out.extend(ids(&v["tokens"]).ok_or_else(|| self.bad("/tokenize answered without a list of token ids"))?);
        }
        Ok(out)
    }

    /// Whether `/health` says the server is ready.
    pub fn healthy(&self) -> bool {
        self.get("/health").is_ok()
    }

    /// One completion of `req.prompt`.
    pub fn complete(&self, req: &Request<'_>, model: &str) -> Result<Reply, RemoteError> {
        match self.kind {
            ServerKind::LlamaServer => self.complete_llama(req),
            ServerKind::Vllm => self.complete_vllm(req, model),
        }
    }

    /// The model's top `k` log-probabilities (at temperature 1) at every position of `prompt`,
    /// teacher-forced: entry `i` is the distribution that predicted `prompt[i]` (`None` for the
    /// first), most probable first, with `prompt[i]` itself included even below the top `k`.
    /// vLLM's `prompt_logprobs` (start it with `--max-logprobs K` for more than its default 20);
    /// llama-server has no such API.
    pub fn prompt_logprobs(
        &self,
        prompt: &[u32],
        k: usize,
        model: &str,
    ) -> Result<Vec<Option<TopLogprobs>>, RemoteError> {
        if self.kind == ServerKind::LlamaServer {
            return Err(RemoteError::Unsupported {
                url: self.url.clone(),
                what: "llama-server returns no log-probabilities of prompt tokens; serve the reference with vLLM (prompt_logprobs), or give it as a local file".into(),
            });
        }
        let body = json!({
            "model": model,
            "prompt": prompt,
            "max_tokens": 1,
            "temperature": 0.0,
            "prompt_logprobs": k,
            "stream": false,
        });
        let v = self.post("/v1/completions", &body).map_err(|e| match e {
            RemoteError::Status { url, status: 400, message } if message.contains("logprobs") => RemoteError::Status {
                url,
                status: 400,
                message: format!(
                    "{message} (start vLLM with --max-logprobs {k}, or keep fewer log-probabilities per token)"
                ),
            },
            e => e,
        })?;
        let entries = v
            .pointer("/choices/0/prompt_logprobs")
            .and_then(Value::as_array)
            .ok_or_else(|| self.bad("/v1/completions answered without `prompt_logprobs`"))?;
        if entries.len() != prompt.len() {
            return Err(self.bad(&format!(
                "{} prompt_logprobs entries for {} prompt tokens",
                entries.len(),
                prompt.len()
            )));
        }
        entries
            .iter()
            .map(|e| {
                let Some(map) = e.as_object() else { return Ok(None) };
                let mut top = Vec::with_capacity(map.len());
                for (id, lp) in map {
                    let id: u32 =
                        id.parse().map_err(|_| self.bad(&format!("prompt_logprobs key {id:?} is not a token id")))?;
                    let lp =
                        lp["logprob"].as_f64().ok_or_else(|| self.bad("a prompt_logprobs entry without `logprob`"))?;
                    top.push((id, lp as f32));
                }
                top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                Ok(Some(top))
            })
            .collect()
    }

    fn complete_llama(&self, req: &Request<'_>) -> Result<Reply, RemoteError> {
        let s = &req.sampling;
        let mut body = json!({
            "prompt": req.prompt,
            "n_predict": req.max_tokens,
            "temperature": decimal(s.temperature),
            "top_k": s.top_k,
            "top_p": decimal(s.top_p),
            "min_p": 0.0,
            "samplers": ["top_k", "top_p", "temperature"],
            "seed": req.seed,
            "return_tokens": true,
            "cache_prompt": true,
            "stream": false,
        });
        if let Some(g) = req.grammar {
            // llama-server's `/completion` takes GBNF; a lazy grammar starts at its patterns
            // (trigger type 2: a pattern searched for anywhere in the output).
            body["grammar"] = json!(g.gbnf);
            if g.lazy() {
                body["grammar_lazy"] = json!(true);
                body["grammar_triggers"] =
                    Value::Array(g.triggers.iter().map(|t| json!({"type": 2, "value": t})).collect());
            }
        }
        let v = self.post("/completion", &body)?;
        let mut tokens = ids(&v["tokens"]).ok_or_else(|| self.bad("/completion answered without `tokens`"))?;
        let stop_type = v.get("stop_type").and_then(Value::as_str).unwrap_or("");
        let stopped = matches!(stop_type, "eos" | "word");
        if v.get("stop").and_then(Value::as_bool) != Some(true) {
            return Err(self.bad("/completion answered a partial result (`stop` is not true)"));
        }
        strip_stop(&mut tokens, req.stop_ids);
        let t = &v["timings"];
        Ok(Reply {
            tokens,
            text: v["content"].as_str().unwrap_or_default().to_string(),
            stopped,
            cached: t.get("cache_n").and_then(Value::as_u64).map(|n| n as usize),
            decoded: t.get("prompt_n").and_then(Value::as_u64).map(|n| n as usize),
        })
    }

    fn complete_vllm(&self, req: &Request<'_>, model: &str) -> Result<Reply, RemoteError> {
        if req.grammar.is_some() {
            return Err(RemoteError::Unsupported {
                url: self.url.clone(),
                what: "constrained calls need a GBNF grammar that starts after the think block, and vLLM's guided decoding (JSON schema, regex, its own grammar dialect) is not wired to it here; run constrained calls on llama-server or in process, or with free calls on vLLM".into(),
            });
        }
        let s = &req.sampling;
        let body = json!({
            "model": model,
            "prompt": req.prompt,
            "max_tokens": req.max_tokens,
            "temperature": decimal(s.temperature),
            "top_p": decimal(s.top_p),
            "top_k": s.top_k,
            "min_p": 0.0,
            "seed": req.seed,
            "stop_token_ids": req.stop_ids,
            "skip_special_tokens": false,
            "return_token_ids": true,
            "stream": false,
        });
        let v = self.post("/v1/completions", &body)?;
        let choice = v["choices"].get(0).ok_or_else(|| self.bad("/v1/completions answered no choice"))?;
        let mut tokens = ids(&choice["token_ids"])
            .ok_or_else(|| self.bad("/v1/completions answered without `token_ids` (vLLM 0.10.2 or later is needed)"))?;
        let stopped = match choice["finish_reason"].as_str() {
            Some("stop") => true,
            Some("length") => false,
            other => return Err(self.bad(&format!("unexpected finish_reason {other:?}"))),
        };
        strip_stop(&mut tokens, req.stop_ids);
        let usage = &v["usage"];
        let prompt = usage.get("prompt_tokens").and_then(Value::as_u64).map(|n| n as usize);
        let cached = usage.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).map(|n| n as usize);
        let text = choice["text"].as_str().unwrap_or_default().to_string();
        Ok(Reply { tokens, text, stopped, cached, decoded: prompt.zip(cached).map(|(p, c)| p.saturating_sub(c)) })
    }

    fn get(&self, path: &str) -> Result<Value, RemoteError> {
        let mut r = self.agent.get(&format!("{}{path}", self.url));
        if let Some(k) = &self.key {
            r = r.set("Authorization", &format!("Bearer {k}"));
        }
        self.read(r.call())
    }

    fn post(&self, path: &str, body: &Value) -> Result<Value, RemoteError> {
        let mut r = self.agent.post(&format!("{}{path}", self.url));
        if let Some(k) = &self.key {
            r = r.set("Authorization", &format!("Bearer {k}"));
        }
        self.read(r.send_json(body))
    }

    fn read(&self, result: Result<ureq::Response, ureq::Error>) -> Result<Value, RemoteError> {
        let url = self.url.clone();
        match result {
            Ok(resp) => {
                let text = resp.into_string().map_err(|e| self.transport(&e))?;
                serde_json::from_str(&text).map_err(|e| RemoteError::BadResponse {
                    url,
                    message: format!("not JSON ({e}); {} bytes, cut short?", text.len()),
                })
            }
            Err(ureq::Error::Status(status, resp)) => {
                let text = resp.into_string().unwrap_or_default();
                let message = error_message(&text);
                Err(match status {
                    401 | 403 => RemoteError::Unauthorized { url, status },
                    503 => RemoteError::Unavailable { url, message },
                    400 if is_overflow(&message) => RemoteError::ContextOverflow { url, message },
                    _ => RemoteError::Status { url, status, message },
                })
            }
            Err(ureq::Error::Transport(t)) => Err(self.transport(&t)),
        }
    }

    fn transport(&self, e: &dyn std::fmt::Display) -> RemoteError {
        let message = e.to_string();
        let lower = message.to_lowercase();
        if lower.contains("timed out") || lower.contains("timeout") || lower.contains("would block") {
            RemoteError::Timeout { url: self.url.clone(), seconds: self.timeout.as_secs_f64() }
        } else if lower.contains("connect") || lower.contains("dns") || lower.contains("refused") {
            RemoteError::Connect { url: self.url.clone(), message }
        } else {
            RemoteError::BadResponse { url: self.url.clone(), message }
        }
    }

    fn bad(&self, message: &str) -> RemoteError {
        RemoteError::BadResponse { url: self.url.clone(), message: message.to_string() }
    }
}

/// `x` as the decimal it was written as (`0.6`, not `0.6000000238418579`), for JSON.
fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// A JSON list of token ids.
fn ids(v: &Value) -> Option<Vec<u32>> {
    v.as_array()?.iter().map(|t| t.as_u64().and_then(|n| u32::try_from(n).ok())).collect()
}

/// Drops a final stop token (servers differ on whether they return it).
fn strip_stop(tokens: &mut Vec<u32>, stops: &[u32]) {
    while tokens.last().is_some_and(|t| stops.contains(t)) {
        tokens.pop();
    }
}

/// The message of an error body: `{"error": {"message"}}` (both servers), `{"message"}`, or
/// the text.
fn error_message(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    v.pointer("/error/message")
        .or_else(|| v.get("message"))
        .or_else(|| v.get("error"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| body.chars().take(300).collect())
}

/// Whether a 400's message says the context is too small (llama-server:
/// `exceed_context_size_error`, "exceeds the available context size"; vLLM: "maximum context
/// length").
fn is_overflow(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("context size") || m.contains("context length") || m.contains("context_size") || m.contains("n_ctx")
}

/// `text` cut between every `<` and a `|` right after it (the whole text when there is none).
fn cut_before_bars(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices("<|") {
        pieces.push(&text[start..=i]);
        start = i + 1;
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_is_cut_before_every_bar_after_a_bracket() {
        assert_eq!(super::cut_before_bars("plain"), ["plain"]);
        assert_eq!(super::cut_before_bars("a<|im_end|>b<|x"), ["a<", "|im_end|>b<", "|x"]);
        assert_eq!(super::cut_before_bars("<|").concat(), "<|");
    }

    use super::*;

    #[test]
    fn urls_are_normalised() {
        assert_eq!(normalize_url("127.0.0.1:8080/"), "http://127.0.0.1:8080");
        assert_eq!(normalize_url(" https://gpu1:8000 "), "https://gpu1:8000");
    }

    #[test]
    fn error_bodies_are_read_and_classified() {
        assert_eq!(
            error_message(
                r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#
            ),
            "the request exceeds the available context size, try increasing it"
        );
        assert!(is_overflow(
            "This model's maximum context length is 16384 tokens. However, you requested 16400 tokens"
        ));
        assert!(!is_overflow("invalid 'prompt'"));
        assert_eq!(error_message("plain text"), "plain text");
        let down = RemoteError::Connect { url: "u".into(), message: "refused".into() };
        assert!(down.is_transient());
        assert!(!RemoteError::Unauthorized { url: "u".into(), status: 401 }.is_transient());
        assert!(RemoteError::Status { url: "u".into(), status: 502, message: String::new() }.is_transient());
        assert!(!RemoteError::Status { url: "u".into(), status: 422, message: String::new() }.is_transient());
    }

    #[test]
    fn a_final_stop_token_is_dropped() {
        let mut t = vec![5, 6, 151645];
        strip_stop(&mut t, &[151645, 151643]);
        assert_eq!(t, [5, 6]);
        let mut u = vec![151645, 7];
        strip_stop(&mut u, &[151645]);
        assert_eq!(u, [151645, 7], "only at the end");
    }
}
