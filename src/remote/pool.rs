//! Several servers of one model: which one an episode goes to, retries with backoff, and
//! dropping a server that keeps failing so that its episodes go to the others.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
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
}

impl std::fmt::Display for PoolEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolEvent::Dropped { url, tries, error } => {
                write!(f, "dropping server {url} after {tries} failed tries: {error}")
            }
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
            members.push(Member { server, info, dropped: AtomicBool::new(false), in_flight: AtomicUsize::new(0) });
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
        let mut pool = Pool { members, model, context, stop_ids: Vec::new(), tokenizer, options };
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
        match &self.tokenizer {
            Tokenizer::Local(t) => t
                .encode(text, first)
                .map_err(|message| RemoteError::BadResponse { url: "local tokenizer".into(), message }),
            Tokenizer::Server => self.with_server(None, |s| s.tokenize(text, first, &self.model)).map(|(v, _)| v),
        }
    }

    /// One completion, on server `prefer` if it is still up (an episode keeps to one server,
    /// whose cache holds its conversation), else on another; returns the reply and the server
    /// that gave it.
    pub fn complete(&self, req: &Request<'_>, prefer: Option<usize>) -> Result<(Reply, usize), RemoteError> {
        self.with_server(prefer, |s| s.complete(req, &self.model))
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

    /// The least loaded live server, by requests in flight per slot.
    pub fn pick(&self) -> Option<usize> {
        self.members
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.dropped.load(Ordering::SeqCst))
            .min_by(|(_, a), (_, b)| {
                let load =
                    |m: &Member| m.in_flight.load(Ordering::SeqCst) as f64 / m.info.slots.unwrap_or(1).max(1) as f64;
                load(a).total_cmp(&load(b))
            })
            .map(|(i, _)| i)
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
                return Err(last.unwrap_or(RemoteError::Connect {
                    url: "every server".into(),
                    message: "all servers were dropped after failing".into(),
                }));
            };
            let m = &self.members[i];
            let mut pause = self.options.backoff;
            for attempt in 1..=self.options.tries.max(1) {
                m.in_flight.fetch_add(1, Ordering::SeqCst);
                let r = f(&m.server);
                m.in_flight.fetch_sub(1, Ordering::SeqCst);
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
            m.dropped.store(true, Ordering::SeqCst);
            if let (Some(e), Some(listener)) = (&last, &self.options.on_event) {
                let tries = self.options.tries.max(1);
                listener(&PoolEvent::Dropped { url: m.server.url().to_string(), tries, error: e.to_string() });
            }
            index = None;
        }
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
        let mine = local.encode(sample, false).map_err(PoolError::Tokenizer)?;
        let m = &self.members[0];
        let theirs = m
            .server
            .tokenize(sample, false, &self.model)
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
