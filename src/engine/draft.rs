//! One sequence's drafting: which drafter proposes, how long a draft, and what came of it.
//!
//! Both engines keep one [`Drafting`] per sequence; the tokens it proposes are checked by the
//! decode core's verifier ([`super::core::Core::check`]).

use llama_cpp_2::token::LlamaToken;

use super::core::Checked;
use super::EngineOptions;
use crate::generate::GenerateError;
use crate::speculate::adapt::{CostCurve, Planner};
use crate::speculate::lookup::{copy, PromptLookup};
use crate::speculate::{Drafter, SpecCounts};

/// Drafts from outside the engine: an oracle in a benchmark, a test's chosen tokens.
pub trait DraftSource {
    /// Up to `max` tokens to follow `context` (the conversation's tokens and the pending one).
    fn draft(&mut self, context: &[LlamaToken], max: usize) -> Vec<LlamaToken>;
}

/// Longest draft of prompt lookup's ordinary matches and of the MTP head: beyond it a draft
/// must be nearly all kept to pay on two cores, which only verbatim repeats are.
pub(crate) const SHORT_DRAFT_TOKENS: usize = 8;

/// The acceptance a verbatim repeat's drafts start from: such drafts are nearly always kept
/// (llama.cpp's `ngram-mod`, which drafts only on them, kept 78 % of 5,925 drafted tokens on
/// SmolLM2's sampled episodes, docs/measurements.md).
const VERBATIM_PRIOR: f64 = 0.95;

/// Prompt lookup and its two planners: one for ordinary matches (drafts of up to
/// [`SHORT_DRAFT_TOKENS`]), one for verbatim repeats (up to the engine's longest draft).
struct Lookup {
    lookup: PromptLookup,
    short: Planner,
    verbatim: Planner,
    /// The draft being checked came from a verbatim repeat.
    drafted_verbatim: bool,
}

impl Lookup {
    /// The lookup with fresh planners, for drafts of up to `max_draft` tokens.
    fn new(max_draft: usize) -> Self {
        Lookup {
            lookup: PromptLookup::default(),
            short: Planner::new(max_draft.min(SHORT_DRAFT_TOKENS)),
            verbatim: Planner::hopeful(max_draft, VERBATIM_PRIOR),
            drafted_verbatim: false,
        }
    }
}

/// A sequence's drafters and their counts.
pub(crate) struct Drafting<'a> {
    lookup: Option<Lookup>,
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
        let max_draft = options.draft_limit();
        let lookup = speculate.lookup() && max_draft > 0;
        Drafting {
            lookup: lookup.then(|| Lookup::new(max_draft)),
            given: None,
            mtp: speculate.mtp(true).then(|| Planner::new(max_draft.min(SHORT_DRAFT_TOKENS))),
            max_draft,
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
        if let Some(l) = self.lookup.as_mut() {
            *l = Lookup::new(self.max_draft);
        }
        if let Some(planner) = self.mtp.as_mut() {
            *planner = Planner::new(self.max_draft.min(SHORT_DRAFT_TOKENS));
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
        if let Some(l) = self.lookup.as_mut() {
            // The ordinary planner's clock runs every step, as its pauses are counted in steps.
            let short = l.short.plan(cost, room);
            if let Some(m) = l.lookup.find(context, last) {
                // A verbatim repeat drafts by its own planner, and by the ordinary one while
                // that planner is paused.
                let long = if m.verbatim() && l.verbatim.max_draft() > l.short.max_draft() {
                    l.verbatim.plan(cost, room)
                } else {
                    0
                };
                let (verbatim, k) = if long > 0 { (true, long) } else { (false, short) };
                if k > 0 {
                    l.drafted_verbatim = verbatim;
                    return Ok(Some((Drafter::Lookup, copy(context, last, m, k))));
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
        c.longest = c.longest.max(drafted);
        match drafter {
            Drafter::Lookup => self.lookup.as_mut().map(|l| {
                let planner = if l.drafted_verbatim { &mut l.verbatim } else { &mut l.short };
                planner.record(drafted, checked.accepted)
            }),
            Drafter::Mtp => self.mtp.as_mut().map(|p| p.record(drafted, checked.accepted)),
            Drafter::Given => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speculate::Speculate;

    fn tokens(ids: &[i32]) -> Vec<LlamaToken> {
        ids.iter().map(|&i| LlamaToken::new(i)).collect()
    }

    /// A verify cost of 0.45 of a plain step per row, as measured for SmolLM2 on two cores.
    fn cost() -> CostCurve {
        let mut c = CostCurve::new(65);
        for rows in 1..=65 {
            c.record(rows, 0.01 * (1.0 + 0.45 * (rows - 1) as f64));
        }
        c
    }

    fn drafting(max_draft: usize) -> Drafting<'static> {
        let options =
            EngineOptions { speculate: Speculate::Lookup, max_draft: Some(max_draft), ..EngineOptions::default() };
        Drafting::new(&options)
    }

    /// A loop seen often enough to match verbatim is drafted long once its drafts are kept, and
    /// round the loop past the context's end; an ordinary match stays within the short limit.
    #[test]
    fn a_verbatim_loop_is_drafted_long_and_other_matches_short() {
        let period = [11, 12, 13, 14, 15];
        let looped: Vec<i32> = std::iter::once(1).chain(period.iter().copied().cycle().take(40)).collect();
        let (last, context) = looped.split_last().unwrap();
        let (loop_context, loop_last) = (tokens(context), LlamaToken::new(*last));
        let (context, last) = (&loop_context, loop_last);
        let mut d = drafting(64);
        let curve = cost();
        let mut longest = 0;
        for _ in 0..6 {
            let (drafter, draft) = d.propose(context, last, &curve, 1000, None).unwrap().expect("a draft");
            assert_eq!(drafter, Drafter::Lookup);
            let want: Vec<LlamaToken> = tokens(&period).into_iter().cycle().take(draft.len()).collect();
            assert_eq!(draft, want, "the draft goes round the loop");
            let checked = Checked { accepted: draft.len(), next: None };
            d.settle(drafter, draft.len(), &checked, true);
            longest = longest.max(draft.len());
        }
        assert!(longest > SHORT_DRAFT_TOKENS, "kept drafts of a verbatim loop grow past the short limit: {longest}");
        assert_eq!(d.counts.lookup.longest, longest);

        // "1 2 3 … 30", then "… 27 28" again: a 4-gram match, not a verbatim one.
        let mut seq: Vec<i32> = (1..=30).collect();
        seq.extend([99, 27, 28]);
        let (last, context) = seq.split_last().unwrap();
        let (context, last) = (tokens(context), LlamaToken::new(*last));
        let mut d = drafting(64);
        for _ in 0..40 {
            // The ordinary planner starts from one half, which does not pay on this curve: it
            // pauses, then probes.
            if let Some((drafter, draft)) = d.propose(&context, last, &curve, 1000, None).unwrap() {
                assert!(draft.len() <= SHORT_DRAFT_TOKENS, "{}", draft.len());
                assert_eq!(draft[0], LlamaToken::new(29));
                let checked = Checked { accepted: draft.len(), next: None };
                d.settle(drafter, draft.len(), &checked, true);
            }
        }
        assert!(d.counts.lookup.steps > 0, "the ordinary match was drafted");

        // With the limit at 8 (a hybrid model's default), a verbatim loop drafts at most 8.
        let mut d = drafting(8);
        for _ in 0..40 {
            if let Some((drafter, draft)) = d.propose(&loop_context, loop_last, &curve, 1000, None).unwrap() {
                assert!(draft.len() <= 8);
                let checked = Checked { accepted: draft.len(), next: None };
                d.settle(drafter, draft.len(), &checked, true);
            }
        }
        assert_eq!(d.counts.lookup.longest, 8, "kept drafts reach the limit and stop there");
    }
}
