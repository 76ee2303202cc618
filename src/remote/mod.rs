//! The agent on an existing inference server (vLLM, llama.cpp's `llama-server`): a
//! [`Generator`] that keeps the conversation as token ids on the client and sends them whole
//! with each completion request, so that the server's prefix cache (not sqale) skips what it
//! has already decoded.
//!
//! Like the in-process engine, it never re-tokenises generated text: the next prompt is the
//! ids sent, plus the ids the server returned, plus the appended turn's ids. It knows nothing
//! of SQL or tools. [`pool`] spreads episodes over several servers of one model and survives
//! servers that fail; [`server`] speaks the two APIs; [`tokenizer`] turns appended text into ids.

pub mod pool;
pub mod server;
pub mod tokenizer;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::generate::{Completion, Counters, Finish, GenerateError, Generator, Markup, TurnCache};
pub use pool::{Pool, PoolError, PoolEvent, PoolListener, PoolOptions, ServerStatus};
pub use server::{RemoteError, Sampling, ServerInfo, ServerKind};

/// One conversation on a [`Pool`]: on one server while it stays up.
#[derive(Debug)]
pub struct RemoteGenerator<'p> {
    pool: &'p Pool,
    sampling: Sampling,
    /// The server this episode's cache lives on.
    server: Option<usize>,
    ids: Vec<u32>,
    seed: u32,
    requests: u32,
    counters: Counters,
    last_cache: Option<TurnCache>,
    /// Set by [`Self::set_cancel`].
    cancel: Option<Arc<AtomicBool>>,
    /// The grammar completions are held to ([`Generator::constrain`]).
    grammar: Option<crate::protocol::CallGrammar>,
}

impl<'p> RemoteGenerator<'p> {
    /// A generator on `pool` sampling with `sampling`.
    pub fn new(pool: &'p Pool, sampling: Sampling) -> Self {
        RemoteGenerator {
            pool,
            sampling,
            server: None,
            ids: Vec::new(),
            seed: 0,
            requests: 0,
            counters: Counters::default(),
            last_cache: None,
            cancel: None,
            grammar: None,
        }
    }

    /// Makes this conversation cancellable, until called again with `None`: once `cancel` is
    /// set, every call fails with [`GenerateError::Cancelled`]. A completion already sent is
    /// not interrupted (the servers' answers come whole): the flag is read before each request
    /// and when its answer comes back, which is then dropped.
    pub fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    fn cancelled(&self) -> Result<(), GenerateError> {
        crate::generate::check_cancel(self.cancel.as_deref())
    }

    /// The conversation's token ids.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    fn tokenize(&self, text: &Markup, first: bool) -> Result<Vec<u32>, GenerateError> {
        self.pool.tokenize_markup(text, first).map_err(remote_failed)
    }
}

impl Drop for RemoteGenerator<'_> {
    fn drop(&mut self) {
        if let Some(i) = self.server.take() {
            self.pool.release(i);
        }
    }
}

/// A remote failure as a generation error (its source is the [`RemoteError`], so a caller can
/// tell a wrong API key from a server that went away).
pub fn remote_failed(e: RemoteError) -> GenerateError {
    GenerateError::Failed { what: "the inference server", source: Box::new(e) }
}

/// The [`RemoteError`] under a generation error, if it came from a server.
pub fn remote_error(e: &GenerateError) -> Option<&RemoteError> {
    match e {
        GenerateError::Failed { source, .. } => source.downcast_ref::<RemoteError>(),
        _ => None,
    }
}

/// The seed of request `n` of an episode seeded `seed`: each request gets a sampler of its own
/// on the server, so the seed moves on with each (a golden-ratio step, so that nearby episode
/// seeds don't share request seeds).
fn request_seed(seed: u32, n: u32) -> u32 {
    seed.wrapping_add(n.wrapping_mul(0x9E37_79B9))
}

impl Generator for RemoteGenerator<'_> {
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError> {
        self.cancelled()?;
        self.ids = self.tokenize(prefix, true)?;
        self.seed = seed;
        self.requests = 0;
        self.grammar = None;
        self.last_cache = None;
        self.counters = Counters { context_tokens: self.ids.len(), ..Counters::default() };
        if let Some(old) = self.server.take() {
            self.pool.release(old);
        }
        self.server = self.pool.claim();
        Ok(())
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        self.cancelled()?;
        let more = self.tokenize(text, self.ids.is_empty())?;
        let needed = self.ids.len() + more.len();
        if needed > max_tokens {
            return Err(GenerateError::OverBudget { needed, limit: max_tokens });
        }
        if needed > self.pool.context() {
            return Err(GenerateError::ContextFull { needed, capacity: self.pool.context() });
        }
        self.ids.extend(more);
        self.counters.context_tokens = self.ids.len();
        Ok(())
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        self.cancelled()?;
        let started = Instant::now();
        // The server needs room for the tokens asked for.
        let max_tokens = max_tokens.min(self.pool.context().saturating_sub(self.ids.len()));
        if max_tokens == 0 {
            return Ok(Completion { text: String::new(), tokens: 0, finish: Finish::Length, ids: Vec::new() });
        }
        let req = server::Request {
            prompt: &self.ids,
            max_tokens,
            sampling: self.sampling,
            seed: request_seed(self.seed, self.requests),
            stop_ids: self.pool.stop_ids(),
            grammar: self.grammar.as_ref(),
        };
        let (reply, server) = self.pool.complete(&req, self.server).map_err(|e| match e {
            RemoteError::ContextOverflow { .. } => {
                GenerateError::ContextFull { needed: self.ids.len() + max_tokens, capacity: self.pool.context() }
            }
            e => remote_failed(e),
        })?;
        if self.server != Some(server) {
            // It moved: its conversation's cache now lives on `server`.
            if let Some(old) = self.server.take() {
                self.pool.release(old);
            }
            self.pool.hold(server);
            self.server = Some(server);
        }
        // A cancel that came while the server generated: its answer is dropped.
        self.cancelled()?;
        self.requests += 1;
        let n = reply.tokens.len().min(max_tokens);
        let prompt_len = self.ids.len();
        self.ids.extend(&reply.tokens[..n]);
        let c = &mut self.counters;
        c.context_tokens = self.ids.len();
        c.generated_tokens += n;
        // What the server decoded, by its own count (all of the prompt when it doesn't say).
        c.decoded_tokens += reply.decoded.unwrap_or(prompt_len) + n;
        if self.requests == 1 {
            c.reused_tokens += reply.cached.unwrap_or(0);
        }
        c.generate_seconds += started.elapsed().as_secs_f64();
        self.last_cache = Some(TurnCache { prompt: prompt_len, cached: reply.cached, decoded: reply.decoded });
        if !reply.text.is_empty() {
            on_text(&reply.text);
        }
        let finish = if reply.stopped { Finish::Stop } else { Finish::Length };
        Ok(Completion { text: reply.text, tokens: n, finish, ids: reply.tokens[..n].to_vec() })
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn context_size(&self) -> usize {
        self.pool.context()
    }

    /// Kept for the requests that follow: llama-server takes it as its `grammar` field; vLLM
    /// refuses the completion ([`RemoteError::Unsupported`]).
    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        self.grammar = grammar.cloned();
        Ok(())
    }

    fn last_cache(&self) -> Option<TurnCache> {
        self.last_cache
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_seeds_move_on_and_repeat() {
        assert_eq!(request_seed(7, 0), 7);
        assert_ne!(request_seed(7, 1), request_seed(7, 2));
        assert_ne!(request_seed(7, 1), request_seed(8, 1));
        assert_eq!(request_seed(u32::MAX, 3), request_seed(u32::MAX, 3));
    }
}
