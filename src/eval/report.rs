//! Summaries of evaluation records: execution accuracy with confidence intervals, by model and
//! difficulty, the `ended_by` mix, effort per episode, and paired comparisons between models.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::results::Models;
use super::Record;
use crate::agent::EndedBy;
use crate::speculate::SpecCounts;

/// Wilson 95% interval of a proportion, in percent.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let (z, n, p) = (1.96f64, n as f64, k as f64 / n as f64);
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    (100.0 * (c - h).max(0.0), 100.0 * (c + h).min(1.0))
}

/// Wilson 95% interval of a proportion `k / n`, as fractions.
fn wilson_fraction(k: usize, n: usize) -> (f64, f64) {
    let (lo, hi) = wilson(k, n);
    (lo / 100.0, hi / 100.0)
}

/// Newcombe's square-and-add 95% interval for the difference of two paired proportions, `p_b −
/// p_a` (Newcombe 1998, *Statistics in Medicine* 17:2635, method 10, with the correlation
/// corrected as Fagerland, Lydersen and Laake give it in *Statistical Analysis of Contingency
/// Tables*, 2017, ch. 8), as fractions. The counts are the questions both got right, only `b`,
/// only `a`, and neither. Unlike the normal approximation it keeps a width when the two never
/// disagree: agreeing on 46 questions does not show that the difference is exactly zero.
pub fn newcombe_paired(both: usize, only_b: usize, only_a: usize, neither: usize) -> (f64, f64) {
    let n = both + only_b + only_a + neither;
    if n == 0 {
        return (0.0, 0.0);
    }
    let nf = n as f64;
    let (b_right, a_right) = (both + only_b, both + only_a);
    let (p1, p2) = (b_right as f64 / nf, a_right as f64 / nf);
    let (l1, u1) = wilson_fraction(b_right, n);
    let (l2, u2) = wilson_fraction(a_right, n);
    let margins = [b_right, n - b_right, a_right, n - a_right];
    let psi = if margins.contains(&0) {
        0.0
    } else {
        let product: f64 = margins.iter().map(|&m| m as f64).product();
        let a = both as f64 * neither as f64 - only_b as f64 * only_a as f64;
        if a > nf / 2.0 {
            (a - nf / 2.0) / product.sqrt()
        } else if a >= 0.0 {
            0.0
        } else {
            a / product.sqrt()
        }
    };
    let estimate = p1 - p2;
    let below = ((p1 - l1).powi(2) + (u2 - p2).powi(2) - 2.0 * psi * (p1 - l1) * (u2 - p2)).max(0.0).sqrt();
    let above = ((p2 - l2).powi(2) + (u1 - p1).powi(2) - 2.0 * psi * (p2 - l2) * (u1 - p1)).max(0.0).sqrt();
    (estimate - below, estimate + above)
}

/// `x` with its sign and `decimals` decimals (`+1.2`, `-0.4`); a figure that rounds to zero is
/// written without one (`0.0`, never `-0.0`).
pub fn signed(x: f64, decimals: usize) -> String {
    let text = format!("{x:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// An interval as the reports write it: `lo to hi`.
pub fn range(lo: f64, hi: f64, f: &dyn Fn(f64) -> String) -> String {
    format!("{} to {}", f(lo), f(hi))
}

/// Fewest questions an interval over questions is shown for. Below it the reports print "too
/// few to estimate" instead: an interval from a handful of questions is as narrow or as wide as
/// chance makes it (three questions answered alike give a paired interval of zero width).
pub const MIN_QUESTIONS: usize = 10;

/// `None` when `n` questions support an interval; else why not, as the reports print it.
pub fn too_few_questions(n: usize) -> Option<String> {
    (n < MIN_QUESTIONS).then(|| format!("too few to estimate ({n} questions; an interval needs {MIN_QUESTIONS})"))
}

/// One model's summary (over questions whose gold query ran).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    /// The model's label.
    pub model: String,
    /// Questions scored.
    pub n: usize,
    /// Questions whose gold query failed (not counted).
    pub gold_failed: usize,
    /// Questions answered correctly.
    pub correct: usize,
    /// Execution accuracy, percent.
    pub ex: f64,
    /// Its 95% Wilson interval.
    pub ex_ci: (f64, f64),
    /// Mean training reward tier.
    pub mean_reward: f64,
    /// Mean multiset F1 of result rows.
    pub mean_f1: f64,
    /// Tool calls per episode.
    pub tool_calls_per_episode: f64,
    /// Assistant turns per episode.
    pub turns_per_episode: f64,
    /// Tokens run through the model per episode.
    pub decoded_tokens_per_episode: f64,
    /// Tokens sampled per episode.
    pub generated_tokens_per_episode: f64,
    /// Wall-clock seconds per episode.
    pub seconds_per_episode: f64,
    /// Generated tokens per second of episode time.
    pub generated_tokens_per_second: f64,
    /// Share of episodes that opened every gold table, percent.
    pub opened_all_gold_tables: f64,
    /// Share of gold string literals seen in tool output before the answer, percent.
    pub gold_literals_seen: f64,
    /// `ended_by` → count.
    pub ended_by: BTreeMap<String, usize>,
    /// Difficulty → (correct, n).
    pub by_difficulty: BTreeMap<String, (usize, usize)>,
    /// Questions whose episode failed on an inference server and was not played again (not
    /// scored; a resumed run plays them).
    #[serde(default)]
    pub failed: usize,
    /// What speculative decoding drafted and kept over these episodes (absent when it was off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculation: Option<SpecCounts>,
    /// Share of the episodes' turns that held at least one readable tool call, percent.
    #[serde(default)]
    pub turns_with_calls: f64,
    /// Of a vote's entry: the mean share of its episodes in the winning group, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_agreement: Option<f64>,
}

impl Summary {
    /// One line on speculative decoding: acceptance per drafter and tokens per verify step.
    pub fn speculation_line(&self) -> Option<String> {
        let s = self.speculation?;
        let part = |name: &str, c: &crate::speculate::DraftCounts| {
            (c.steps > 0).then(|| {
                format!(
                    "{name} {}/{} drafted tokens kept ({:.0} %), {:.2} tokens per verify step",
                    c.accepted,
                    c.drafted,
                    100.0 * c.acceptance(),
                    c.tokens_per_step()
                )
            })
        };
        let parts: Vec<String> =
            [part("lookup", &s.lookup), part("mtp", &s.mtp), part("given", &s.given)].into_iter().flatten().collect();
        Some(format!(
            "{}: speculation: {}; {:.1} generated tokens/s",
            self.model,
            parts.join("; "),
            self.generated_tokens_per_second
        ))
    }
}

/// Summaries per model, in first-seen order.
pub fn summarise(records: &[Record]) -> Vec<Summary> {
    let mut order: Vec<String> = Vec::new();
    for r in records {
        if !order.contains(&r.model) {
            order.push(r.model.clone());
        }
    }
    order
        .into_iter()
        .map(|model| {
            let all: Vec<&Record> = records.iter().filter(|r| r.model == model && r.error.is_none()).collect();
            let played: std::collections::HashSet<&str> = all.iter().map(|r| r.id.as_str()).collect();
            let failed: std::collections::HashSet<&str> = records
                .iter()
                .filter(|r| r.model == model && r.error.is_some() && !played.contains(r.id.as_str()))
                .map(|r| r.id.as_str())
                .collect();
            let rs: Vec<&Record> = all.iter().copied().filter(|r| r.gold_ok).collect();
            let n = rs.len();
            let mean =
                |f: &dyn Fn(&Record) -> f64| if n == 0 { 0.0 } else { rs.iter().map(|r| f(r)).sum::<f64>() / n as f64 };
            let correct = rs.iter().filter(|r| r.correct).count();
            let mut ended_by = BTreeMap::new();
            let mut by_difficulty: BTreeMap<String, (usize, usize)> = BTreeMap::new();
            for r in &rs {
                *ended_by.entry(r.ended_by.map_or("scored", EndedBy::as_str).to_string()).or_insert(0) += 1;
                let e = by_difficulty.entry(r.difficulty.clone().unwrap_or_else(|| "all".into())).or_insert((0, 0));
                e.0 += r.correct as usize;
                e.1 += 1;
            }
            let secs: f64 = rs.iter().map(|r| r.seconds).sum();
            let lits: usize = rs.iter().map(|r| r.gold_literals).sum();
            let seen: usize = rs.iter().map(|r| r.gold_literals_seen).sum();
            let gen: f64 = rs.iter().map(|r| r.generated_tokens as f64).sum();
            let mut spec = SpecCounts::default();
            let (mut turns, mut calling) = (0usize, 0usize);
            for e in rs.iter().filter_map(|r| r.episode.as_ref()) {
                spec.add(&e.tokens.speculation);
                turns += e.turns.len();
                calling += e.turns.iter().filter(|t| !t.calls.is_empty()).count();
            }
            let votes: Vec<f64> = rs
                .iter()
                .filter_map(|r| r.vote.as_ref())
                .map(|v| 100.0 * v.agree as f64 / v.of.max(1) as f64)
                .collect();
            Summary {
                model,
                n,
                gold_failed: all.len() - n,
                correct,
                ex: if n == 0 { 0.0 } else { 100.0 * correct as f64 / n as f64 },
                ex_ci: wilson(correct, n),
                mean_reward: mean(&|r| r.reward),
                mean_f1: mean(&|r| r.f1),
                tool_calls_per_episode: mean(&|r| r.tool_calls as f64),
                turns_per_episode: mean(&|r| r.turns as f64),
                decoded_tokens_per_episode: mean(&|r| r.decoded_tokens as f64),
                generated_tokens_per_episode: mean(&|r| r.generated_tokens as f64),
                seconds_per_episode: mean(&|r| r.seconds),
                generated_tokens_per_second: if secs > 0.0 { gen / secs } else { 0.0 },
                opened_all_gold_tables: mean(&|r| 100.0 * r.opened_all_gold_tables as u8 as f64),
                gold_literals_seen: if lits == 0 { 0.0 } else { 100.0 * seen as f64 / lits as f64 },
                ended_by,
                by_difficulty,
                failed: failed.len(),
                speculation: (!spec.is_empty()).then_some(spec),
                turns_with_calls: if turns == 0 { 0.0 } else { 100.0 * calling as f64 / turns as f64 },
                vote_agreement: (!votes.is_empty()).then(|| votes.iter().sum::<f64>() / votes.len() as f64),
            }
        })
        .collect()
}

/// Model `b` against model `a` on the questions both answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Paired {
    /// The model compared against (the first, or the same entry without its last condition).
    pub a: String,
    /// The model compared.
    pub b: String,
    /// Questions in common.
    pub n: usize,
    /// EX(b) - EX(a), percentage points.
    pub diff: f64,
    /// 95% interval of the paired difference, percentage points ([`newcombe_paired`]).
    pub diff_ci: (f64, f64),
    /// Ids where exactly one is correct: (id, a correct, b correct).
    pub disagreements: Vec<(String, bool, bool)>,
    /// Why the interval is not shown (`too few to estimate (3 questions; an interval needs
    /// 10)`), when the sample does not support it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_few: Option<String>,
}

impl Paired {
    /// The comparison in words, as the reports print it: `b − a: +5.0 points EX (95% CI …) on
    /// 20 common questions; they disagree on 2: q3, q7` (or `they agree on every one`).
    pub fn sentence(&self) -> String {
        let points = |x: f64| signed(x, 1);
        if let Some(why) = too_few_questions(self.n) {
            return format!(
                "{} − {}: {} points EX on {} common questions, interval {why}; {}",
                self.b,
                self.a,
                points(self.diff),
                self.n,
                self.agreement()
            );
        }
        format!(
            "{} − {}: {} points EX (95% CI {}) on {} common questions; {}",
            self.b,
            self.a,
            points(self.diff),
            range(self.diff_ci.0, self.diff_ci.1, &points),
            self.n,
            self.agreement()
        )
    }

    /// Where the two differ: `they disagree on 2: q3, q7`, or `they agree on every one`.
    pub fn agreement(&self) -> String {
        match self.disagreements.len() {
            0 if self.n == 0 => "there is nothing to compare".into(),
            0 => "they agree on every one".into(),
            k => format!(
                "they disagree on {k}: {}",
                self.disagreements.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

/// A parameter count for people: `134.5 M`, `1.88 B`.
pub fn params(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2} B", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} K", n / 1e3)
    } else {
        format!("{n}")
    }
}

/// Bytes in MiB with one decimal, for the runs tables (files of 3.5, 3.0 and 2.5 MiB read
/// apart).
pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1048576.0)
}

/// Paired comparisons: every model against the first; and each entry played under a condition
/// (`model.gguf +constrained`, `model.gguf +constrained +vote5`) against the same entry without
/// its last condition (`model.gguf`, `model.gguf +constrained`), where that is not the first.
pub fn paired(records: &[Record], summaries: &[Summary]) -> Vec<Paired> {
    let Some(first) = summaries.first() else { return Vec::new() };
    let mut pairs = Vec::new();
    for s in &summaries[1..] {
        pairs.push(pair(records, &first.model, &s.model));
        let parent = s.model.rsplit_once(" +").map(|(p, _)| p);
        if let Some(parent) = parent.filter(|p| *p != first.model && summaries.iter().any(|m| m.model == *p)) {
            pairs.push(pair(records, parent, &s.model));
        }
    }
    pairs
}

/// Model `b` against model `a` on the questions both answered.
pub fn pair(records: &[Record], a: &str, b: &str) -> Paired {
    let answers = |model: &str| -> BTreeMap<&str, bool> {
        records
            .iter()
            .filter(|r| r.model == model && r.gold_ok && r.error.is_none())
            .map(|r| (r.id.as_str(), r.correct))
            .collect()
    };
    let (xa, xb) = (answers(a), answers(b));
    let common: Vec<(&str, bool, bool)> =
        xa.iter().filter_map(|(id, ca)| xb.get(id).map(|cb| (*id, *ca, *cb))).collect();
    let n = common.len();
    let count = |ca: bool, cb: bool| common.iter().filter(|(_, x, y)| *x == ca && *y == cb).count();
    let (both, only_b, only_a, neither) =
        (count(true, true), count(false, true), count(true, false), count(false, false));
    let mean = if n == 0 { 0.0 } else { (only_b as f64 - only_a as f64) / n as f64 };
    let (lo, hi) = newcombe_paired(both, only_b, only_a, neither);
    Paired {
        a: a.to_string(),
        b: b.to_string(),
        n,
        diff: 100.0 * mean,
        diff_ci: (100.0 * lo, 100.0 * hi),
        disagreements: common.iter().filter(|(_, x, y)| x != y).map(|(id, x, y)| (id.to_string(), *x, *y)).collect(),
        too_few: too_few_questions(n),
    }
}

/// The summary as a Markdown document (also what the terminal shows).
pub fn markdown(summaries: &[Summary], pairs: &[Paired]) -> String {
    let mut s = String::from("| model | n | EX % | 95% CI | reward | F1 | tool calls | turns | gold tables opened % | literals seen % | tokens decoded | generated | s/episode | gen tok/s | gold failed |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for m in summaries {
        s.push_str(&format!(
            "| {} | {} | {:.1} | {:.1} to {:.1} | {:.2} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.1} | {:.1} | {} |\n",
            m.model, m.n, m.ex, m.ex_ci.0, m.ex_ci.1, m.mean_reward, m.mean_f1, m.tool_calls_per_episode, m.turns_per_episode,
            m.opened_all_gold_tables, m.gold_literals_seen,
            m.decoded_tokens_per_episode, m.generated_tokens_per_episode, m.seconds_per_episode, m.generated_tokens_per_second, m.gold_failed
        ));
    }
    s.push_str("\n| model | difficulty | EX % | n |\n|---|---|--:|--:|\n");
    for m in summaries {
        for (d, (c, n)) in &m.by_difficulty {
            s.push_str(&format!("| {} | {} | {:.1} | {} |\n", m.model, d, 100.0 * *c as f64 / (*n).max(1) as f64, n));
        }
    }
    s.push_str("\n| model | ended_by | episodes |\n|---|---|--:|\n");
    for m in summaries {
        for (e, n) in &m.ended_by {
            s.push_str(&format!("| {} | {} | {} |\n", m.model, e, n));
        }
    }
    s.push_str("\n| model | turns with a readable call % | tool calls per episode | ended by submit_sql % | vote agreement % |\n|---|--:|--:|--:|--:|\n");
    for m in summaries {
        let submitted = m.ended_by.get(EndedBy::SubmitSql.as_str()).copied().unwrap_or(0);
        let agreement = m.vote_agreement.map_or("–".to_string(), |a| format!("{a:.0}"));
        s.push_str(&format!(
            "| {} | {:.1} | {:.2} | {:.1} | {agreement} |\n",
            m.model,
            m.turns_with_calls,
            m.tool_calls_per_episode,
            100.0 * submitted as f64 / m.n.max(1) as f64
        ));
    }
    for m in summaries.iter().filter(|m| m.failed > 0) {
        s.push_str(&format!(
            "\n{}: {} episodes failed on the inference server (not scored; run the same command again to play them)\n",
            m.model, m.failed
        ));
    }
    for line in summaries.iter().filter_map(Summary::speculation_line) {
        s.push_str(&format!("\n{line}\n"));
    }
    for p in pairs {
        s.push_str(&format!("\n{}\n", p.sentence()));
    }
    s
}

/// One model's runs (all that played its episodes into the folder, as one:
/// [`super::results::ModelEntry::all_runs`])
/// as the runs tables show it: file MiB, weight type (a fallback file named as such), parameters,
/// `--parallel`, episodes,
/// episodes/min, aggregate generated tokens/s, peak MiB, and the compute per question
/// (2 × parameters × tokens decoded per episode, TFLOPs); `–` where unknown.
pub fn run_cells(models: &Models, summary: &Summary) -> Option<[String; 10]> {
    let info = models.get(&summary.model)?;
    let run = info.all_runs().unwrap_or_default();
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "–".into());
    // The `--parallel` of each run that played episodes, once each: `1+4` for a run resumed at 4.
    let mut parallel: Vec<String> = Vec::new();
    for p in info.runs().map(|r| r.parallel.to_string()) {
        if parallel.last() != Some(&p) {
            parallel.push(p);
        }
    }
    Some([
        mib(info.bytes),
        or_dash(info.type_label()),
        params(info.params),
        or_dash((!parallel.is_empty()).then(|| parallel.join("+"))),
        run.episodes.to_string(),
        or_dash(run.episodes_per_minute().map(|v| format!("{v:.2}"))),
        or_dash(run.generated_tokens_per_second().map(|v| format!("{v:.1}"))),
        or_dash(run.peak_rss_bytes.map(mib)),
        format!("{:.4}", 2.0 * info.params as f64 * summary.decoded_tokens_per_episode / 1e12),
        or_dash(run.load.map(|l| match l.busy() {
            Some(_) => format!("busy: others {:.0} %", 100.0 * (l.others + l.steal)),
            None => format!("quiet: others {:.0} %", 100.0 * (l.others + l.steal)),
        })),
    ])
}

/// One warning per model whose runs' speed the machine's load makes untrustworthy.
pub fn load_warnings(models: &Models, summaries: &[Summary]) -> Vec<String> {
    summaries
        .iter()
        .filter_map(|m| {
            let why = models.get(&m.model)?.all_runs()?.load?.busy()?;
            Some(format!(
                "{}: the machine was busy during its run ({why}): its speed is the machine's as much as the model's",
                m.model
            ))
        })
        .collect()
}

/// The settings each model's episodes were played with, one line per model (none where the
/// folder does not record them).
pub fn settings_lines(models: &Models, summaries: &[Summary]) -> Vec<String> {
    summaries
        .iter()
        .filter_map(|m| Some(format!("{}: {}", m.model, models.get(&m.model)?.settings.as_ref()?.line())))
        .collect()
}

/// What the reports left out, as a Markdown section (empty when nothing was).
pub fn notes_markdown(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n## Left out\n\n");
    for n in notes {
        s.push_str(&format!("- {n}\n"));
    }
    s
}

/// The column names of [`run_cells`], after `model`.
pub const RUN_COLUMNS: [&str; 10] = [
    "file MiB",
    "weights",
    "parameters",
    "parallel",
    "episodes",
    "episodes/min",
    "gen tok/s (all episodes)",
    "peak MiB",
    "TFLOPs/question",
    "machine load",
];

/// The runs behind the summaries (from `models.json`) as a Markdown table ([`run_cells`]).
pub fn runs_markdown(models: &Models, summaries: &[Summary]) -> String {
    let mut s = format!("| model | {} |\n|---|{}\n", RUN_COLUMNS.join(" | "), "--:|".repeat(RUN_COLUMNS.len()));
    for m in summaries {
        if let Some(cells) = run_cells(models, m) {
            s.push_str(&format!("| {} | {} |\n", m.model, cells.join(" | ")));
        }
    }
    for w in load_warnings(models, summaries) {
        s.push_str(&format!("\nWarning: {w}.\n"));
    }
    let settings = settings_lines(models, summaries);
    if !settings.is_empty() {
        s.push_str("\nSettings of the episodes:\n\n");
        for line in settings {
            s.push_str(&format!("- {line}\n"));
        }
    }
    s
}

/// One CSV row per model.
pub fn csv(summaries: &[Summary]) -> String {
    let mut s = String::from("model,n,correct,ex,ex_ci_low,ex_ci_high,mean_reward,mean_f1,tool_calls,turns,opened_all_gold_tables,gold_literals_seen,decoded_tokens,generated_tokens,seconds,gen_tokens_per_s,gold_failed\n");
    for m in summaries {
        s.push_str(&format!(
            "\"{}\",{},{},{:.3},{:.3},{:.3},{:.4},{:.4},{:.3},{:.3},{:.2},{:.2},{:.1},{:.1},{:.3},{:.3},{}\n",
            m.model.replace('"', "\"\""),
            m.n,
            m.correct,
            m.ex,
            m.ex_ci.0,
            m.ex_ci.1,
            m.mean_reward,
            m.mean_f1,
            m.tool_calls_per_episode,
            m.turns_per_episode,
            m.opened_all_gold_tables,
            m.gold_literals_seen,
            m.decoded_tokens_per_episode,
            m.generated_tokens_per_episode,
            m.seconds_per_episode,
            m.generated_tokens_per_second,
            m.gold_failed
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_brackets_the_proportion() {
        let (lo, hi) = wilson(44, 100);
        assert!(lo < 44.0 && hi > 44.0);
        assert!((lo - 34.7).abs() < 0.2 && (hi - 53.8).abs() < 0.2, "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }

    #[test]
    fn parameters_read_as_people_write_them() {
        assert_eq!(params(134_515_008), "134.5 M");
        assert_eq!(params(1_881_825_280), "1.88 B");
        assert_eq!(params(900), "900");
    }

    #[test]
    fn agreement_has_no_dangling_colon() {
        let mut p = Paired {
            a: "a".into(),
            b: "b".into(),
            n: 3,
            diff: 0.0,
            diff_ci: (0.0, 0.0),
            disagreements: vec![],
            too_few: None,
        };
        assert!(p.sentence().ends_with("they agree on every one"), "{}", p.sentence());
        // Three questions give no interval, however alike their answers.
        assert!(p.sentence().contains("too few to estimate (3 questions; an interval needs 10)"), "{}", p.sentence());
        assert!(!p.sentence().contains("CI"), "{}", p.sentence());
        p.n = 12;
        assert!(p.sentence().contains("(95% CI 0.0 to 0.0) on 12 common questions"), "{}", p.sentence());
        p.disagreements = vec![("q1".into(), true, false), ("q3".into(), false, true)];
        assert!(p.sentence().ends_with("they disagree on 2: q1, q3"), "{}", p.sentence());
    }

    /// The worked example of Fagerland, Lydersen and Laake (2017, ch. 8; their R package
    /// `contingencytables` checks it): complete response before and after consolidation therapy
    /// (Cavo et al., 2012), 59 both, 6 only before, 16 only after, 80 neither: −0.0621, 95% CI
    /// −0.1186 to −0.0046.
    #[test]
    fn newcombes_paired_interval_matches_the_published_example() {
        let (lo, hi) = newcombe_paired(59, 6, 16, 80);
        assert!((lo + 0.1186).abs() < 5e-5 && (hi + 0.0046).abs() < 5e-5, "{lo} {hi}");
    }

    #[test]
    fn no_disagreement_still_leaves_an_interval_with_width() {
        let record = |model: &str, id: usize, correct: bool| {
            let line = format!(
                r#"{{"model":"{model}","id":"q{id}","difficulty":null,"gold_ok":true,"gold_error":null,"sql":"SELECT 1","ended_by":"submit_sql","correct":{correct},"executed":true,"f1":1.0,"reward":3.0,"tool_calls":1,"turns":1,"decoded_tokens":10,"generated_tokens":5,"seconds":0.1,"seed":1,"episode":null}}"#
            );
            serde_json::from_str::<Record>(&line).unwrap()
        };
        // 46 questions, half right, both models alike: no discordant pair.
        let records: Vec<Record> =
            ["a", "b"].iter().flat_map(|m| (0..46).map(move |i| record(m, i, i % 2 == 0))).collect();
        let p = pair(&records, "a", "b");
        assert_eq!((p.n, p.diff, p.disagreements.len()), (46, 0.0, 0));
        assert!(p.diff_ci.0 < -1.0 && p.diff_ci.1 > 1.0, "{:?}", p.diff_ci);
        assert!(p.too_few.is_none());
        let text = p.sentence();
        assert!(!text.contains("0.0 to 0.0") && text.contains("points EX (95% CI -"), "{text}");
        // All right in both: the interval still has width.
        let all: Vec<Record> = ["a", "b"].iter().flat_map(|m| (0..46).map(move |i| record(m, i, true))).collect();
        let q = pair(&all, "a", "b");
        assert!(q.diff_ci.1 - q.diff_ci.0 > 1.0, "{:?}", q.diff_ci);
        let few: Vec<Record> = ["a", "b"].iter().flat_map(|m| (0..3).map(move |i| record(m, i, true))).collect();
        assert_eq!(
            pair(&few, "a", "b").too_few.as_deref(),
            Some("too few to estimate (3 questions; an interval needs 10)")
        );
    }

    #[test]
    fn numbers_read_cleanly() {
        assert_eq!(signed(-0.001, 2), "0.00");
        assert_eq!(signed(0.0, 1), "0.0");
        assert_eq!(signed(1.25, 1), "+1.2");
        assert_eq!(signed(-0.2, 2), "-0.20");
        assert_eq!(range(-0.2, -0.08, &|x| signed(x, 2)), "-0.20 to -0.08");
        assert_eq!(mib(3 * 1048576 + 524288), "3.5");
        assert_eq!(mib(3 * 1048576), "3.0");
    }
}
