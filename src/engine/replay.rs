//! The engine driven from outside: known text decoded as if the model had generated it, drafts
//! from a caller's drafter, one verify step at a time, and the prefix cache dropped. What the
//! benchmarks measure speculation and the prompt cache with, and what tests check exactness by.

use std::time::Instant;

use llama_cpp_2::token::LlamaToken;

use super::sequence::Draft;
use super::{DraftSource, Engine};
use crate::generate::GenerateError;
use crate::speculate::Drafter;

/// What one verify step kept ([`Engine::verify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// Draft tokens kept (the target sampled them too).
    pub accepted: usize,
    /// The token sampled after the kept drafts (pending: not decoded yet).
    pub next: Option<LlamaToken>,
}

impl<'m> Engine<'m> {
    /// Sets a caller's drafter (an oracle, a test's tokens) that proposes `k` tokens at a time
    /// in place of the engine's own drafters; `None` goes back to them. Its counts are reported
    /// as `given`.
    pub fn set_draft_source(&mut self, source: Option<Box<dyn DraftSource + 'm>>, k: usize) {
        self.seq.drafting.set_given(source, k);
    }

    /// One verify step, sampled: decodes `token` (the pending token: sampled, not yet decoded)
    /// and `draft` in one batch, keeps the drafts the conversation's sampler picks too, drops
    /// the rest from the cache, and returns what was kept and the token sampled after it.
    pub fn verify(&mut self, token: LlamaToken, draft: &[LlamaToken]) -> Result<Verified, GenerateError> {
        let room = draft.len() + 1;
        let checked = self.verify_step(token, Draft { drafter: Drafter::Given, tokens: draft.to_vec() }, room, None)?;
        Ok(Verified { accepted: checked.accepted, next: checked.next })
    }

    /// Decodes `tokens` as if the model had generated them, with speculation as configured:
    /// drafts are checked against the known tokens instead of being sampled (what speculation
    /// saves on a conversation whose text is known, e.g. a benchmark's replay).
    pub fn decode_generated(&mut self, tokens: &[LlamaToken]) -> Result<(), GenerateError> {
        let started = Instant::now();
        let prefill_before = self.seq.counters.prefill_seconds;
        let mut done = 0;
        while done < tokens.len() {
            let rest = &tokens[done + 1..];
            let room = rest.len().min(self.core.per_seq().saturating_sub(self.seq.tokens.len() + 1));
            let checked = self.advance(tokens[done], room, room, Some(rest))?;
            done += 1 + checked.accepted;
        }
        let counters = &mut self.seq.counters;
        counters.generated_tokens += tokens.len();
        counters.prefill_seconds = prefill_before;
        counters.generate_seconds += started.elapsed().as_secs_f64();
        counters.speculation = self.seq.drafting.counts;
        Ok(())
    }
}
