//! One conversation on the decode core: its tokens, sampler, counters and drafters, and the
//! bookkeeping of each step. The lone engine keeps one; the batched engine one per sequence of
//! its context. What a step does to a sequence is written here once:
//! - [`Sequence::begin`]: the prefix in, the counters started;
//! - [`Sequence::decode`]: known text decoded and counted;
//! - [`Sequence::propose`]: a draft to follow the pending token;
//! - [`Sequence::settle`]: after a verify batch, the rows checked, the kept tokens added and
//!   counted, the rest dropped from the cache (or the sequence marked for a replay), the
//!   drafter told what came of its draft.

use std::time::Instant;

use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use super::core::{Checked, Core, Row, Segment};
use super::draft::Drafting;
use super::kernels::BatchKind;
use crate::generate::{Counters, GenerateError, Markup, PrefixSource};
use crate::speculate::Drafter;

/// A draft and who proposed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Draft {
    /// Who proposed it.
    pub(super) drafter: Drafter,
    /// The proposed tokens.
    pub(super) tokens: Vec<LlamaToken>,
}

/// One conversation's state on sequence `id` of a [`Core`].
pub(super) struct Sequence<'a> {
    /// The core's sequence this conversation decodes into.
    pub(super) id: usize,
    /// The conversation's tokens in the cache.
    pub(super) tokens: Vec<LlamaToken>,
    /// How they were decoded: runs of appended text and of generated tokens, in order, covering
    /// [`Self::tokens`] (what a replay repeats).
    pub(super) segments: Vec<Segment>,
    /// Its sampler (seeded at [`Self::begin`]).
    pub(super) sampler: LlamaSampler,
    /// llama.cpp's grammar sampler the completions are held to, before [`Self::sampler`]
    /// (constrained calls); `None` for free text.
    pub(super) grammar: Option<LlamaSampler>,
    /// What was decoded, reused and generated.
    pub(super) counters: Counters,
    /// Its drafters.
    pub(super) drafting: Drafting<'a>,
}

/// What a verify step kept ([`Sequence::settle`]).
pub(super) struct Settled {
    /// Drafts kept, and the token chosen after them.
    pub(super) checked: Checked,
    /// Output index in the verify batch of the row whose logits follow the last kept token.
    pub(super) last_row: i32,
    /// Whether the cache could not drop the rejected rows, so the sequence must be rebuilt
    /// ([`Sequence::replay`]) before it decodes again.
    pub(super) replay: bool,
}

impl<'a> Sequence<'a> {
    /// An empty conversation on sequence `id` of `core`, greedy until [`Self::begin`].
    pub(super) fn new(core: &Core<'_>, id: usize) -> Self {
        Sequence {
            id,
            tokens: Vec::new(),
            segments: Vec::new(),
            sampler: LlamaSampler::greedy(),
            grammar: None,
            counters: Counters::default(),
            drafting: Drafting::new(core.options()),
        }
    }

    /// Forgets the conversation: tokens, counters and drafting history (the cache is the
    /// caller's to clear).
    pub(super) fn reset(&mut self) {
        self.tokens.clear();
        self.segments.clear();
        self.grammar = None;
        self.counters = Counters::default();
        self.drafting.reset();
    }

    /// Starts a conversation with `prefix`, sampled with `seed`: restored from the core's
    /// snapshot or the prompt cache on disk, or decoded (and snapshotted when `keep`). Returns the output index of the
    /// prefix's last logits when it was decoded; a restored snapshot holds none.
    pub(super) fn begin(
        &mut self,
        core: &mut Core<'_>,
        prefix: &Markup,
        seed: u32,
        keep: bool,
    ) -> Result<Option<i32>, GenerateError> {
        self.reset();
        self.sampler = core.sampler(seed);
        let started = Instant::now();
        let p = core.begin(self.id, prefix, keep)?;
        if p.source == PrefixSource::Decoded {
            self.counters.decoded_tokens = p.tokens.len();
            self.counters.prefill_seconds = started.elapsed().as_secs_f64();
        } else {
            self.counters.reused_tokens = p.tokens.len();
        }
        self.counters.prefix_source = Some(p.source);
        Segment::push(&mut self.segments, 0, p.tokens.len(), BatchKind::Appended);
        self.tokens = p.tokens;
        self.counters.context_tokens = self.tokens.len();
        Ok(p.logits)
    }

    /// Decodes `tokens` of `kind` after the conversation, in batches, counting them as prefill;
    /// returns the output index of the last token's logits (`None` for no tokens).
    pub(super) fn decode(
        &mut self,
        core: &mut Core<'_>,
        tokens: &[LlamaToken],
        kind: BatchKind,
    ) -> Result<Option<i32>, GenerateError> {
        let started = Instant::now();
        let last = core.decode_run(self.id, self.tokens.len(), tokens, kind)?;
        Segment::push(&mut self.segments, self.tokens.len(), tokens.len(), kind);
        self.tokens.extend_from_slice(tokens);
        self.counters.decoded_tokens += tokens.len();
        self.counters.context_tokens = self.tokens.len();
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(last)
    }

    /// A draft of at most `room` tokens to follow the conversation and the `pending` token
    /// (sampled, not decoded yet), from the sequence's drafters and the core's MTP head.
    pub(super) fn propose(
        &mut self,
        core: &mut Core<'_>,
        pending: LlamaToken,
        room: usize,
    ) -> Result<Option<Draft>, GenerateError> {
        let cost = core.cost().clone();
        let has_mtp = core.has_mtp();
        let (tokens, drafting) = (&self.tokens, &mut self.drafting);
        let n_past = tokens.len();
        let mut head = |k: usize| core.mtp_draft(n_past, pending, tokens, k);
        let mtp: Option<&mut dyn FnMut(usize) -> Result<Vec<LlamaToken>, GenerateError>> =
            if has_mtp { Some(&mut head) } else { None };
        let draft = drafting.propose(tokens, pending, &cost, room, mtp)?;
        Ok(draft.map(|(drafter, tokens)| Draft { drafter, tokens }))
    }

    /// The verify rows of the `pending` token and its `draft`.
    pub(super) fn rows<'t>(&self, pending: LlamaToken, draft: &'t [LlamaToken]) -> impl Iterator<Item = Row> + 't {
        let (seq, pos) = (self.id, self.tokens.len());
        std::iter::once(pending).chain(draft.iter().copied()).enumerate().map(move |(k, token)| Row {
            seq,
            pos: pos + k,
            token,
        })
    }

    /// After the verify batch that held this sequence's `rows` ([`Self::rows`]: the pending
    /// token and the draft) from output `first` on: checks the draft (against the sampler, or
    /// the `known` continuation when replaying text as if it were generated), taking at most
    /// `room` tokens; keeps the pending token and the accepted drafts, counts them, drops the
    /// rejected rows from the cache, and tells the drafter (and the MTP head) what came of its
    /// draft.
    pub(super) fn settle(
        &mut self,
        core: &mut Core<'_>,
        first: usize,
        rows: &[Row],
        draft: Option<&Draft>,
        room: usize,
        known: Option<&[LlamaToken]>,
    ) -> Result<Settled, GenerateError> {
        let drafted = draft.map_or(&[][..], |d| &d.tokens[..]);
        let checked = match known {
            Some(rest) => core.check_with(|row| rest[row], drafted, room.min(rest.len())),
            None => core.check(&mut self.sampler, self.grammar.as_mut(), first as i32, drafted, room),
        };
        let kept = 1 + checked.accepted;
        if let Some(d) = draft {
            core.mtp_settle(rows, kept, d.drafter == Drafter::Mtp)?;
        }
        let pos = self.tokens.len();
        Segment::push(&mut self.segments, pos, kept, BatchKind::Generated);
        self.tokens.extend(rows[..kept].iter().map(|r| r.token));
        self.counters.decoded_tokens += kept;
        self.counters.context_tokens = self.tokens.len();
        let replay = kept < 1 + drafted.len() && !core.rollback(self.id, pos + kept);
        if replay {
            self.drafting.counts.replays += 1;
        }
        if let Some(d) = draft {
            let bonus = checked.next.is_some_and(|t| !core.is_stop(t));
            self.drafting.settle(d.drafter, d.tokens.len(), &checked, bonus);
        }
        self.counters.speculation = self.drafting.counts;
        Ok(Settled { checked, last_row: (first + checked.accepted) as i32, replay })
    }

    /// Rebuilds the sequence in the cache as exactly its tokens (after a [`Settled::replay`]);
    /// returns the output index of the last token's logits.
    pub(super) fn replay(&mut self, core: &mut Core<'_>) -> Result<Option<i32>, GenerateError> {
        core.replay(self.id, &self.tokens, &self.segments)
    }
}

/// Refuses appending `adding` tokens to a conversation of `held` when that passes the caller's
/// `limit` (nothing is appended then).
pub(super) fn check_budget(held: usize, adding: usize, limit: usize) -> Result<(), GenerateError> {
    let needed = held + adding;
    if needed > limit {
        return Err(GenerateError::OverBudget { needed, limit });
    }
    Ok(())
}
