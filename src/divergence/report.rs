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
    /// The largest per-token KL divergence.
    #[serde(default)]
    pub max_kld: f64,
    /// Mean change in the probability of the reference's token, model minus reference
    /// (a fraction: −0.01 is one point lower), as llama-perplexity's "Mean Δp".
    #[serde(default)]
    pub mean_dp: Stat,
    /// Root mean square of that change ("RMS Δp").
    #[serde(default)]
    pub rms_dp: Stat,
    /// The model's perplexity over the reference's on the reference's tokens
    /// (`exp(mean(ln p_ref − ln p_model))`; 1 is no difference).
    #[serde(default)]
    pub ppl_ratio: Stat,
    /// Per question: its tokens, mean KLD and top-1 agreement, in question order.
    #[serde(default)]
    pub by_question: Vec<QuestionDivergence>,
    /// llama-perplexity's `--kl-divergence` statistics on the same tokens (absent for records
    /// written before the per-token figures were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<PerplexityTable>,
    /// Measures whose interval the sample does not support, and why (`"p999_kld"` →
    /// `too few to estimate (…)`): the reports print that instead of an interval.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub too_few: BTreeMap<String, String>,
}

/// The figures `llama-perplexity --kl-divergence` prints, from the same per-token values and with
/// its definitions: its percentiles interpolate between the sorted values around `q · (n − 1)`,
/// `Cor(ln PPL)` is the correlation over tokens of the two models' `−ln p` of the reference's
/// token, and Δp is in fractions (the reports print points).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerplexityTable {
    /// Tokens.
    pub tokens: usize,
    /// The model's perplexity on the reference's tokens: `PPL(Q)`.
    pub ppl: f64,
    /// The reference's: `PPL(base)`.
    pub ppl_base: f64,
    /// `ln(PPL(Q) / PPL(base))`.
    pub ln_ratio: f64,
    /// `Cor(ln(PPL(Q)), ln(PPL(base)))`, a fraction.
    pub cor: f64,
    /// Mean KLD.
    pub mean_kld: f64,
    /// KLD: maximum, then the 99.9, 99, 95 and 90th percentiles, the median, the 10, 5, 1 and
    /// 0.1th, and the minimum ([`KLD_PERCENTILES`]).
    pub kld: Vec<f64>,
    /// Mean Δp.
    pub mean_dp: f64,
    /// RMS Δp.
    pub rms_dp: f64,
    /// Δp: maximum, the 99.9, 99, 95, 90, 75th percentiles, the median, the 25, 10, 5, 1 and
    /// 0.1th, and the minimum ([`DP_PERCENTILES`]).
    pub dp: Vec<f64>,
    /// Share of tokens whose most probable token is the reference's, a fraction: "same top p".
    pub same_top: f64,
}

/// The rows of [`PerplexityTable::kld`], as llama-perplexity names them, with their fraction.
pub const KLD_PERCENTILES: [(&str, f64); 11] = [
    ("Maximum", 1.0),
    ("99.9%", 0.999),
    ("99.0%", 0.99),
    ("95.0%", 0.95),
    ("90.0%", 0.90),
    ("Median", 0.5),
    ("10.0%", 0.10),
    ("5.0%", 0.05),
    ("1.0%", 0.01),
    ("0.1%", 0.001),
    ("Minimum", 0.0),
];

/// The rows of [`PerplexityTable::dp`].
pub const DP_PERCENTILES: [(&str, f64); 13] = [
    ("Maximum", 1.0),
    ("99.9%", 0.999),
    ("99.0%", 0.99),
    ("95.0%", 0.95),
    ("90.0%", 0.90),
    ("75.0%", 0.75),
    ("Median", 0.5),
    ("25.0%", 0.25),
    ("10.0%", 0.10),
    ("5.0%", 0.05),
    ("1.0%", 0.01),
    ("0.1%", 0.001),
    ("Minimum", 0.0),
];

/// llama-perplexity's percentile of sorted `values`: interpolated between the values around
/// `q · (n − 1)`.
pub fn interpolated(sorted: &[f64], q: f64) -> f64 {
    let Some(&last) = sorted.last() else { return 0.0 };
    if q <= 0.0 {
        return sorted[0];
    }
    if q >= 1.0 {
        return last;
    }
    let at = q * (sorted.len() - 1) as f64;
    let i = at as usize;
    let f = at - i as f64;
    (1.0 - f) * sorted[i] + f * sorted[(i + 1).min(sorted.len() - 1)]
}

impl PerplexityTable {
    /// The table of per-token `kld`, `dp`, `nll` (the model's `−ln p` of the reference's token),
    /// `nll_base` (the reference's) and `same` (top-1 agreement); `None` without tokens.
    pub fn of(kld: &[f64], dp: &[f64], nll: &[f64], nll_base: &[f64], same: usize) -> Option<PerplexityTable> {
        let n = kld.len();
        if n == 0 || dp.len() != n || nll.len() != n || nll_base.len() != n {
            return None;
        }
        let nf = n as f64;
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / nf;
        let (m, mb) = (mean(nll), mean(nll_base));
        let cov: f64 = nll.iter().zip(nll_base).map(|(a, b)| (a - m) * (b - mb)).sum();
        let var = |xs: &[f64], mu: f64| xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>();
        let denominator = (var(nll, m) * var(nll_base, mb)).sqrt();
        let sorted = |xs: &[f64]| {
            let mut v = xs.to_vec();
            v.sort_unstable_by(f64::total_cmp);
            v
        };
        let (ks, ds) = (sorted(kld), sorted(dp));
        Some(PerplexityTable {
            tokens: n,
            ppl: m.exp(),
            ppl_base: mb.exp(),
            ln_ratio: m - mb,
            cor: if denominator > 0.0 { cov / denominator } else { 0.0 },
            mean_kld: mean(kld),
            kld: KLD_PERCENTILES.iter().map(|(_, q)| interpolated(&ks, *q)).collect(),
            mean_dp: mean(dp),
            rms_dp: (dp.iter().map(|x| x * x).sum::<f64>() / nf).sqrt(),
            dp: DP_PERCENTILES.iter().map(|(_, q)| interpolated(&ds, *q)).collect(),
            same_top: same as f64 / nf,
        })
    }

    /// The table of a model's measured records, where they keep the per-token figures.
    fn of_records(records: &[&DivergenceRecord]) -> Option<PerplexityTable> {
        if records.iter().any(|r| r.dp.len() != r.kld.len() || r.nll.len() != r.kld.len()) {
            return None;
        }
        let all = |f: &dyn Fn(&DivergenceRecord) -> &Vec<f32>| -> Vec<f64> {
            records.iter().flat_map(|r| f(r).iter().map(|&x| x as f64)).collect()
        };
        let same = records.iter().map(|r| r.total().top1).sum();
        Self::of(&all(&|r| &r.kld), &all(&|r| &r.dp), &all(&|r| &r.nll), &all(&|r| &r.nll_base), same)
    }
}

/// The llama-perplexity table of `summaries` as Markdown: a row per statistic, a column per
/// model (empty when no model has one).
pub fn perplexity_markdown(summaries: &[DivergenceSummary]) -> String {
    let with: Vec<(&str, &PerplexityTable)> =
        summaries.iter().filter_map(|m| m.table.as_ref().map(|t| (m.model.as_str(), t))).collect();
    if with.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nAs `llama-perplexity --kl-divergence` reports it, on the same tokens (Δp in points):\n\n| statistic | {} |\n|---|{}\n",
        with.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(" | "),
        "--:|".repeat(with.len())
    );
    for (name, cells) in perplexity_rows(&with.iter().map(|(_, t)| *t).collect::<Vec<_>>()) {
        s.push_str(&format!("| {name} | {} |\n", cells.join(" | ")));
    }
    s
}

/// The rows of the llama-perplexity table: `(statistic, one cell per table)`.
pub fn perplexity_rows(tables: &[&PerplexityTable]) -> Vec<(String, Vec<String>)> {
    let row =
        |name: &str, f: &dyn Fn(&PerplexityTable) -> String| (name.to_string(), tables.iter().map(|t| f(t)).collect());
    let mut rows = vec![
        row("tokens", &|t| t.tokens.to_string()),
        row("PPL(Q)", &|t| format!("{:.6}", t.ppl)),
        row("PPL(base)", &|t| format!("{:.6}", t.ppl_base)),
        row("Cor(ln(PPL(Q)), ln(PPL(base)))", &|t| format!("{:.2} %", 100.0 * t.cor)),
        row("ln(PPL(Q)/PPL(base))", &|t| format!("{:.6}", t.ln_ratio)),
        row("PPL(Q)/PPL(base)", &|t| format!("{:.6}", t.ln_ratio.exp())),
        row("Mean KLD", &|t| format!("{:.6}", t.mean_kld)),
    ];
    for (i, (name, _)) in KLD_PERCENTILES.iter().enumerate() {
        rows.push(row(&format!("{name} KLD"), &|t| format!("{:.6}", t.kld[i])));
    }
    rows.push(row("Mean Δp", &|t| format!("{:.3} %", 100.0 * t.mean_dp)));
    for (i, (name, _)) in DP_PERCENTILES.iter().enumerate() {
        rows.push(row(&format!("{name} Δp"), &|t| format!("{:.3} %", 100.0 * t.dp[i])));
    }
    rows.push(row("RMS Δp", &|t| format!("{:.3} %", 100.0 * t.rms_dp)));
    rows.push(row("Same top p", &|t| format!("{:.3} %", 100.0 * t.same_top)));
    rows
}

/// One question's divergence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionDivergence {
    /// The question's id.
    pub id: String,
    /// Generated tokens measured.
    pub tokens: usize,
    /// Mean KL divergence over them.
    pub mean_kld: f64,
    /// Their top-1 agreement, percent.
    pub top1: f64,
}

/// Fewest tokens past a percentile for its interval to be shown: a 99th percentile needs 1,000
/// tokens, a 99.9th 10,000. Below that the percentile is one of the few largest values, and its
/// interval over resamples is just the span between them.
pub const MIN_TAIL_TOKENS: f64 = 10.0;

/// Why the interval of quantile `q` over `tokens` tokens of `questions` questions is not shown;
/// `None` when the sample supports it.
pub fn too_few_for_quantile(questions: usize, tokens: usize, q: f64) -> Option<String> {
    let needed = (MIN_TAIL_TOKENS / (1.0 - q)).round() as usize;
    crate::eval::report::too_few_questions(questions).or_else(|| {
        (tokens < needed).then(|| {
            format!("too few to estimate ({tokens} tokens; the {} percentile needs {needed})", percentile_name(q))
        })
    })
}

fn percentile_name(q: f64) -> String {
    let p = 100.0 * q;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}th")
    } else {
        format!("{p:.1}th")
    }
}

impl DivergenceSummary {
    /// The questions-needed figures (mean KLD, top-1, EX) as the reports print them: a count,
    /// `–` where no difference was seen, or `too few to estimate` below
    /// [`crate::eval::report::MIN_QUESTIONS`].
    pub fn needed_cells(&self) -> [String; 3] {
        if self.too_few.contains_key("needed") {
            return std::array::from_fn(|_| "too few to estimate".to_string());
        }
        [fmt_needed(self.needed.kld), fmt_needed(self.needed.top1), fmt_needed(self.needed.ex)]
    }

    /// `value [lo to hi]` of a measure as the reports print it, or `value (too few to estimate)`
    /// where its interval is not supported (`key` as in [`Self::too_few`]).
    pub fn shown(&self, key: &str, stat: &Stat, f: &dyn Fn(f64) -> String) -> String {
        if self.model == self.reference {
            // The reference against itself is the check (0, or 1, by construction).
            f(stat.value)
        } else if self.too_few.contains_key(key) {
            format!("{} (too few to estimate)", f(stat.value))
        } else {
            format!("{} [{} to {}]", f(stat.value), f(stat.ci.0), f(stat.ci.1))
        }
    }
}

/// What a KLD of 0.01, 0.1 and 1 went with in this run, in one sentence: the top-1 agreement of
/// the questions whose mean KLD was within half a decade of each (every model but the reference
/// pooled, token-weighted); `None` when no question is near any of them.
pub fn kld_guidance(summaries: &[DivergenceSummary]) -> Option<String> {
    let mut parts = Vec::new();
    let mut any = false;
    for level in [0.01f64, 0.1, 1.0] {
        let (lo, hi) = (level / 10f64.sqrt(), level * 10f64.sqrt());
        let (mut tokens, mut agreed, mut questions) = (0usize, 0.0f64, 0usize);
        for m in summaries.iter().filter(|m| m.model != m.reference) {
            for q in m.by_question.iter().filter(|q| q.tokens > 0 && q.mean_kld >= lo && q.mean_kld < hi) {
                tokens += q.tokens;
                agreed += q.top1 / 100.0 * q.tokens as f64;
                questions += 1;
            }
        }
        if tokens > 0 {
            any = true;
            parts.push(format!(
                "near {level}, {:.1} % of tokens kept the reference's most probable token ({questions} question{})",
                100.0 * agreed / tokens as f64,
                if questions == 1 { "" } else { "s" }
            ));
        } else {
            parts.push(format!("near {level}, no question"));
        }
    }
    any.then(|| format!("What a KLD means for agreement, in this run: at a question's mean KLD {}.", parts.join("; ")))
}

/// A small deterministic generator for resampling (SplitMix64): the intervals are the same on
/// every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
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

/// The 2.5th and 97.5th percentiles of resampled figures.
pub(crate) fn interval(mut xs: Vec<f64>) -> (f64, f64) {
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
    let dp_of = |s: &super::PlaceSums| s.dp;
    let dp2_of = |s: &super::PlaceSums| s.dp2;
    let ratio_of = |s: &super::PlaceSums| s.log_ratio;
    let (mut means, mut top1s) = (Vec::new(), Vec::new());
    let (mut dps, mut rmss, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut quantiles: [Vec<f64>; 3] = Default::default();
    if !measured.is_empty() {
        for b in 0..RESAMPLES_MEAN {
            let idx = resample();
            means.push(mean_of(&idx, &kld_of));
            top1s.push(mean_of(&idx, &top1_of));
            dps.push(mean_of(&idx, &dp_of));
            rmss.push(mean_of(&idx, &dp2_of).sqrt());
            ratios.push(mean_of(&idx, &ratio_of).exp());
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
    let n = measured.len();
    let mut too_few = BTreeMap::new();
    if let Some(why) = crate::eval::report::too_few_questions(n) {
        for key in ["mean_kld", "median_kld", "top1", "mean_dp", "rms_dp", "ppl_ratio", "needed"] {
            too_few.insert(key.to_string(), why.clone());
        }
    }
    for (key, q) in [("p99_kld", 0.99), ("p999_kld", 0.999)] {
        if let Some(why) = too_few_for_quantile(n, tokens, q) {
            too_few.insert(key.to_string(), why);
        }
    }
    let by_question = measured
        .iter()
        .zip(&totals)
        .map(|(r, t)| QuestionDivergence {
            id: r.id.clone(),
            tokens: t.tokens,
            mean_kld: t.kld / t.tokens.max(1) as f64,
            top1: 100.0 * t.top1 as f64 / t.tokens.max(1) as f64,
        })
        .collect();
    DivergenceSummary {
        table: PerplexityTable::of_records(&measured),
        max_kld: pooled.iter().copied().fold(0.0f32, f32::max) as f64,
        mean_dp: stat(mean_of(&all, &dp_of), interval(dps)),
        rms_dp: stat(mean_of(&all, &dp2_of).sqrt(), interval(rmss)),
        ppl_ratio: stat(mean_of(&all, &ratio_of).exp(), interval(ratios)),
        by_question,
        too_few,
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
pub fn fig(x: f64) -> String {
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

/// Why intervals were left out, each reason once with the models it holds for (`too few to
/// estimate (3 questions; an interval needs 10): q8_0.gguf, q4_0.gguf`); the reference, the
/// check, aside.
pub fn left_out(summaries: &[DivergenceSummary]) -> Vec<String> {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for m in summaries.iter().filter(|m| m.model != m.reference) {
        for why in m.too_few.values() {
            match reasons.iter_mut().find(|(w, _)| *w == why.as_str()) {
                Some((_, models)) if !models.contains(&m.model.as_str()) => models.push(&m.model),
                Some(_) => {}
                None => reasons.push((why, vec![&m.model])),
            }
        }
    }
    reasons.into_iter().map(|(why, models)| format!("{why}: {}", models.join(", "))).collect()
}

/// The divergence section of `summary.md`.
pub fn markdown(summaries: &[DivergenceSummary]) -> String {
    let Some(first) = summaries.first() else { return String::new() };
    let mut s = format!(
        "\n## Divergence from the reference {}\n\nPer generated token of the reference's own episodes, teacher-forced; KL divergence (reference ‖ model) in nats; [95% bootstrap interval over questions].\n\n\
         | model | questions | tokens | mean KLD | median | p99 | p99.9 | max | top-1 % | mean Δp % | RMS Δp % | PPL ratio | p(ref token) | s/question |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        first.reference
    );
    let pct = |x: f64| crate::eval::report::signed(100.0 * x, 2);
    for m in summaries {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} |\n",
            m.model,
            m.questions,
            m.tokens,
            m.shown("mean_kld", &m.mean_kld, &fig),
            m.shown("median_kld", &m.median_kld, &fig),
            m.shown("p99_kld", &m.p99_kld, &fig),
            m.shown("p999_kld", &m.p999_kld, &fig),
            fig(m.max_kld),
            m.shown("top1", &m.top1, &|x| format!("{x:.2}")),
            m.shown("mean_dp", &m.mean_dp, &pct),
            m.shown("rms_dp", &m.rms_dp, &pct),
            m.shown("ppl_ratio", &m.ppl_ratio, &|x| format!("{x:.4}")),
            fig(m.p_token),
            m.seconds_per_question
        ));
    }
    let reasons = left_out(summaries);
    if !reasons.is_empty() {
        s.push_str(&format!("\nIntervals left out: {}.\n", reasons.join("; ")));
    }
    s.push_str(&perplexity_markdown(summaries));
    if let Some(g) = kld_guidance(summaries) {
        s.push_str(&format!("\n{g}\n"));
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
    s.push_str("\nQuestions each measure needs to tell the model from the reference (its 95% interval excluding no difference; from the intervals above, which narrow as 1/√n; –: no difference seen):\n\n| model | mean KLD | top-1 | EX (paired) |\n|---|--:|--:|--:|\n");
    for m in summaries {
        let [kld, top1, ex] = m.needed_cells();
        s.push_str(&format!("| {} | {kld} | {top1} | {ex} |\n", m.model));
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
                dp: -0.1 * klds.len() as f64,
                dp2: 0.01 * klds.len() as f64,
                log_ratio: 0.2 * klds.len() as f64,
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
        assert!((q.mean_dp.value + 0.1).abs() < 1e-9 && (q.rms_dp.value - 0.1).abs() < 1e-9, "{q:?}");
        assert!((q.ppl_ratio.value - 0.2f64.exp()).abs() < 1e-9, "{:?}", q.ppl_ratio);
        assert!((q.max_kld - 0.03).abs() < 1e-6, "{}", q.max_kld);
        assert_eq!(q.by_question.len(), 20);
        // 20 questions support intervals of means; 200 tokens do not support a 99th percentile's.
        assert!(!q.too_few.contains_key("mean_kld"), "{:?}", q.too_few);
        assert_eq!(q.too_few["p99_kld"], "too few to estimate (200 tokens; the 99th percentile needs 1000)");
        assert_eq!(q.too_few["p999_kld"], "too few to estimate (200 tokens; the 99.9th percentile needs 10000)");
        let md = markdown(&s);
        assert!(md.contains("| q4 | 20 | 200 |") && md.contains("not measured: cut"), "{md}");
        assert!(md.contains("(too few to estimate)") && md.contains("Intervals left out: "), "{md}");
        assert!(md.contains("too few to estimate (200 tokens; the 99th percentile needs 1000): q4"), "{md}");
        assert!(!md.contains(": ref"), "the reference is the check, not listed: {md}");
        // Mean KLDs of 0.01–0.03 sit within half a decade of 0.01, at 90 % agreement.
        let g = kld_guidance(&s).unwrap();
        assert!(g.contains("near 0.01, 90.0 % of tokens") && g.contains("near 1, no question"), "{g}");
    }

    #[test]
    fn three_questions_are_too_few_for_any_interval() {
        let records: Vec<DivergenceRecord> = (0..3).map(|q| record("q4", &q.to_string(), &[0.05; 50], 45)).collect();
        let s = &summarise(&records, "ref", &|_| None)[0];
        for key in ["mean_kld", "median_kld", "p99_kld", "p999_kld", "top1", "mean_dp", "needed"] {
            assert_eq!(
                s.too_few.get(key).map(String::as_str),
                Some("too few to estimate (3 questions; an interval needs 10)"),
                "{key}: {:?}",
                s.too_few
            );
        }
        assert_eq!(s.needed_cells()[0], "too few to estimate");
        assert_eq!(s.shown("mean_kld", &s.mean_kld, &fig), "0.0500 (too few to estimate)");
        let md = markdown(std::slice::from_ref(s));
        assert!(!md.contains('[') || !md.contains("0.0500 ["), "no interval printed: {md}");
    }

    #[test]
    fn the_perplexity_table_follows_llama_perplexitys_definitions() {
        let kld = [0.0, 1.0, 2.0, 3.0, 4.0];
        let dp = [-0.2, -0.1, 0.0, 0.1, 0.3];
        let nll = [1.0, 2.0, 3.0, 4.0, 5.0];
        let base = [0.5, 1.5, 2.5, 3.5, 4.5];
        let t = PerplexityTable::of(&kld, &dp, &nll, &base, 4).unwrap();
        assert_eq!(t.tokens, 5);
        assert!((t.ppl - 3f64.exp()).abs() < 1e-9 && (t.ppl_base - 2.5f64.exp()).abs() < 1e-9, "{t:?}");
        assert!((t.ln_ratio - 0.5).abs() < 1e-12 && (t.cor - 1.0).abs() < 1e-12, "{t:?}");
        // Interpolated between the values around q · (n − 1): 0.999 · 4 = 3.996.
        assert_eq!(t.kld[0], 4.0);
        assert!((t.kld[1] - 3.996).abs() < 1e-9, "{:?}", t.kld);
        assert_eq!((t.kld[5], t.kld[10]), (2.0, 0.0));
        assert!((t.dp[0] - 0.3).abs() < 1e-12 && (t.dp[12] + 0.2).abs() < 1e-12, "{:?}", t.dp);
        assert!((t.dp[6]).abs() < 1e-12 && (t.same_top - 0.8).abs() < 1e-12);
        assert!((t.rms_dp - (0.15f64 / 5.0).sqrt()).abs() < 1e-12);
        let md = perplexity_markdown(&[]);
        assert!(md.is_empty());
        let rows = perplexity_rows(&[&t]);
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        for needed in [
            "PPL(Q)",
            "PPL(base)",
            "Cor(ln(PPL(Q)), ln(PPL(base)))",
            "ln(PPL(Q)/PPL(base))",
            "99.9% KLD",
            "Minimum KLD",
            "Maximum Δp",
            "Minimum Δp",
            "Same top p",
        ] {
            assert!(names.contains(&needed), "{needed}: {names:?}");
        }
    }
}
