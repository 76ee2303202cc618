//! The per-token measures: the reference's distribution kept as its top `k` log-probabilities,
//! and a model's distribution compared with it.
//!
//! KL divergence (reference ‖ model) is taken over the reference's top `k` tokens plus one
//! bucket for the rest of the vocabulary (the reference's remaining mass against the model's
//! mass on the same tokens). Merging tokens into a bucket can only lower a KL divergence, so the
//! figure is a lower bound of the full-vocabulary one, tight when the reference's top `k` hold
//! nearly all its mass (as they do for a trained model's peaked distributions; `--kld-top-k`
//! raises `k`, and a `k` as large as the vocabulary gives the exact figure).

use super::segment::Place;

/// The reference's distribution at one generated token.
#[derive(Debug, Clone, PartialEq)]
pub struct RefToken {
    /// The token the reference generated there.
    pub token: u32,
    /// Which turn of the episode (0-based) it is in.
    pub turn: u32,
    /// Where in its turn it is.
    pub place: Place,
    /// The reference's top tokens and their log-probabilities, most probable first.
    pub top: Vec<(u32, f32)>,
}

impl RefToken {
    /// The reference's most probable token.
    pub fn argmax(&self) -> u32 {
        self.top.first().map_or(self.token, |t| t.0)
    }

    /// The probability the reference gives the token it generated: from its top entries, or,
    /// when the token is not among them, the smaller of the rest of the mass and the least
    /// probable top entry (an upper bound: it is at most either).
    pub fn p_own(&self) -> f64 {
        if let Some(&(_, lp)) = self.top.iter().find(|t| t.0 == self.token) {
            return (lp as f64).exp();
        }
        let top: f64 = self.top.iter().map(|t| (t.1 as f64).exp()).sum();
        let least = self.top.last().map_or(1.0, |t| (t.1 as f64).exp());
        (1.0 - top).max(0.0).min(least)
    }
}

/// The log of the sum of the exponentials of `logits`, computed stably.
pub fn log_sum_exp(logits: &[f32]) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    if !max.is_finite() {
        return max;
    }
    max + logits.iter().map(|&l| (l as f64 - max).exp()).sum::<f64>().ln()
}

/// The top `k` tokens of `logits` with their log-probabilities, most probable first (ties by
/// lower id).
pub fn top_k(logits: &[f32], k: usize) -> Vec<(u32, f32)> {
    let lse = log_sum_exp(logits);
    let k = k.clamp(1, logits.len().max(1));
    let mut ids: Vec<u32> = (0..logits.len() as u32).collect();
    let order = |a: &u32, b: &u32| logits[*b as usize].total_cmp(&logits[*a as usize]).then(a.cmp(b));
    if k < ids.len() {
        ids.select_nth_unstable_by(k - 1, order);
        ids.truncate(k);
    }
    ids.sort_unstable_by(order);
    ids.into_iter().map(|i| (i, (logits[i as usize] as f64 - lse) as f32)).collect()
}

/// How a model's distribution at one token compares with the reference's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compared {
    /// KL divergence (reference ‖ model), nats.
    pub kld: f64,
    /// Whether the model's most probable token is the reference's.
    pub top1: bool,
    /// The probability the model gives the token the reference generated.
    pub p_token: f64,
    /// The probability the reference gives its own token ([`RefToken::p_own`]).
    pub p_ref: f64,
    /// `ln p_ref − ln p_token`: its mean over tokens is the log of the perplexity ratio
    /// (model against reference) on the reference's tokens. Probabilities are floored at 1e-30.
    pub log_ratio: f64,
}

/// Compares `logits` (a model's, over the whole vocabulary) with the reference's `r`.
pub fn compare(r: &RefToken, logits: &[f32]) -> Compared {
    let lse = log_sum_exp(logits);
    // Rounded to f32 as the reference's were ([`top_k`]), so that a model against itself is
    // exactly 0.
    let lq = |id: u32| logits.get(id as usize).map_or(f64::NEG_INFINITY, |&l| ((l as f64 - lse) as f32) as f64);
    let mut kld = 0.0;
    let (mut p_top, mut q_top) = (0.0f64, 0.0f64);
    for &(id, lp) in &r.top {
        let (lp, lq) = (lp as f64, lq(id));
        let p = lp.exp();
        p_top += p;
        q_top += lq.exp();
        if p > 0.0 {
            kld += p * (lp - lq);
        }
    }
    let p_rest = 1.0 - p_top;
    if p_rest > 1e-9 {
        let q_rest = (1.0 - q_top).max(1e-30);
        kld += p_rest * (p_rest.ln() - q_rest.ln());
    }
    let argmax = logits.iter().enumerate().fold(
        (0usize, f32::NEG_INFINITY),
        |best, (i, &l)| {
            if l > best.1 {
                (i, l)
            } else {
                best
            }
        },
    );
    let (p_token, p_ref) = (lq(r.token).exp(), r.p_own());
    let log_ratio = p_ref.max(1e-30).ln() - p_token.max(1e-30).ln();
    Compared { kld: kld.max(0.0), top1: argmax.0 as u32 == r.argmax(), p_token, p_ref, log_ratio }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(logits: &[f32], k: usize) -> RefToken {
        RefToken { token: 1, turn: 0, place: Place::Thinking, top: top_k(logits, k) }
    }

    /// KL over the whole vocabulary, written out.
    fn exact(p: &[f32], q: &[f32]) -> f64 {
        let (lp, lq) = (log_sum_exp(p), log_sum_exp(q));
        p.iter().zip(q).map(|(&a, &b)| ((a as f64 - lp).exp()) * ((a as f64 - lp) - (b as f64 - lq))).sum()
    }

    #[test]
    fn the_full_vocabulary_gives_the_exact_divergence_and_a_cut_gives_a_lower_bound() {
        let p = [2.0, 1.0, 0.5, -1.0, -3.0, 0.0];
        let q = [1.5, 1.2, 0.0, -0.5, -2.0, 0.3];
        let full = compare(&reference(&p, 6), &q);
        assert!((full.kld - exact(&p, &q)).abs() < 1e-6, "{} vs {}", full.kld, exact(&p, &q));
        let cut = compare(&reference(&p, 2), &q);
        assert!(cut.kld <= full.kld + 1e-9 && cut.kld > 0.0, "{} vs {}", cut.kld, full.kld);
        assert!(full.top1);
        assert!((full.p_token - (1.2f64 - log_sum_exp(&q)).exp()).abs() < 1e-6);
        assert!((full.p_ref - (1.0f64 - log_sum_exp(&p)).exp()).abs() < 1e-6);
        assert!((full.log_ratio - (full.p_ref.ln() - full.p_token.ln())).abs() < 1e-9);
        // A token outside the reference's top entries: bounded by the rest and the least entry.
        let mut outside = reference(&p, 2);
        outside.token = 5;
        let rest = 1.0 - outside.top.iter().map(|t| (t.1 as f64).exp()).sum::<f64>();
        let least = (outside.top[1].1 as f64).exp();
        assert!((outside.p_own() - rest.min(least)).abs() < 1e-6, "{} vs {rest}, {least}", outside.p_own());
    }

    #[test]
    fn a_model_against_itself_is_zero_and_a_new_argmax_is_seen() {
        let p = [0.1, 3.0, -2.0, 0.7];
        let same = compare(&reference(&p, 2), &p);
        assert_eq!((same.kld, same.top1), (0.0, true), "{same:?}");
        assert_eq!((same.p_token - same.p_ref, same.log_ratio), (0.0, 0.0), "{same:?}");
        let other = compare(&reference(&p, 2), &[4.0, 3.0, -2.0, 0.7]);
        assert!(!other.top1 && other.kld > 0.1, "{other:?}");
    }

    #[test]
    fn top_k_is_ordered_and_normalised() {
        let t = top_k(&[0.0, 5.0, 5.0, -1.0], 3);
        assert_eq!(t.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 2, 0]);
        let all: f64 = top_k(&[0.0, 5.0, 5.0, -1.0], 4).iter().map(|x| (x.1 as f64).exp()).sum();
        assert!((all - 1.0).abs() < 1e-6);
    }
}
