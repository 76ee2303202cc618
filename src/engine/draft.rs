//! One sequence's drafting: which drafter proposes, how long a draft, and what came of it.
//!
//! Both engines keep one [`Drafting`] per sequence; the tokens it proposes are checked by the
//! decode core's verifier ([`super::core::Core::check`]).

use llama_cpp_2::token::LlamaToken;

use super::core::Checked;
use super::EngineOptions;
use crate::generate::GenerateError;
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
    /// The MTP head's planner, when the head drafts (the head itself is the core's).
    mtp: Option<Planner>,
    /// A caller's drafter and its fixed draft length, used instead of the others.
    given: Option<(Box<dyn DraftSource + 'a>, usize)>,
    max_draft: usize,
    /// What speculation did in this conversation.
    pub(crate) counts: SpecCounts,
    /// The context with the pending token, for a caller's drafter.
    scratch: Vec<LlamaToken>,
}

impl<'a> Drafting<'a> {
    /// The drafters `options` asks for.
    pub(crate) fn new(options: &EngineOptions) -> Self {
        let speculate = options.speculation();
        let lookup = speculate.lookup() && options.max_draft > 0;
        Drafting {
            lookup: lookup.then(|| (PromptLookup::default(), Planner::new(options.max_draft))),
            given: None,
            mtp: speculate.mtp(true).then(|| Planner::new(options.max_draft)),
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
        if let Some(planner) = self.mtp.as_mut() {
            *planner = Planner::new(self.max_draft);
        }
    }

    /// A draft to follow `context` and the pending token `last`, at most `room` tokens long;
    /// `None` when no drafter has one worth checking. Prompt lookup goes first (it costs
    /// nothing); the MTP head (`mtp`: asks the core's head for up to `k` tokens; `None` when
    /// this context has no head) drafts when lookup has nothing.
    pub(crate) fn propose(
        &mut self,
        context: &[LlamaToken],
        last: LlamaToken,
        cost: &CostCurve,
        room: usize,
        mtp: Option<&mut dyn FnMut(usize) -> Result<Vec<LlamaToken>, GenerateError>>,
    ) -> Result<Option<(Drafter, Vec<LlamaToken>)>, GenerateError> {
        if self.given.is_none() && self.lookup.is_none() && (self.mtp.is_none() || mtp.is_none()) {
            return Ok(None);
        }
        if let Some((source, k)) = self.given.as_mut() {
            self.scratch.clear();
            self.scratch.extend_from_slice(context);
            self.scratch.push(last);
            let mut draft = source.draft(&self.scratch, (*k).min(room));
            draft.truncate((*k).min(room));
            return Ok((!draft.is_empty()).then_some((Drafter::Given, draft)));
        }
        if let Some((lookup, planner)) = self.lookup.as_mut() {
            let k = planner.plan(cost, room);
            if k > 0 {
                let draft = lookup.draft(context, last, k);
                if !draft.is_empty() {
                    return Ok(Some((Drafter::Lookup, draft)));
                }
            }
        }
        if let (Some(planner), Some(head)) = (self.mtp.as_mut(), mtp) {
            let k = planner.plan(cost, room);
            if k > 0 {
                let draft = head(k)?;
                if !draft.is_empty() {
                    return Ok(Some((Drafter::Mtp, draft)));
                }
            }
        }
        Ok(None)
    }

    /// Records what the verifier made of a draft of `drafted` tokens; `bonus` when the token
    /// sampled after the kept drafts was kept too.
    pub(crate) fn settle(&mut self, drafter: Drafter, drafted: usize, checked: &Checked, bonus: bool) {
        let c = self.counts.of(drafter);
        c.steps += 1;
        c.drafted += drafted;
        c.accepted += checked.accepted;
        c.bonus += usize::from(bonus);
        match drafter {
            Drafter::Lookup => self.lookup.as_mut().map(|(_, p)| p.record(drafted, checked.accepted)),
            Drafter::Mtp => self.mtp.as_mut().map(|p| p.record(drafted, checked.accepted)),
            Drafter::Given => None,
        };
    }
}
