//! Several servers of one model: which one an episode goes to, retries with backoff,
//! dropping a server that keeps failing so that its episodes go to the others, probing a
//! dropped server until it answers again ([`Pool::revive`]), and each server's counters
//! ([`Pool::status`]).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::server::{RemoteError, Reply, Request, Server, ServerInfo, ServerKind};
use super::tokenizer::Tokenizer;

/// How to reach the servers.
#[derive(Clone)]
pub struct PoolOptions {
    /// Server kind, or `None` to probe each.
    pub kind: Option<ServerKind>,
    /// API key (sent as `Authorization: Bearer`).
    pub key: Option<String>,
    /// Longest wait for one response.
    pub timeout: Duration,
    /// Tries of one request on one server before it is dropped.
    pub tries: u32,
    /// First pause between tries; it doubles.
    pub backoff: Duration,
    /// A local `tokenizer.json` to tokenise with (checked against the servers'); `None`: the
    /// servers' own `/tokenize`.
    pub tokenizer: Option<std::path::PathBuf>,
    /// Told what the pool does as it happens (a server dropped); `None`: nobody is told.
    pub on_event: Option<PoolListener>,
}

/// Something a pool did that its user may want to know as it happens.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PoolEvent {
    /// A server failed every try of one request: it gets no more requests, and its episodes go
    /// on on the other servers.
    Dropped {
        /// The server.
        url: String,
        /// Tries it failed.
        tries: u32,
        /// Why the last one failed.
        error: String,
    },
    /// A dropped server answered its probe, serving the pool's model: it gets requests again.
    Revived {
        /// The server.
        url: String,
    },
}

impl std::fmt::Display for PoolEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolEvent::Dropped { url, tries, error } => {
                write!(f, "dropping server {url} after {tries} failed tries: {error}")
            }
            PoolEvent::Revived { url } => write!(f, "server {url} answers again: using it again"),
        }
    }
}

/// Receives a pool's events, on the thread that ran into each.
pub type PoolListener = Arc<dyn Fn(&PoolEvent) + Send + Sync>;

impl std::fmt::Debug for PoolOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("PoolOptions")
            .field("kind", &self.kind)
            .field("key", &self.key.as_ref().map(|_| "(set)"))
            .field("timeout", &self.timeout)
            .field("tries", &self.tries)
            .field("tokenizer", &self.tokenizer)
            .field("on_event", &self.on_event.as_ref().map(|_| "(set)"))
            .finish()
    }
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            kind: None,
            key: None,
            timeout: Duration::from_secs(600),
            tries: 3,
            backoff: Duration::from_millis(500),
            tokenizer: None,
            on_event: None,
        }
    }
}

/// Why the servers can't be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    /// No server was given.
    #[error("no inference server given")]
    Empty,
    /// A server did not answer its probe.
    #[error("probing {url}: {source}")]
    Probe {
        /// The server.
        url: String,
        /// Why.
        #[source]
        source: RemoteError,
    },
    /// Two servers serve different models.
    #[error("{a} serves {model_a:?} but {b} serves {model_b:?}: the servers of one pool must serve one model")]
    Mixed {
        /// First server.
        a: String,
        /// Its model.
        model_a: String,
        /// The other server.
        b: String,
        /// Its model.
        model_b: String,
    },
    /// The local tokenizer disagrees with the server's.
    #[error("{0}")]
    Tokenizer(String),
}

/// One server and how it is doing.
#[derive(Debug)]
struct Member {
    server: Server,
    info: ServerInfo,
    dropped: AtomicBool,
    in_flight: AtomicUsize,
    /// Conversations whose prefix cache lives here ([`Pool::claim`]).
    episodes: AtomicUsize,
    stats: Stats,
    /// Why it was last dropped.
    last_error: Mutex<Option<String>>,
}

impl Member {
    fn new(server: Server, info: ServerInfo) -> Self {
        Member {
            server,
            info,
            dropped: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            episodes: AtomicUsize::new(0),
            stats: Stats::default(),
            last_error: Mutex::new(None),
        }
    }
}

/// A server's counters (they only grow).
#[derive(Debug, Default)]
struct Stats {
    requests: AtomicU64,
    failures: AtomicU64,
    /// Microseconds spent waiting for answers, over every request.
    wait_us: AtomicU64,
    prompt_tokens: AtomicU64,
    cached_tokens: AtomicU64,
}

/// How one server of a pool stands, and what it has done: `/health` and `/metrics` show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ServerStatus {
    /// The base URL (without a `user:password@` part, if it had one).
    pub url: String,
    /// Its API.
    pub kind: ServerKind,
    /// The model id it serves.
    pub model: String,
    /// Whether it gets requests (false once dropped, until a probe finds it answering again).
    pub up: bool,
    /// Why it was dropped, while it is down.
    pub error: Option<String>,
    /// Requests sent to it (completions, tokenisations), retries included.
    pub requests: u64,
    /// Requests that failed.
    pub failures: u64,
    /// Seconds spent waiting for its answers, over every request.
    pub wait_seconds: f64,
    /// Prompt tokens sent with completions.
    pub prompt_tokens: u64,
    /// Of those, the tokens it said it took from its prefix cache.
    pub cached_prompt_tokens: u64,
}

/// Servers of one model.
#[derive(Debug)]
pub struct Pool {
    members: Vec<Member>,
    model: String,
    context: usize,
    stop_ids: Vec<u32>,
    tokenizer: Tokenizer,
    options: PoolOptions,
    /// Whether a `<|…|>` string is one special token on the servers, as asked of them.
    specials: Box<std::sync::Mutex<std::collections::HashMap<String, bool>>>,
}

/// `url` without the `user:password@` of its authority, if any: a status is shown to callers.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// The `<|…|>` strings in `text` (ChatML's and Qwen's special tokens have that shape): what a
/// server is asked about to find the special tokens of parsed text.
fn chatml_candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("<|").map(|i| i + from) {
        let inner = &text[i + 2..];
        match inner.find("|>") {
            Some(j) if j <= 64 && !inner[..j].contains(|c: char| c.is_whitespace() || c == '<') => {
                out.push(&text[i..i + 2 + j + 2]);
                from = i + 2 + j + 2;
            }
            _ => from = i + 2,
        }
    }
    out
}

/// Context assumed when a server does not report its own.
const FALLBACK_CONTEXT: usize = crate::defaults::CONTEXT_TOKENS as usize;

impl Pool {
    /// Probes every server at `urls`, checks that they serve one model, and sets up the
    /// tokenizer (checked against the first server's `/tokenize`).
    pub fn connect(urls: &[impl AsRef<str>], options: PoolOptions) -> Result<Pool, PoolError> {
        if urls.is_empty() {
            return Err(PoolError::Empty);
        }
        let mut members = Vec::new();
        for url in urls.iter().map(AsRef::as_ref) {
            let (server, info) = Server::probe(url, options.kind, options.key.clone(), options.timeout)
                .map_err(|source| PoolError::Probe { url: url.to_string(), source })?;
            members.push(Member::new(server, info));
        }
        let first = &members[0].info;
        for m in &members[1..] {
            if m.info.model != first.model {
                return Err(PoolError::Mixed {
                    a: first.url.clone(),
                    model_a: first.model.clone(),
                    b: m.info.url.clone(),
                    model_b: m.info.model.clone(),
                });
            }
        }
        let model = first.model.clone();
        let context = members.iter().filter_map(|m| m.info.context).min().unwrap_or(FALLBACK_CONTEXT);
        let tokenizer = match &options.tokenizer {
            None => Tokenizer::Server,
            Some(path) => Tokenizer::local(path).map_err(PoolError::Tokenizer)?,
        };
        let mut pool =
            Pool { members, model, context, stop_ids: Vec::new(), tokenizer, options, specials: Default::default() };
        if let Tokenizer::Local(_) = pool.tokenizer {
            pool.check_tokenizer()?;
        }
        pool.stop_ids = pool
            .find_stop_ids()
            .map_err(|source| PoolError::Probe { url: pool.members[0].info.url.clone(), source })?;
        Ok(pool)
    }

    /// What each server said about itself.
    pub fn servers(&self) -> Vec<&ServerInfo> {
        self.members.iter().map(|m| &m.info).collect()
    }

    /// The model id the servers serve.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Context tokens per sequence (the smallest of the servers').
    pub fn context(&self) -> usize {
        self.context
    }

    /// Episodes the servers can decode at once (their slots; 1 for a server that doesn't say).
    pub fn slots(&self) -> usize {
        self.members.iter().map(|m| m.info.slots.unwrap_or(1).max(1)).sum()
    }

    /// Servers not dropped.
    pub fn live(&self) -> usize {
        self.members.iter().filter(|m| !m.dropped.load(Ordering::SeqCst)).count()
    }

    /// Tokenises `text` (special-token markup read as special tokens; BOS with `first`).
    pub fn tokenize(&self, text: &str, first: bool) -> Result<Vec<u32>, RemoteError> {
        self.tokenize_span(text, first, true)
    }

    /// Tokenises `markup`: its markers read as special tokens, its plain text as plain text
    /// (BOS with `first`).
    pub fn tokenize_markup(&self, markup: &crate::generate::Markup, first: bool) -> Result<Vec<u32>, RemoteError> {
        use crate::generate::{find_first_of, Fragment, Span};
        let specials = match &self.tokenizer {
            Tokenizer::Local(t) => t.specials().to_vec(),
            Tokenizer::Server => {
                let mut found = Vec::new();
                for span in markup.spans() {
                    if let Span::Parsed(text) = span {
                        for candidate in chatml_candidates(text) {
                            if self.is_special_on_server(candidate)? && !found.iter().any(|f| f == candidate) {
                                found.push(candidate.to_string());
                            }
                        }
                    }
                }
                found
            }
        };
        let find = |t: &str| find_first_of(t, &specials);
        let mut ids = Vec::new();
        for (i, fragment) in markup.fragments(&find).iter().enumerate() {
            let bos = first && i == 0;
            match fragment {
                Fragment::Text(t) => ids.extend(self.tokenize_span(t, bos, false)?),
                Fragment::Special(t) => ids.extend(self.tokenize_span(t, bos, true)?),
            }
        }
        Ok(ids)
    }

    /// Whether the servers read `text` as one special token (asked once per text): one token
    /// with special-token parsing on, more without (vLLM, which always parses: one token).
    fn is_special_on_server(&self, text: &str) -> Result<bool, RemoteError> {
        if let Some(&known) = self.specials.lock().ok().as_ref().and_then(|m| m.get(text)) {
            return Ok(known);
        }
        let parsed = self.tokenize_span(text, false, true)?;
        let special = parsed.len() == 1 && self.tokenize_span(text, false, false)?.len() > 1;
        if let Ok(mut m) = self.specials.lock() {
            m.insert(text.to_string(), special);
        }
        Ok(special)
    }

    fn tokenize_span(&self, text: &str, first: bool, parse_special: bool) -> Result<Vec<u32>, RemoteError> {
        match &self.tokenizer {
            Tokenizer::Local(t) => t
                .encode(text, first, parse_special)
                .map_err(|message| RemoteError::BadResponse { url: "local tokenizer".into(), message }),
            Tokenizer::Server => {
                self.with_server(None, |s| s.tokenize(text, first, parse_special, &self.model)).map(|(v, _)| v)
            }
        }
    }

    /// One completion, on server `prefer` if it is still up (an episode keeps to one server,
    /// whose cache holds its conversation), else on another; returns the reply and the server
    /// that gave it.
    pub fn complete(&self, req: &Request<'_>, prefer: Option<usize>) -> Result<(Reply, usize), RemoteError> {
        let (reply, i) = self.with_server(prefer, |s| s.complete(req, &self.model))?;
        self.count_prompt(i, req, &reply);
        Ok((reply, i))
    }

    /// Counts a completion's prompt tokens, and those the server took from its cache.
    fn count_prompt(&self, server: usize, req: &Request<'_>, reply: &Reply) {
        let stats = &self.members[server].stats;
        stats.prompt_tokens.fetch_add(req.prompt.len() as u64, Ordering::Relaxed);
        stats.cached_tokens.fetch_add(reply.cached.unwrap_or(0) as u64, Ordering::Relaxed);
    }

    /// The top `k` log-probabilities at every position of `prompt` ([`Server::prompt_logprobs`]),
    /// on the least loaded server, with the pool's retries.
    pub fn prompt_logprobs(
        &self,
        prompt: &[u32],
        k: usize,
    ) -> Result<Vec<Option<super::server::TopLogprobs>>, RemoteError> {
        self.with_server(None, |s| s.prompt_logprobs(prompt, k, &self.model)).map(|(v, _)| v)
    }

    /// The least loaded live server: conversations kept there ([`Self::claim`]) plus requests in
    /// flight, per slot.
    pub fn pick(&self) -> Option<usize> {
        self.members
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.dropped.load(Ordering::SeqCst))
            .min_by(|(_, a), (_, b)| {
                let load = |m: &Member| {
                    let busy = m.episodes.load(Ordering::SeqCst) + m.in_flight.load(Ordering::SeqCst);
                    busy as f64 / m.info.slots.unwrap_or(1).max(1) as f64
                };
                load(a).total_cmp(&load(b))
            })
            .map(|(i, _)| i)
    }

    /// Picks a server for a new conversation ([`Self::pick`]) and counts the conversation
    /// there, so that conversations that begin at once spread over the servers. Give it back
    /// with [`Self::release`].
    pub fn claim(&self) -> Option<usize> {
        let i = self.pick()?;
        self.members[i].episodes.fetch_add(1, Ordering::SeqCst);
        Some(i)
    }

    /// Counts a conversation on server `i` (one that moved there after its server failed).
    pub fn hold(&self, i: usize) {
        if let Some(m) = self.members.get(i) {
            m.episodes.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The conversation counted on server `i` ended or moved.
    pub fn release(&self, i: usize) {
        if let Some(m) = self.members.get(i) {
            let _ = m.episodes.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    /// Runs `f` on a server: retried with backoff while its errors are transient (a 503 waits
    /// for `/health`), then the server is dropped and the next live one is tried. Errors that
    /// are not transient (401, context overflow) return at once.
    fn with_server<T>(
        &self,
        prefer: Option<usize>,
        f: impl Fn(&Server) -> Result<T, RemoteError>,
    ) -> Result<(T, usize), RemoteError> {
        let mut index = prefer.filter(|&i| self.members.get(i).is_some_and(|m| !m.dropped.load(Ordering::SeqCst)));
        let mut last: Option<RemoteError> = None;
        loop {
            let Some(i) = index.or_else(|| self.pick()) else {
                let last = last.map_or_else(|| self.last_error().unwrap_or_default(), |e| e.to_string());
                return Err(RemoteError::AllDown { servers: self.members.len(), last });
            };
            let m = &self.members[i];
            let mut pause = self.options.backoff;
            for attempt in 1..=self.options.tries.max(1) {
                m.in_flight.fetch_add(1, Ordering::SeqCst);
                let started = Instant::now();
                let r = f(&m.server);
                m.in_flight.fetch_sub(1, Ordering::SeqCst);
                m.stats.requests.fetch_add(1, Ordering::Relaxed);
                m.stats.wait_us.fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
                if r.is_err() {
                    m.stats.failures.fetch_add(1, Ordering::Relaxed);
                }
                match r {
                    Ok(v) => return Ok((v, i)),
                    Err(e) if !e.is_transient() => return Err(e),
                    Err(e) => {
                        let loading = matches!(e, RemoteError::Unavailable { .. });
                        last = Some(e);
                        if attempt < self.options.tries {
                            if loading {
                                self.wait_healthy(&m.server);
                            } else {
                                std::thread::sleep(pause);
                                pause *= 2;
                            }
                        }
                    }
                }
            }
            if let Ok(mut why) = m.last_error.lock() {
                *why = last.as_ref().map(|e| e.to_string());
            }
            // Told once, by whoever dropped it (another episode may have dropped it meanwhile).
            let first = !m.dropped.swap(true, Ordering::SeqCst);
            if let (true, Some(e), Some(listener)) = (first, &last, &self.options.on_event) {
                let tries = self.options.tries.max(1);
                listener(&PoolEvent::Dropped { url: m.server.url().to_string(), tries, error: e.to_string() });
            }
            index = None;
        }
    }

    /// Why the last dropped server (in the order given) was dropped.
    fn last_error(&self) -> Option<String> {
        self.members.iter().filter_map(|m| m.last_error.lock().ok().and_then(|e| e.clone())).next_back()
    }

    /// [`RemoteError::AllDown`] while every server is dropped; `None` while one is up.
    pub fn all_down(&self) -> Option<RemoteError> {
        (self.live() == 0)
            .then(|| RemoteError::AllDown { servers: self.members.len(), last: self.last_error().unwrap_or_default() })
    }

    /// Probes every dropped server once (its kind and model, as when the pool connected, with
    /// `timeout` for each answer); one that answers serving the pool's model gets requests
    /// again. Returns the servers revived. A service calls this every few seconds.
    pub fn revive(&self, timeout: Duration) -> Vec<String> {
        let mut revived = Vec::new();
        for m in self.members.iter().filter(|m| m.dropped.load(Ordering::SeqCst)) {
            let probe = Server::probe(m.server.url(), Some(m.info.kind), self.options.key.clone(), timeout);
            match probe {
                Ok((_, info)) if info.model == self.model => {
                    if let Ok(mut why) = m.last_error.lock() {
                        *why = None;
                    }
                    m.dropped.store(false, Ordering::SeqCst);
                    if let Some(listener) = &self.options.on_event {
                        listener(&PoolEvent::Revived { url: m.server.url().to_string() });
                    }
                    revived.push(m.server.url().to_string());
                }
                Ok((_, info)) => {
                    if let Ok(mut why) = m.last_error.lock() {
                        *why = Some(format!("it now serves {:?}, not the pool's model {:?}", info.model, self.model));
                    }
                }
                Err(e) => {
                    if let Ok(mut why) = m.last_error.lock() {
                        *why = Some(e.to_string());
                    }
                }
            }
        }
        revived
    }

    /// Each server: up or down (and why), and its counters.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.members
            .iter()
            .map(|m| {
                let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
                let up = !m.dropped.load(Ordering::SeqCst);
                ServerStatus {
                    url: without_credentials(&m.info.url),
                    kind: m.info.kind,
                    model: m.info.model.clone(),
                    up,
                    error: if up { None } else { m.last_error.lock().ok().and_then(|e| e.clone()) },
                    requests: load(&m.stats.requests),
                    failures: load(&m.stats.failures),
                    wait_seconds: load(&m.stats.wait_us) as f64 / 1e6,
                    prompt_tokens: load(&m.stats.prompt_tokens),
                    cached_prompt_tokens: load(&m.stats.cached_tokens),
                }
            })
            .collect()
    }

    /// Waits (up to the timeout) for `/health` to answer 200, as a loading server does when ready.
    fn wait_healthy(&self, server: &Server) {
        let until = Instant::now() + self.options.timeout;
        while Instant::now() < until && !server.healthy() {
            std::thread::sleep(self.options.backoff);
        }
    }

    /// The ids of `<|im_end|>` and `<|endoftext|>`, where each is one token.
    fn find_stop_ids(&self) -> Result<Vec<u32>, RemoteError> {
        let mut ids = Vec::new();
        for text in ["<|im_end|>", "<|endoftext|>"] {
            if let [one] = self.tokenize(text, false)?[..] {
                ids.push(one);
            }
        }
        Ok(ids)
    }

    /// Checks the local tokenizer against the first server's on text with special tokens.
    fn check_tokenizer(&self) -> Result<(), PoolError> {
        let sample = "<|im_start|>user\nHow many orders shipped in 2024? Use `orders.shipped_at`.<|im_end|>\n<|im_start|>assistant\n<think>\n";
        let Tokenizer::Local(local) = &self.tokenizer else { return Ok(()) };
        let mine = local.encode(sample, false, true).map_err(PoolError::Tokenizer)?;
        let m = &self.members[0];
        let theirs = m
            .server
            .tokenize(sample, false, true, &self.model)
            .map_err(|source| PoolError::Probe { url: m.info.url.clone(), source })?;
        if mine != theirs {
            return Err(PoolError::Tokenizer(format!(
                "the local tokenizer {} and {}'s /tokenize disagree ({} against {} tokens for the same text): \
                 give the tokenizer.json of the model the server runs, or tokenise with the server's /tokenize",
                local.path().display(),
                m.info.url,
                mine.len(),
                theirs.len()
            )));
        }
        Ok(())
    }

    /// The stop token ids sent with each request.
    pub fn stop_ids(&self) -> &[u32] {
        &self.stop_ids
    }

    /// What the pool's servers are, for a report: `model @ kind url[, url…]`.
    pub fn label(&self) -> String {
        let urls: Vec<&str> = self.members.iter().map(|m| m.info.url.as_str()).collect();
        let kind = self.members[0].info.kind;
        let name = std::path::Path::new(&self.model)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.model.clone());
        format!("{name} @ {kind} {}", urls.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_url_shows_no_credentials() {
        assert_eq!(without_credentials("http://u:secret@gpu1:8000/v1"), "http://gpu1:8000/v1");
        assert_eq!(without_credentials("http://gpu1:8000"), "http://gpu1:8000");
        assert_eq!(without_credentials("http://gpu1:8000/a@b"), "http://gpu1:8000/a@b");
        assert_eq!(without_credentials("gpu1:8000"), "gpu1:8000");
    }

    #[test]
    fn chatml_shaped_strings_are_the_candidates() {
        let text = "<|im_start|>system\nA <| b |> and <|x<|endoftext|> <|im_end|>";
        assert_eq!(chatml_candidates(text), ["<|im_start|>", "<|endoftext|>", "<|im_end|>"]);
        assert!(chatml_candidates("no markers, a|>b <|").is_empty());
    }
}
