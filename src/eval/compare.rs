//! Any two files compared with each other, not only with the first or the reference: the paired
//! EX difference ([`super::report::pair`], Newcombe's interval) and the difference of their mean
//! KLD on the questions both were measured on, with a bootstrap interval over those questions.
//! `eval compare DIR A B` asks for one pair; the reports pair by default each file quantised
//! with an importance matrix with the file of the same type without one.

use serde::{Deserialize, Serialize};

use super::report::{self, Paired, Summary};
use super::results::Models;
use super::Record;
use crate::divergence::report::{fig, interval, DivergenceSummary, Rng, Stat};

/// Resamples of the common questions for the interval of the KLD difference.
const RESAMPLES: usize = 1000;

/// The mean KLD of `b` against that of `a`, on the questions both were measured on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KldDifference {
    /// Questions both were measured on.
    pub questions: usize,
    /// `a`'s mean KLD per token on them.
    pub a: f64,
    /// `b`'s.
    pub b: f64,
    /// `b − a`, with its 95% bootstrap interval over the questions.
    pub diff: Stat,
    /// Why the interval is not shown, when the sample does not support one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_few: Option<String>,
}

/// File `b` against file `a`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison {
    /// The file compared against.
    pub a: String,
    /// The file compared.
    pub b: String,
    /// Why the pair is shown (`same type q2_K, without and with an importance matrix`).
    pub why: String,
    /// The paired EX difference, when both played their episodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ex: Option<Paired>,
    /// The KLD difference, when both were measured against a reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kld: Option<KldDifference>,
}

/// `b` against `a` from the folder's records and divergence summaries; `why` says why the pair
/// is shown.
pub fn compare(
    records: &[Record],
    summaries: &[Summary],
    divergence: &[DivergenceSummary],
    a: &str,
    b: &str,
    why: &str,
) -> Comparison {
    let played = |m: &str| summaries.iter().any(|s| s.model == m);
    let ex = (played(a) && played(b)).then(|| report::pair(records, a, b));
    let measured = |m: &str| divergence.iter().find(|d| d.model == m);
    let kld = measured(a).zip(measured(b)).map(|(x, y)| kld_difference(x, y));
    Comparison { a: a.to_string(), b: b.to_string(), why: why.to_string(), ex, kld }
}

/// The mean KLD of `y` minus that of `x` on the questions both were measured on (token-weighted,
/// as the mean KLD is), with a bootstrap interval over those questions.
pub fn kld_difference(x: &DivergenceSummary, y: &DivergenceSummary) -> KldDifference {
    // Per common question: (tokens, KLD sum) of each.
    let common: Vec<((f64, f64), (f64, f64))> = x
        .by_question
        .iter()
        .filter_map(|qx| {
            let qy = y.by_question.iter().find(|q| q.id == qx.id)?;
            let sum =
                |q: &crate::divergence::report::QuestionDivergence| (q.tokens as f64, q.mean_kld * q.tokens as f64);
            Some((sum(qx), sum(qy)))
        })
        .collect();
    let means = |idx: &mut dyn Iterator<Item = usize>| {
        let (mut ta, mut ka, mut tb, mut kb) = (0.0, 0.0, 0.0, 0.0);
        for i in idx {
            let ((t1, k1), (t2, k2)) = common[i];
            (ta, ka, tb, kb) = (ta + t1, ka + k1, tb + t2, kb + k2);
        }
        (ka / f64::max(ta, 1.0), kb / f64::max(tb, 1.0))
    };
    let n = common.len();
    let (a, b) = means(&mut (0..n));
    let mut rng = Rng(0x0C04_DA2E);
    let diffs: Vec<f64> = if n == 0 {
        Vec::new()
    } else {
        (0..RESAMPLES)
            .map(|_| {
                let (ra, rb) = means(&mut (0..n).map(|_| rng.below(n)));
                rb - ra
            })
            .collect()
    };
    KldDifference {
        questions: n,
        a,
        b,
        diff: Stat { value: b - a, ci: interval(diffs) },
        too_few: report::too_few_questions(n),
    }
}

/// The pairs the reports show by default: each file quantised with an importance matrix against
/// each file of the same main type without one (`q2_k` and `q2_k` with a matrix).
pub fn default_pairs(
    records: &[Record],
    summaries: &[Summary],
    runs: &Models,
    divergence: &[DivergenceSummary],
) -> Vec<Comparison> {
    let known = |m: &str| summaries.iter().any(|s| s.model == m) || divergence.iter().any(|d| d.model == m);
    let mut out = Vec::new();
    for (a, ea) in runs.iter().filter(|(m, e)| e.imatrix.is_none() && known(m)) {
        for (b, eb) in runs.iter().filter(|(m, e)| e.imatrix.is_some() && known(m)) {
            if let (Some(ta), Some(tb)) = (&ea.weights, &eb.weights) {
                if ta == tb && a != b {
                    let why = format!("same type {ta}, without and with an importance matrix");
                    out.push(compare(records, summaries, divergence, a, b, &why));
                }
            }
        }
    }
    out
}

impl Comparison {
    /// The EX cell: `+2.2 points [-3.1 to +7.4]`, `too few to estimate`, or `–`.
    pub fn ex_cell(&self) -> String {
        match &self.ex {
            None => "–".into(),
            Some(p) if p.too_few.is_some() => format!("{} points (too few to estimate)", report::signed(p.diff, 1)),
            Some(p) => format!(
                "{} points [{}] on {} questions",
                report::signed(p.diff, 1),
                report::range(p.diff_ci.0, p.diff_ci.1, &|x| report::signed(x, 1)),
                p.n
            ),
        }
    }

    /// The KLD cell: `1.90e-3 → 2.06e-3: +1.60e-4 [-2.1e-5 to +3.4e-4]`, or `–`.
    pub fn kld_cell(&self) -> String {
        let Some(k) = &self.kld else { return "–".into() };
        let sign = |x: f64| if x > 0.0 { format!("+{}", fig(x)) } else { fig(x) };
        let interval = match &k.too_few {
            Some(_) => "(too few to estimate)".to_string(),
            None => format!("[{}]", report::range(k.diff.ci.0, k.diff.ci.1, &sign)),
        };
        format!("{} → {}: {} {interval} on {} questions", fig(k.a), fig(k.b), sign(k.diff.value), k.questions)
    }
}

/// The pairwise table of `summary.md` (empty without pairs).
pub fn markdown(pairs: &[Comparison]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n## Files compared with each other\n\nb against a, on the questions both answered (EX: paired difference, Newcombe's 95% interval) and both were measured on (mean KLD: 95% bootstrap interval over questions).\n\n| a | b | why | EX b − a | mean KLD a → b: b − a |\n|---|---|---|---|---|\n",
    );
    for p in pairs {
        s.push_str(&format!("| {} | {} | {} | {} | {} |\n", p.a, p.b, p.why, p.ex_cell(), p.kld_cell()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divergence::report::QuestionDivergence;

    fn summary(model: &str, per_question: &[f64]) -> DivergenceSummary {
        let by_question = per_question
            .iter()
            .enumerate()
            .map(|(i, k)| QuestionDivergence { id: format!("q{i}"), tokens: 100, mean_kld: *k, top1: 90.0 })
            .collect();
        let json = serde_json::json!({
            "model": model, "reference": "ref", "questions": per_question.len(), "skipped": [], "tokens": 100 * per_question.len(),
            "mean_kld": {"value": 0.0, "ci": [0.0, 0.0]}, "median_kld": {"value": 0.0, "ci": [0.0, 0.0]},
            "p99_kld": {"value": 0.0, "ci": [0.0, 0.0]}, "p999_kld": {"value": 0.0, "ci": [0.0, 0.0]},
            "top1": {"value": 0.0, "ci": [0.0, 0.0]}, "p_token": 0.0, "by_place": [], "first_divergence": {},
            "needed": {"kld": null, "top1": null, "ex": null}, "histogram": [], "seconds_per_question": 0.0
        });
        let mut s: DivergenceSummary = serde_json::from_value(json).unwrap();
        s.by_question = by_question;
        s
    }

    #[test]
    fn the_kld_difference_is_paired_over_common_questions() {
        let a: Vec<f64> = (0..20).map(|i| 0.001 * (1 + i % 4) as f64).collect();
        let b: Vec<f64> = a.iter().map(|k| k + 0.0005).collect();
        let d = kld_difference(&summary("a", &a), &summary("b", &b[..18]));
        assert_eq!(d.questions, 18);
        assert!((d.diff.value - 0.0005).abs() < 1e-12, "{d:?}");
        // Every question moved by the same amount: the paired interval is tight around it.
        assert!(d.diff.ci.0 > 0.0004 && d.diff.ci.1 < 0.0006, "{d:?}");
        assert!(d.too_few.is_none());
        let few = kld_difference(&summary("a", &a[..3]), &summary("b", &b[..3]));
        assert!(few.too_few.is_some());
    }
}
