//! One sequence's drafting: which drafter proposes, how long a draft, and what came of it.
//!
//! Both engines keep one [`Drafting`] per sequence; the tokens it proposes are checked by the
//! decode core's verifier ([`super::core::Core::check`]).

use llama_cpp_2::token::LlamaToken;

use super::core::Checked;
use super::EngineOptions;
use crate::speculate::adapt::{CostCurve, Planner};
use crate::speculate::lookup::PromptLookup;
use crate::speculate::{Drafter, SpecCounts};

/// Drafts from outside the engine: an oracle in a benchmark, a test's chosen tokens.
pub trait DraftSource {
    /// Up to `max` tokens to follow `context` (the conversation's tokens and the pending one).
    fn draft(&mut self, context: &[LlamaToken], max: usize) -> Vec<LlamaToken>;
}

/// A sequence's drafters and their counts.
pub(crate) struct Drafting<'a> {
    lookup: Option<(PromptLookup, Planner)>,
    /// A caller's drafter and its fixed draft length, used instead of the others.
    given: Option<(Box<dyn DraftSource + 'a>, usize)>,
    max_draft: usize,
    /// What speculation did in this conversation.
    pub(crate) counts: SpecCounts,
    /// The context with the pending token, for the lookup.
    scratch: Vec<LlamaToken>,
}

impl<'a> Drafting<'a> {
    /// The drafters `options` asks for.
    pub(crate) fn new(options: &EngineOptions) -> Self {
        let lookup = options.speculate.lookup() && options.max_draft > 0;
        Drafting {
            lookup: lookup.then(|| (PromptLookup::default(), Planner::new(options.max_draft))),
            given: None,
            max_draft: options.max_draft,
            counts: SpecCounts::default(),
            scratch: Vec::new(),
        }
    }

    /// Drafts from `source`, `k` tokens at a time, instead of the engine's drafters (`None`
    /// goes back to them).
    pub(crate) fn set_given(&mut self, source: Option<Box<dyn DraftSource + 'a>>, k: usize) {
        self.given = source.map(|s| (s, k));
    }

    /// Starts a new conversation: counts and acceptance history forgotten.
    pub(crate) fn reset(&mut self) {
        self.counts = SpecCounts::default();
        if let Some((_, planner)) = self.lookup.as_mut() {
            *planner = Planner::new(self.max_draft);
        }
    }

    /// A draft to follow `context` and the pending token `last`, at most `room` tokens long;
    /// `None` when no drafter has one worth checking.
    pub(crate) fn propose(
        &mut self,
        context: &[LlamaToken],
        last: LlamaToken,
        cost: &CostCurve,
        room: usize,
    ) -> Option<(Drafter, Vec<LlamaToken>)> {
        self.scratch.clear();
        self.scratch.extend_from_slice(context);
        self.scratch.push(last);
        if let Some((source, k)) = self.given.as_mut() {
            let mut draft = source.draft(&self.scratch, (*k).min(room));
            draft.truncate((*k).min(room));
            return (!draft.is_empty()).then_some((Drafter::Given, draft));
        }
        let (lookup, planner) = self.lookup.as_mut()?;
        let k = planner.plan(cost, room);
        if k == 0 {
            return None;
        }
        let draft = lookup.draft(&self.scratch, k);
        (!draft.is_empty()).then_some((Drafter::Lookup, draft))
    }

    /// Records what the verifier made of a draft of `drafted` tokens; `bonus` when the token
    /// sampled after the kept drafts was kept too.
    pub(crate) fn settle(&mut self, drafter: Drafter, drafted: usize, checked: &Checked, bonus: bool) {
        let c = self.counts.of(drafter);
        c.steps += 1;
        c.drafted += drafted;
        c.accepted += checked.accepted;
        c.bonus += usize::from(bonus);
        if let (Drafter::Lookup, Some((_, planner))) = (drafter, self.lookup.as_mut()) {
            planner.record(drafted, checked.accepted);
        }
    }
}
