//! Teacher forcing: known text decoded in batches, with the logits after each marked token
//! handed to the caller (what the divergence measurement compares between quantisations).

use std::time::Instant;

use llama_cpp_2::token::LlamaToken;

use super::core::Segment;
use super::kernels::BatchKind;
use super::{Engine, SEQ};
use crate::generate::GenerateError;

/// Most tokens with logits in one teacher-forced batch ([`Engine::decode_scored`]). llama.cpp
/// keeps every output row's logits: 128 rows of Qwen3.5's 248k-token vocabulary are 127 MB. On
/// the synthetic 2B at q4_k_m, 128 rows made the teacher-forced pass 20 % faster than 32 (56 s
/// against 70 s a question) for 180 MB more peak memory.
pub const MAX_SCORED_ROWS: usize = 128;

impl Engine<'_> {
    /// Decodes `tokens` after the current sequence as known text (teacher forcing), in batches
    /// of at most [`MAX_SCORED_ROWS`] scored tokens, and hands `on_logits(i, logits)` the logits
    /// after `tokens[i]` for every `i` whose `scored` entry is set, in order. Nothing is sampled;
    /// the logits of the last token are not kept for sampling.
    pub fn decode_scored(
        &mut self,
        tokens: &[LlamaToken],
        scored: &[bool],
        on_logits: &mut dyn FnMut(usize, &[f32]),
    ) -> Result<(), GenerateError> {
        let started = Instant::now();
        if scored.len() != tokens.len() {
            return Err(GenerateError::ScoredMarks { marks: scored.len(), tokens: tokens.len() });
        }
        let needed = self.seq.tokens.len() + tokens.len();
        if needed > self.core.per_seq() {
            return Err(GenerateError::ContextFull { needed, capacity: self.core.per_seq() });
        }
        let mut start = 0;
        while start < tokens.len() {
            // A batch ends at the chunk size or at the scored-row cap (each row's logits are
            // kept: a 248k-token vocabulary is 1 MB a row).
            let mut end = start;
            let mut rows = 0;
            while end < tokens.len() && end - start < self.core.chunk() && rows < MAX_SCORED_ROWS {
                rows += scored[end] as usize;
                end += 1;
            }
            self.core.decode_marked(SEQ, self.seq.tokens.len(), &tokens[start..end], &scored[start..end])?;
            for i in (start..end).filter(|&i| scored[i]) {
                // llama.cpp indexes logits by the token's place in the batch.
                on_logits(i, self.core.logits((i - start) as i32));
            }
            Segment::push(&mut self.seq.segments, self.seq.tokens.len(), end - start, BatchKind::Appended);
            self.seq.tokens.extend_from_slice(&tokens[start..end]);
            start = end;
        }
        self.logits_index = None;
        let counters = &mut self.seq.counters;
        counters.decoded_tokens += tokens.len();
        counters.context_tokens = self.seq.tokens.len();
        counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }
}
