//! Divergence per model against the reference: the figures, their bootstrap intervals over
//! questions, and how many questions each measure needs to tell a model from the reference.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::segment::Place;
use super::DivergenceRecord;

/// A figure and its 95% bootstrap interval over questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// The figure on all questions.
    pub value: f64,
    /// 2.5th and 97.5th percentiles of the figure over resampled question sets.
    pub ci: (f64, f64),
}

/// One place's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaceSummary {
    /// The place.
    pub place: Place,
    /// Tokens there.
    pub tokens: usize,
    /// Mean KL divergence there, nats.
    pub mean_kld: f64,
    /// Top-1 agreement there, percent.
    pub top1: f64,
}

/// Questions a measure needs before its 95% interval excludes "no difference from the
/// reference" ([`questions_needed`], from the bootstrap intervals here; for EX, from the paired
/// difference's interval). `None` where no difference was seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Needed {
    /// Mean KL divergence per question.
    pub kld: Option<f64>,
    /// Top-1 disagreement per question.
    pub top1: Option<f64>,
    /// Execution accuracy, paired against the reference.
    pub ex: Option<f64>,
}

/// Edges of the per-token KLD histogram: 10^-6 to 10^2 in half decades; the first bin also
/// holds everything below 10^-6 (0 included), the last everything above 10^2.
pub fn histogram_edges() -> Vec<f64> {
    (0..=16).map(|i| 10f64.powf(-6.0 + i as f64 / 2.0)).collect()
}

/// One model against the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DivergenceSummary {
    /// The model.
    pub model: String,
    /// The reference.
    pub reference: String,
    /// Questions measured.
    pub questions: usize,
    /// Questions skipped, with why (one line per distinct reason, with its count).
    pub skipped: Vec<(String, usize)>,
    /// Tokens measured.
    pub tokens: usize,
    /// Mean KL divergence (reference ‖ model) per token, nats.
    pub mean_kld: Stat,
    /// Median per-token KL divergence.
    pub median_kld: Stat,
    /// 99th percentile.
    pub p99_kld: Stat,
    /// 99.9th percentile.
    pub p999_kld: Stat,
    /// Tokens where the model's most probable token is the reference's, percent.
    pub top1: Stat,
    /// Mean probability the model gives the reference's token.
    pub p_token: f64,
    /// Figures per place.
    pub by_place: Vec<PlaceSummary>,
    /// Turns by where the model's most probable token first parted from the reference's
    /// (`same`: never).
    pub first_divergence: BTreeMap<String, usize>,
    /// Questions needed to tell the model from the reference, per measure.
    pub needed: Needed,
    /// Per-token KLD counts in the bins of [`histogram_edges`] (16 bins).
    pub histogram: Vec<usize>,
    /// Mean seconds of the teacher-forced pass per question.
    pub seconds_per_question: f64,
}

/// A small deterministic generator for resampling (SplitMix64): the intervals are the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Resamples of the question set for the intervals of means and of quantiles.
const RESAMPLES_MEAN: usize = 1000;
const RESAMPLES_QUANTILE: usize = 200;

fn quantile(sorted_or_not: &mut [f32], q: f64) -> f64 {
    if sorted_or_not.is_empty() {
        return 0.0;
    }
    let i = ((sorted_or_not.len() - 1) as f64 * q).round() as usize;
    let (_, v, _) = sorted_or_not.select_nth_unstable_by(i, f32::total_cmp);
    *v as f64
}

fn interval(mut xs: Vec<f64>) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    xs.sort_unstable_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    (at(0.025), at(0.975))
}

/// Questions needed for a 95% interval of half-width `half` (seen at `n` questions) to exclude
/// a difference of `diff`: intervals narrow as 1/√n, so `n · (half / diff)²`; `None` where no
/// difference was seen.
pub fn questions_needed(n: usize, half: f64, diff: f64) -> Option<f64> {
    (n > 1 && diff.abs() > 1e-12).then(|| (n as f64 * (half / diff).powi(2)).max(1.0))
}

/// The summary of every model in `records` against `reference`, models in order of first
/// appearance. `ex_needed(model)` gives the execution-accuracy figure from the paired
/// comparison the eval report already makes.
pub fn summarise(
    records: &[DivergenceRecord],
    reference: &str,
    ex_needed: &dyn Fn(&str) -> Option<f64>,
) -> Vec<DivergenceSummary> {
    let mut models: Vec<&str> = Vec::new();
    for r in records {
        if !models.contains(&r.model.as_str()) {
            models.push(&r.model);
        }
    }
    models.into_iter().map(|m| summarise_model(m, records, reference, ex_needed(m))).collect()
}

/// The summary of `model`'s records against `reference` (`ex`: the questions execution accuracy
/// needs to tell them apart, when known).
fn summarise_model(model: &str, records: &[DivergenceRecord], reference: &str, ex: Option<f64>) -> DivergenceSummary {
    let mine: Vec<&DivergenceRecord> = records.iter().filter(|r| r.model == model).collect();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for r in &mine {
        if let Some(why) = &r.skipped {
            *skipped.entry(why.clone()).or_default() += 1;
        }
    }
    let measured: Vec<&DivergenceRecord> =
        mine.iter().copied().filter(|r| r.skipped.is_none() && !r.kld.is_empty()).collect();
    let totals: Vec<super::PlaceSums> = measured.iter().map(|r| r.total()).collect();
    let tokens: usize = totals.iter().map(|t| t.tokens).sum();
    let mean_of = |idx: &[usize], f: &dyn Fn(&super::PlaceSums) -> f64| {
        let n: usize = idx.iter().map(|&i| totals[i].tokens).sum();
        idx.iter().map(|&i| f(&totals[i])).sum::<f64>() / n.max(1) as f64
    };
    let all: Vec<usize> = (0..measured.len()).collect();
    let kld_of = |s: &super::PlaceSums| s.kld;
    let top1_of = |s: &super::PlaceSums| 100.0 * s.top1 as f64;
    let mut rng = Rng(0x5EED);
    let mut resample = || -> Vec<usize> { (0..measured.len()).map(|_| rng.below(measured.len().max(1))).collect() };
    let (mut means, mut top1s) = (Vec::new(), Vec::new());
    let mut quantiles: [Vec<f64>; 3] = Default::default();
    if !measured.is_empty() {
        for b in 0..RESAMPLES_MEAN {
            let idx = resample();
            means.push(mean_of(&idx, &kld_of));
            top1s.push(mean_of(&idx, &top1_of));
            if b < RESAMPLES_QUANTILE {
                let mut pooled: Vec<f32> = idx.iter().flat_map(|&i| measured[i].kld.iter().copied()).collect();
                for (k, q) in [0.5, 0.99, 0.999].into_iter().enumerate() {
                    quantiles[k].push(quantile(&mut pooled, q));
                }
            }
        }
    }
    let mut pooled: Vec<f32> = measured.iter().flat_map(|r| r.kld.iter().copied()).collect();
    let [q50, q99, q999] = quantiles.map(interval);
    let stat = |value: f64, ci: (f64, f64)| Stat { value, ci };
    let edges = histogram_edges();
    let mut histogram = vec![0usize; edges.len() - 1];
    for &k in &pooled {
        let bin = edges[1..].iter().position(|&e| (k as f64) < e).unwrap_or(histogram.len() - 1);
        histogram[bin] += 1;
    }
    let by_place = Place::ALL
        .iter()
        .filter_map(|p| {
            let sums: Vec<&super::PlaceSums> = measured.iter().filter_map(|r| r.by_place.get(p)).collect();
            let n: usize = sums.iter().map(|s| s.tokens).sum();
            (n > 0).then(|| PlaceSummary {
                place: *p,
                tokens: n,
                mean_kld: sums.iter().map(|s| s.kld).sum::<f64>() / n as f64,
                top1: 100.0 * sums.iter().map(|s| s.top1).sum::<usize>() as f64 / n as f64,
            })
        })
        .collect();
    let mut first_divergence: BTreeMap<String, usize> = BTreeMap::new();
    for r in &measured {
        for f in &r.first_divergence {
            *first_divergence.entry(f.map_or("same", Place::as_str).to_string()).or_default() += 1;
        }
    }
    let mean_kld = stat(mean_of(&all, &kld_of), interval(means));
    let top1 = stat(mean_of(&all, &top1_of), interval(top1s));
    let half = |s: &Stat| (s.ci.1 - s.ci.0) / 2.0;
    let needed = Needed {
        kld: questions_needed(measured.len(), half(&mean_kld), mean_kld.value),
        top1: questions_needed(measured.len(), half(&top1), 100.0 - top1.value),
        ex,
    };
    DivergenceSummary {
        model: model.to_string(),
        reference: reference.to_string(),
        questions: measured.len(),
        skipped: skipped.into_iter().collect(),
        tokens,
        mean_kld,
        median_kld: stat(quantile(&mut pooled, 0.5), q50),
        p99_kld: stat(quantile(&mut pooled, 0.99), q99),
        p999_kld: stat(quantile(&mut pooled, 0.999), q999),
        top1,
        p_token: mean_of(&all, &|s| s.p_token),
        by_place,
        first_divergence,
        needed,
        histogram,
        seconds_per_question: measured.iter().map(|r| r.seconds).sum::<f64>() / measured.len().max(1) as f64,
    }
}

/// A small figure readably: four decimals, or three significant digits below 0.01 (a random
/// model's KLD is 1e-4), 0 as `0`.
fn fig(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 0.01 {
        format!("{x:.4}")
    } else {
        format!("{x:.2e}")
    }
}

fn fmt_needed(n: Option<f64>) -> String {
    n.map_or_else(|| "–".into(), |n| format!("{:.0}", n.ceil()))
}

/// The divergence section of `summary.md`.
pub fn markdown(summaries: &[DivergenceSummary]) -> String {
    let Some(first) = summaries.first() else { return String::new() };
    let mut s = format!(
        "\n## Divergence from the reference {}\n\nPer generated token of the reference's own episodes, teacher-forced; KL divergence (reference ‖ model) in nats; [95% bootstrap interval over questions].\n\n\
         | model | questions | tokens | mean KLD | median | p99 | p99.9 | top-1 % | p(ref token) | s/question |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        first.reference
    );
    let st = |x: &Stat| format!("{} [{}–{}]", fig(x.value), fig(x.ci.0), fig(x.ci.1));
    for m in summaries {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} [{:.2}–{:.2}] | {} | {:.1} |\n",
            m.model,
            m.questions,
            m.tokens,
            st(&m.mean_kld),
            st(&m.median_kld),
            st(&m.p99_kld),
            st(&m.p999_kld),
            m.top1.value,
            m.top1.ci.0,
            m.top1.ci.1,
            fig(m.p_token),
            m.seconds_per_question
        ));
    }
    s.push_str("\n| model | place | tokens | mean KLD | top-1 % |\n|---|---|--:|--:|--:|\n");
    for m in summaries {
        for p in &m.by_place {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {:.2} |\n",
                m.model,
                p.place.as_str(),
                p.tokens,
                fig(p.mean_kld),
                p.top1
            ));
        }
    }
    s.push_str("\nWhere the model's most probable token first parts from the reference's, per turn (`tool call` or `sql`: its greedy call would differ; `thinking`: it parted before the call):\n\n| model | turns | same | thinking | tool call | sql | answer |\n|---|--:|--:|--:|--:|--:|--:|\n");
    for m in summaries {
        let c = |k: &str| m.first_divergence.get(k).copied().unwrap_or(0);
        let turns: usize = m.first_divergence.values().sum();
        s.push_str(&format!(
            "| {} | {turns} | {} | {} | {} | {} | {} |\n",
            m.model,
            c("same"),
            c("thinking"),
            c("tool call"),
            c("sql"),
            c("answer")
        ));
    }
    s.push_str("\nQuestions each measure needs to tell the model from the reference (its 95% interval excluding no difference; from the intervals above, which narrow as 1/√n):\n\n| model | mean KLD | top-1 | EX (paired) |\n|---|--:|--:|--:|\n");
    for m in summaries {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            m.model,
            fmt_needed(m.needed.kld),
            fmt_needed(m.needed.top1),
            fmt_needed(m.needed.ex)
        ));
    }
    for m in summaries {
        for (why, n) in &m.skipped {
            s.push_str(&format!("\n{}: {n} question(s) not measured: {why}\n", m.model));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divergence::PlaceSums;

    fn record(model: &str, id: &str, klds: &[f32], top1: usize) -> DivergenceRecord {
        let mut r = DivergenceRecord::skipped(model, id, String::new());
        r.skipped = None;
        r.kld = klds.to_vec();
        r.by_place.insert(
            Place::Sql,
            PlaceSums {
                tokens: klds.len(),
                kld: klds.iter().map(|&k| k as f64).sum(),
                top1,
                p_token: 0.5 * klds.len() as f64,
            },
        );
        r.first_divergence = vec![None, Some(Place::Sql)];
        r
    }

    #[test]
    fn figures_intervals_and_needed_questions() {
        let mut records = Vec::new();
        for q in 0..20 {
            records.push(record("ref", &q.to_string(), &[0.0; 10], 10));
            let k = 0.01 * (1 + q % 3) as f32;
            records.push(record("q4", &q.to_string(), &[k; 10], 9));
        }
        records.push(DivergenceRecord::skipped("q4", "x", "cut".into()));
        let s = summarise(&records, "ref", &|m| (m == "q4").then_some(400.0));
        assert_eq!(s.len(), 2);
        let (r, q) = (&s[0], &s[1]);
        assert_eq!((r.mean_kld.value, r.top1.value, r.needed.kld), (0.0, 100.0, None));
        assert_eq!(r.histogram[0], 200, "zeros fall in the first bin");
        assert_eq!(q.questions, 20);
        assert_eq!(q.skipped, vec![("cut".to_string(), 1)]);
        assert!((q.mean_kld.value - 0.0195).abs() < 1e-6, "{:?}", q.mean_kld);
        assert!(q.mean_kld.ci.0 < q.mean_kld.value && q.mean_kld.value < q.mean_kld.ci.1, "{:?}", q.mean_kld);
        assert!((q.top1.value - 90.0).abs() < 1e-9);
        let n = q.needed.kld.unwrap();
        assert!((1.0..10.0).contains(&n), "a steady difference needs few questions: {n}");
        assert_eq!(questions_needed(100, 2.0, 1.0), Some(400.0));
        assert_eq!(questions_needed(100, 2.0, 0.0), None);
        assert_eq!(q.needed.ex, Some(400.0));
        assert_eq!(q.first_divergence.get("same"), Some(&20));
        assert_eq!(q.first_divergence.get("sql"), Some(&20));
        assert_eq!(q.histogram.iter().sum::<usize>(), 200);
        let md = markdown(&s);
        assert!(md.contains("| q4 | 20 | 200 |") && md.contains("not measured: cut"), "{md}");
    }
}
