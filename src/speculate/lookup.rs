//! Prompt lookup: a drafter with no weights of its own.
//!
//! An agent episode copies a lot: table and column names from tool results into SQL, the tested
//! `run_query` SQL into `submit_sql`, restated thinking. So the tokens that followed the latest
//! n-gram the last time it appeared in the context are a good guess at what follows it now.
//! This is llama.cpp's "ngram-simple" idea (`common/ngram-map.cpp`), over the episode's own
//! tokens: the longest n-gram (from `max_ngram` down to `min_ngram`) that ends the context and
//! occurred before, at its most recent earlier occurrence.

/// Tokens that must match verbatim, up to the pending one, before a draft counts as a
/// verbatim repeat ([`Match::verbatim`]): llama.cpp's `ngram-mod` drafts only after a match this
/// long (its `n_match`, 24), and then drafts long (48 to 64 tokens).
pub const VERBATIM_TOKENS: usize = 24;

/// N-gram sizes of the lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptLookup {
    /// Shortest n-gram matched (shorter ones propose noise).
    pub min_ngram: usize,
    /// Longest n-gram matched first.
    pub max_ngram: usize,
}

impl Default for PromptLookup {
    fn default() -> Self {
        PromptLookup { min_ngram: 2, max_ngram: 4 }
    }
}

/// Where a lookup matched: the draft is copied from position `from` of `context ++ [last]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// First position after the earlier occurrence.
    pub from: usize,
    /// Tokens that match verbatim before `from` and before the sequence's end, counted up to
    /// [`VERBATIM_TOKENS`].
    pub matched: usize,
}

impl Match {
    /// Whether the sequence's last [`VERBATIM_TOKENS`] tokens occurred before, verbatim: a
    /// loop or a copied passage, whose continuation is likely copied too.
    pub fn verbatim(&self) -> bool {
        self.matched >= VERBATIM_TOKENS
    }
}

impl PromptLookup {
    /// Up to `max` tokens proposed to follow `context` and then `last` (the pending token, not
    /// yet in the context: taken apart so that the caller need not copy its context every
    /// step); empty when the sequence's ending n-grams never occurred before.
    pub fn draft<T: PartialEq + Copy>(&self, context: &[T], last: T, max: usize) -> Vec<T> {
        match self.find(context, last) {
            Some(m) => copy(context, last, m, max),
            None => Vec::new(),
        }
    }

    /// The most recent earlier occurrence of the longest n-gram (from `max_ngram` down to
    /// `min_ngram`) that ends `context ++ [last]`, with at least one token after it.
    pub fn find<T: PartialEq + Copy>(&self, context: &[T], last: T) -> Option<Match> {
        // The sequence `context ++ [last]`, by position.
        let len = context.len() + 1;
        let at = |i: usize| if i < context.len() { context[i] } else { last };
        for n in (self.min_ngram.max(1)..=self.max_ngram).rev() {
            if n >= len {
                continue;
            }
            let matches = |i: usize| (0..n).all(|j| at(i + j) == at(len - n + j));
            if let Some(start) = (0..len - n).rev().find(|&i| matches(i)) {
                let from = start + n;
                // How far the match runs back from there (at most to the sequence's start).
                let matched =
                    (0..VERBATIM_TOKENS.min(from)).take_while(|&j| at(from - 1 - j) == at(len - 1 - j)).count();
                return Some(Match { from, matched });
            }
        }
        None
    }
}

/// Up to `max` tokens copied from where `m` matched in `context ++ [last]`. Past the
/// sequence's end the copy reads the draft itself, so that a loop of period `len - from`
/// drafts as far as `max` (the sequence `context ++ [last] ++ draft` repeats with that period).
pub fn copy<T: Copy>(context: &[T], last: T, m: Match, max: usize) -> Vec<T> {
    let len = context.len() + 1;
    let at = |i: usize| if i < context.len() { context[i] } else { last };
    let mut draft: Vec<T> = Vec::with_capacity(max);
    for i in m.from..m.from.saturating_add(max) {
        let token = if i < len { at(i) } else { draft[i - len] };
        draft.push(token);
    }
    draft
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `draft` over a whole sequence, its last token passed apart as callers do.
    fn draft(l: &PromptLookup, seq: &[i32], max: usize) -> Vec<i32> {
        match seq.split_last() {
            Some((&last, context)) => l.draft(context, last, max),
            None => Vec::new(),
        }
    }

    #[test]
    fn proposes_what_followed_the_latest_earlier_occurrence() {
        let l = PromptLookup::default();
        // "a b c d e ... a b" → "c d e"
        let ctx = [1, 2, 3, 4, 5, 9, 9, 1, 2];
        assert_eq!(draft(&l, &ctx, 3), vec![3, 4, 5]);
        assert_eq!(draft(&l, &ctx, 1), vec![3]);
    }

    #[test]
    fn prefers_the_longest_ngram_then_the_most_recent_occurrence() {
        let l = PromptLookup { min_ngram: 1, max_ngram: 3 };
        // "7 2" occurs twice (followed by 8, then by 6); "1 7 2" only once, followed by 8.
        let ctx = [1, 7, 2, 8, 0, 7, 2, 6, 0, 1, 7, 2];
        assert_eq!(draft(&l, &ctx, 1), vec![8]);
        // Without the 3-gram, the most recent "7 2" wins.
        let l2 = PromptLookup { min_ngram: 1, max_ngram: 2 };
        assert_eq!(draft(&l2, &ctx, 1), vec![6]);
    }

    #[test]
    fn nothing_when_the_ending_never_occurred_or_no_room() {
        let l = PromptLookup::default();
        assert!(draft(&l, &[1, 2, 3, 4, 5], 4).is_empty());
        assert!(draft(&l, &[1, 2, 1, 2], 0).is_empty());
        assert!(draft(&l, &[], 4).is_empty());
        assert!(draft(&l, &[5], 4).is_empty());
    }

    #[test]
    fn a_periodic_context_drafts_into_its_own_ending() {
        let l = PromptLookup::default();
        // The match may run into the key itself: "1 2 1 2 1 2" continues "1 2 ...".
        let ctx = [1, 2, 1, 2, 1, 2];
        assert_eq!(draft(&l, &ctx, 1), vec![1]);
        assert_eq!(draft(&l, &ctx, 2), vec![1, 2]);
    }

    #[test]
    fn a_loop_drafts_past_the_end_of_the_context_for_as_long_as_asked() {
        let l = PromptLookup::default();
        // A loop of period 3 ("7 8 9") seen twice: the draft goes round it as far as asked,
        // not only to the end of what was seen.
        let ctx = [1, 7, 8, 9, 7, 8, 9, 7, 8];
        assert_eq!(draft(&l, &ctx, 7), vec![9, 7, 8, 9, 7, 8, 9]);
        // A longer period: what followed the match runs into the ending and round again.
        let ctx = [5, 1, 2, 3, 4, 6, 1, 2, 3, 4, 6, 1, 2];
        assert_eq!(draft(&l, &ctx, 9), vec![3, 4, 6, 1, 2, 3, 4, 6, 1]);
        // A match far back with enough after it copies only what followed it.
        let ctx = [1, 2, 3, 4, 5, 6, 0, 1, 2];
        assert_eq!(draft(&l, &ctx, 3), vec![3, 4, 5]);
    }

    #[test]
    fn a_match_counts_as_verbatim_only_when_the_last_24_tokens_occurred_before() {
        let l = PromptLookup::default();
        // A 30-token passage, then its first 25 tokens again: the match runs 25 tokens back.
        let passage: Vec<i32> = (100..130).collect();
        let mut seq = passage.clone();
        seq.extend_from_slice(&passage[..25]);
        let (&last, context) = seq.split_last().unwrap();
        let m = l.find(context, last).unwrap();
        assert_eq!(m.from, 25);
        assert_eq!(m.matched, VERBATIM_TOKENS);
        assert!(m.verbatim());
        assert_eq!(copy(context, last, m, 3), vec![125, 126, 127]);
        // Only its last 10 tokens: the same continuation, but not verbatim.
        let mut seq = passage.clone();
        seq.push(7);
        seq.extend_from_slice(&passage[15..25]);
        let (&last, context) = seq.split_last().unwrap();
        let m = l.find(context, last).unwrap();
        assert_eq!(m.matched, 10);
        assert!(!m.verbatim());
        assert_eq!(copy(context, last, m, 2), vec![125, 126]);
    }
}
