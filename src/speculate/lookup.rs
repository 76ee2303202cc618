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
    /// Up to `max` tokens proposed to follow `context`; empty when its ending n-grams never
    /// occurred before.
    pub fn draft<T: PartialEq + Copy>(&self, context: &[T], max: usize) -> Vec<T> {
        if max == 0 {
            return Vec::new();
        }
        let len = context.len();
        for n in (self.min_ngram.max(1)..=self.max_ngram).rev() {
            if n >= len {
                continue;
            }
            let key = &context[len - n..];
            // The most recent earlier occurrence that has at least one token after it.
            if let Some(start) = (0..len - n).rev().find(|&i| &context[i..i + n] == key) {
                let from = start + n;
                let to = (from + max).min(len);
                return context[from..to].to_vec();
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposes_what_followed_the_latest_earlier_occurrence() {
        let l = PromptLookup::default();
        // "a b c d e ... a b" → "c d e"
        let ctx = [1, 2, 3, 4, 5, 9, 9, 1, 2];
        assert_eq!(l.draft(&ctx, 3), vec![3, 4, 5]);
        assert_eq!(l.draft(&ctx, 1), vec![3]);
    }

    #[test]
    fn prefers_the_longest_ngram_then_the_most_recent_occurrence() {
        let l = PromptLookup { min_ngram: 1, max_ngram: 3 };
        // "7 2" occurs twice (followed by 8, then by 6); "1 7 2" only once, followed by 8.
        let ctx = [1, 7, 2, 8, 0, 7, 2, 6, 0, 1, 7, 2];
        assert_eq!(l.draft(&ctx, 1), vec![8]);
        // Without the 3-gram, the most recent "7 2" wins.
        let l2 = PromptLookup { min_ngram: 1, max_ngram: 2 };
        assert_eq!(l2.draft(&ctx, 1), vec![6]);
    }

    #[test]
    fn nothing_when_the_ending_never_occurred_or_no_room() {
        let l = PromptLookup::default();
        assert!(l.draft(&[1, 2, 3, 4, 5], 4).is_empty());
        assert!(l.draft(&[1, 2, 1, 2], 0).is_empty());
        assert!(l.draft::<i32>(&[], 4).is_empty());
        assert!(l.draft(&[5], 4).is_empty());
    }

    #[test]
    fn a_periodic_context_drafts_into_its_own_ending() {
        let l = PromptLookup::default();
        // The match may run into the key itself: "1 2 1 2 1 2" continues "1 2 ...".
        let ctx = [1, 2, 1, 2, 1, 2];
        assert_eq!(l.draft(&ctx, 4), vec![1, 2]);
    }
}
