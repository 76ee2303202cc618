//! Prompt lookup: a drafter with no weights of its own.
//!
//! An agent episode copies a lot: table and column names from tool results into SQL, the tested
//! `run_query` SQL into `submit_sql`, restated thinking. So the tokens that followed the latest
//! n-gram the last time it appeared in the context are a good guess at what follows it now.
//! This is llama.cpp's "ngram-simple" idea (`common/ngram-map.cpp`), over the episode's own
//! tokens: the longest n-gram (from `max_ngram` down to `min_ngram`) that ends the context and
//! occurred before, at its most recent earlier occurrence.

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

impl PromptLookup {
    /// Up to `max` tokens proposed to follow `context` and then `last` (the pending token, not
    /// yet in the context: taken apart so that the caller need not copy its context every
    /// step); empty when the sequence's ending n-grams never occurred before.
    pub fn draft<T: PartialEq + Copy>(&self, context: &[T], last: T, max: usize) -> Vec<T> {
        if max == 0 {
            return Vec::new();
        }
        // The sequence `context ++ [last]`, by position.
        let len = context.len() + 1;
        let at = |i: usize| if i < context.len() { context[i] } else { last };
        for n in (self.min_ngram.max(1)..=self.max_ngram).rev() {
            if n >= len {
                continue;
            }
            // The most recent earlier occurrence that has at least one token after it.
            let matches = |i: usize| (0..n).all(|j| at(i + j) == at(len - n + j));
            if let Some(start) = (0..len - n).rev().find(|&i| matches(i)) {
                let from = start + n;
                let to = (from + max).min(len);
                return (from..to).map(at).collect();
            }
        }
        Vec::new()
    }
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
        assert_eq!(draft(&l, &ctx, 4), vec![1, 2]);
    }
}
