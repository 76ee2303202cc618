//! A self-contained HTML report (no external files): with a reference, it opens with each
//! model's divergence (file size, bits per weight, the tensor types the file really holds, KLD
//! figures, top-1, Δp, perplexity ratio, first divergence, EX and its paired difference), KLD
//! against size, and a per-question KLD table that sorts by a click (the page's one script,
//! present only then); then summary and runs tables, SVG plots of EX by model and difficulty,
//! accuracy against file size and against seconds per question, the `ended_by` mix, and every
//! question with each model's SQL, whether it was right, and its episode trace one click away
//! (`<details>`, which needs no script).
//!
//! The figures are drawn with [`crate::plot`]'s pieces (the same module draws the service page's
//! charts). SVG text is laid out from an estimate of its width ([`text_width`], generous on purpose):
//! point labels are moved until they overlap neither each other nor other points, and nothing
//! is placed where it would be cut off. `tests/eval.rs` checks the result in Chromium.

use std::collections::HashMap;
use std::fmt::Write;

use super::report::{self, Summary};
use super::results::{Models, SummaryFile};
use super::Record;
use crate::agent::Episode;
use crate::divergence::report::{fig, DivergenceSummary, Stat};
use crate::plot::{color, esc, text_width, ticks};

/// Plot width and height, left margin (y ticks and title), bottom margin (x ticks and title).
const W: f64 = 640.0;
const H: f64 = 300.0;
const L: f64 = 50.0;
const B: f64 = 40.0;
/// Right edge of the plotting area.
const R: f64 = W - 20.0;
/// Top of the plotting area.
const T: f64 = 10.0;

/// A box in SVG user units.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// The box of `text` at `size` px, drawn at baseline `y` from `x` (`end`: ending at `x`).
    fn of_text(text: &str, size: f64, x: f64, y: f64, end: bool) -> Rect {
        let w = text_width(text, size);
        let x0 = if end { x - w } else { x };
        Rect { x0, y0: y - size, x1: x0 + w, y1: y + 0.3 * size }
    }
}

fn axes(title: &str, x_label: &str, y_label: &str) -> String {
    let mut s = format!(
        "<figure><figcaption>{}</figcaption><svg viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">",
        esc(title)
    );
    let _ = write!(s, "<line x1=\"{L}\" y1=\"{}\" x2=\"{R}\" y2=\"{}\" stroke=\"#333\"/>", H - B, H - B);
    let _ = write!(s, "<line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\" stroke=\"#333\"/>", H - B);
    for pct in [0, 25, 50, 75, 100] {
        let y = y_of(pct as f64);
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{pct}</text><line x1=\"{L}\" y1=\"{y}\" x2=\"{R}\" y2=\"{y}\" stroke=\"#eee\"/>", L - 4.0, y + 3.0);
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
        (L + R) / 2.0,
        H - 6.0,
        esc(x_label)
    );
    let _ = write!(
        s,
        "<text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        H / 2.0,
        H / 2.0,
        esc(y_label)
    );
    s
}

fn y_of(pct: f64) -> f64 {
    (H - B) - (H - B - T) * pct.clamp(0.0, 100.0) / 100.0
}

fn bars(summaries: &[Summary]) -> String {
    let mut groups: Vec<String> = vec!["all".into()];
    for m in summaries {
        for d in m.by_difficulty.keys() {
            if !groups.contains(d) {
                groups.push(d.clone());
            }
        }
    }
    let mut s = axes("Execution accuracy by model and difficulty (whiskers: 95% CI overall)", "difficulty", "EX %");
    let gw = (R - L) / groups.len() as f64;
    let bw = (gw - 10.0) / summaries.len().max(1) as f64;
    for (gi, g) in groups.iter().enumerate() {
        let gx = L + 10.0 + gi as f64 * gw;
        // Group names shrink to their slot rather than run into the next one.
        let size = (11.0f64).min(11.0 * (gw - 4.0) / text_width(g, 11.0).max(1.0)).max(6.0);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"{size:.1}\" text-anchor=\"middle\">{}</text>",
            gx + gw / 2.0 - 5.0,
            H - B + 14.0,
            esc(g)
        );
        for (mi, m) in summaries.iter().enumerate() {
            let (ex, ci) = if g == "all" {
                (m.ex, Some(m.ex_ci))
            } else {
                match m.by_difficulty.get(g) {
                    Some((c, n)) if *n > 0 => (100.0 * *c as f64 / *n as f64, None),
                    _ => continue,
                }
            };
            let x = gx + mi as f64 * bw;
            let y = y_of(ex);
            // 0% shows as a thin bar, unlike a model without questions of that difficulty.
            let (y, h) = if (H - B) - y < 2.0 { (H - B - 2.0, 2.0) } else { (y, (H - B) - y) };
            let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\"><title>{} ({}): {ex:.1}%</title></rect>", bw - 2.0, color(mi), esc(&m.model), esc(g));
            if let Some((lo, hi)) = ci {
                let cx = x + (bw - 2.0) / 2.0;
                let _ = write!(
                    s,
                    "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>",
                    y_of(lo),
                    y_of(hi)
                );
            }
        }
    }
    s.push_str("</svg>");
    s.push_str(&legend(summaries));
    s.push_str("</figure>");
    s
}

fn legend(summaries: &[Summary]) -> String {
    let mut s = String::from("<p class=\"legend\">");
    for (i, m) in summaries.iter().enumerate() {
        let _ = write!(s, "<span><i style=\"background:{}\"></i>{}</span> ", color(i), esc(&m.model));
    }
    s.push_str("</p>");
    s
}

/// Where each point's label goes: beside its point, else moved up or down (then joined to it by
/// a leader line) or to the other side, until it overlaps no label or point placed before and
/// stays inside the plot. Returns per point `(x, y baseline, anchored at its end)`.
fn place_labels(points: &[(f64, f64)], labels: &[String], size: f64) -> Vec<(f64, f64, bool)> {
    const RADIUS: f64 = 6.0;
    let mut taken: Vec<Rect> =
        points.iter().map(|&(x, y)| Rect { x0: x - RADIUS, y0: y - RADIUS, x1: x + RADIUS, y1: y + RADIUS }).collect();
    let bounds = Rect { x0: 2.0, y0: 2.0, x1: W - 2.0, y1: H - B - 2.0 };
    let inside = |r: &Rect| r.x0 >= bounds.x0 && r.x1 <= bounds.x1 && r.y0 >= bounds.y0 && r.y1 <= bounds.y1;
    // Top to bottom, so that labels of points sharing a place stack in order.
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].1.total_cmp(&points[b].1).then(points[a].0.total_cmp(&points[b].0)));
    let mut out = vec![(0.0, 0.0, false); points.len()];
    for i in order {
        let (px, py) = points[i];
        let own = taken[i];
        let mut chosen = None;
        'search: for k in 0..24 {
            let dy = (k as f64 / 2.0).ceil() * if k % 2 == 0 { 1.0 } else { -1.0 } * (size + 2.0);
            for end in [false, true] {
                let x = if end { px - RADIUS - 3.0 } else { px + RADIUS + 3.0 };
                let y = py + 0.35 * size + dy;
                let r = Rect::of_text(&labels[i], size, x, y, end);
                if inside(&r) && !taken.iter().any(|t| *t != own && t.overlaps(&r)) {
                    chosen = Some((x, y, end, r));
                    break 'search;
                }
            }
        }
        let (x, y, end, r) = chosen.unwrap_or_else(|| {
            let end = px + RADIUS + 3.0 + text_width(&labels[i], size) > bounds.x1;
            let x = if end { px - RADIUS - 3.0 } else { px + RADIUS + 3.0 };
            (x, py + 0.35 * size, end, Rect::of_text(&labels[i], size, x, py + 0.35 * size, end))
        });
        taken.push(r);
        out[i] = (x, y, end);
    }
    out
}

fn scatter(summaries: &[Summary], title: &str, x_label: &str, xs: &[Option<f64>]) -> String {
    if !xs.iter().flatten().any(|x| *x > 0.0) {
        return format!("<figure><figcaption>{}</figcaption><p>No data: scored predictions have no model file or timings.</p></figure>", esc(title));
    }
    let mut s = axes(title, x_label, "EX %");
    let (max, step, decimals) = ticks(xs.iter().flatten().copied().fold(0.0, f64::max));
    for k in 0..=(max / step).round() as usize {
        let v = k as f64 * step;
        let x = L + (R - L) * v / max;
        let _ = write!(
            s,
            "<text x=\"{x:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{v:.decimals$}</text>",
            H - B + 14.0
        );
    }
    let shown: Vec<(usize, f64)> = xs.iter().enumerate().filter_map(|(i, x)| x.map(|x| (i, x))).collect();
    let points: Vec<(f64, f64)> = shown.iter().map(|&(i, x)| (L + (R - L) * x / max, y_of(summaries[i].ex))).collect();
    let labels: Vec<String> = shown.iter().map(|&(i, _)| summaries[i].model.clone()).collect();
    let places = place_labels(&points, &labels, 10.0);
    for (k, (((i, x), (px, py)), (lx, ly, end))) in shown.iter().zip(&points).zip(&places).enumerate() {
        let m = &summaries[*i];
        // Points on the same spot are drawn smaller each, as rings, so every colour shows.
        let under = points[..k].iter().filter(|(qx, qy)| (qx - px).abs() < 3.0 && (qy - py).abs() < 3.0).count();
        let r = 6.0 * 0.7f64.powi(under as i32);
        let _ = write!(s, "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"{r:.1}\" fill=\"{}\" stroke=\"#fff\"><title>{}: {x:.2}, {:.1}%</title></circle>", color(*i), esc(&m.model), m.ex);
        if (ly - 3.5 - py).abs() > 6.0 {
            // Moved away from its point: join them.
            let _ = write!(
                s,
                "<line x1=\"{px:.1}\" y1=\"{py:.1}\" x2=\"{lx:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"0.8\"/>",
                ly - 3.5,
                color(*i)
            );
        }
        let anchor = if *end { " text-anchor=\"end\"" } else { "" };
        let _ = write!(s, "<text x=\"{lx:.1}\" y=\"{ly:.1}\" font-size=\"10\"{anchor}>{}</text>", esc(&m.model));
    }
    s.push_str("</svg></figure>");
    s
}

/// A legend of coloured swatches flowing from `(x, y)` (first baseline) and wrapping before
/// `right`; returns it and the height it reaches.
fn swatches(names: &[&String], x: f64, y: f64, right: f64) -> (String, f64) {
    let mut s = String::new();
    let (mut lx, mut ly) = (x, y);
    for (i, name) in names.iter().enumerate() {
        let item = 16.0 + text_width(name, 11.0) + 18.0;
        if lx > x && lx + item > right {
            lx = x;
            ly += 20.0;
        }
        let _ = write!(s, "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"11\">{}</text>", ly - 10.0, color(i), lx + 16.0, esc(name));
        lx += item;
    }
    (s, ly + 10.0)
}

fn ended_by(summaries: &[Summary]) -> String {
    let mut kinds: Vec<&String> = Vec::new();
    for m in summaries {
        for k in m.ended_by.keys() {
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
    }
    // Each model's name on a line of its own above its bar, so no name is cut to fit a margin.
    let widest = summaries.iter().map(|m| text_width(&m.model, 11.0)).fold(0.0, f64::max);
    let w = W.max(widest + 20.0);
    let (bar_x, bar_w, row) = (10.0, w - 30.0, 44.0);
    let mut s = String::new();
    let mut y = 0.0;
    for m in summaries {
        let _ = write!(s, "<text x=\"{bar_x}\" y=\"{:.1}\" font-size=\"11\">{}</text>", y + 13.0, esc(&m.model));
        let total: usize = m.ended_by.values().sum();
        let mut x = bar_x;
        for (ki, k) in kinds.iter().enumerate() {
            let n = *m.ended_by.get(*k).unwrap_or(&0);
            if n == 0 || total == 0 {
                continue;
            }
            let seg = bar_w * n as f64 / total as f64;
            let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{seg:.1}\" height=\"20\" fill=\"{}\"><title>{}: {n} of {total}</title></rect>", y + 18.0, color(ki), esc(k));
            let count = n.to_string();
            if text_width(&count, 10.0) + 6.0 < seg {
                let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#fff\" text-anchor=\"middle\">{count}</text>", x + seg / 2.0, y + 32.0);
            }
            x += seg;
        }
        y += row;
    }
    let (legend, h) = swatches(&kinds, bar_x, y + 14.0, w - 10.0);
    s.push_str(&legend);
    format!("<figure><figcaption>How episodes ended (count of episodes by model)</figcaption><svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\">{s}</svg></figure>")
}

fn table(summaries: &[Summary]) -> String {
    let mut s = String::from("<table><tr><th>model</th><th>n</th><th>EX %</th><th>95% CI</th><th>reward</th><th>F1</th><th>tool calls</th><th>turns</th><th>gold tables opened %</th><th>literals seen %</th><th>tokens decoded</th><th>generated</th><th>s / episode</th><th>gen tok/s</th><th>gold failed</th></tr>");
    for (i, m) in summaries.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}</td><td>{}</td><td>{:.1}</td><td>{:.1} to {:.1}</td><td>{:.2}</td><td>{:.2}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.0}</td><td>{:.0}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            color(i), esc(&m.model), m.n, m.ex, m.ex_ci.0, m.ex_ci.1, m.mean_reward, m.mean_f1, m.tool_calls_per_episode, m.turns_per_episode,
            m.opened_all_gold_tables, m.gold_literals_seen, m.decoded_tokens_per_episode, m.generated_tokens_per_episode,
            m.seconds_per_episode, m.generated_tokens_per_second, m.gold_failed
        );
    }
    s.push_str("</table>");
    s
}

/// Each paired comparison in words, the questions they disagree on linked to their rows.
fn pairs(summary: &SummaryFile) -> String {
    let mut s = String::new();
    for p in &summary.paired {
        let agreement = if p.disagreements.is_empty() {
            esc(&p.agreement())
        } else {
            let links: Vec<String> = p
                .disagreements
                .iter()
                .map(|(id, ..)| format!("<a href=\"#{}\">{}</a>", question_anchor(id), esc(id)))
                .collect();
            format!("they disagree on {}: {}", p.disagreements.len(), links.join(", "))
        };
        let interval = match report::too_few_questions(p.n) {
            Some(why) => format!("interval {}", esc(&why)),
            None => format!("95% CI {}", report::range(p.diff_ci.0, p.diff_ci.1, &|x| report::signed(x, 1))),
        };
        let _ = write!(
            s,
            "<p>{} − {}: <b>{}</b> points EX ({interval}) on {} common questions; {agreement}</p>",
            esc(&p.b),
            esc(&p.a),
            report::signed(p.diff, 1),
            p.n
        );
    }
    s
}

/// The runs table: file size, parameters, and each model's last run (speed, memory).
fn runs(summary: &SummaryFile) -> String {
    let rows: Vec<(usize, [String; 10])> = summary
        .models
        .iter()
        .enumerate()
        .filter_map(|(i, m)| report::run_cells(&summary.runs, m).map(|c| (i, c)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Runs</h2><table><tr><th>model</th>");
    for c in report::RUN_COLUMNS {
        let _ = write!(s, "<th>{}</th>", esc(c));
    }
    s.push_str("</tr>");
    for (i, cells) in rows {
        let _ = write!(
            s,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}</td>",
            color(i),
            esc(&summary.models[i].model)
        );
        for c in cells {
            let _ = write!(s, "<td>{}</td>", esc(&c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table><p class=\"note\">Speed and memory are over every run that played each model's episodes into this folder: a run stopped and resumed counts both, their episodes and seconds summed, its memory the higher.</p>");
    for w in report::load_warnings(&summary.runs, &summary.models) {
        let _ = write!(s, "<p class=\"warn\">Warning: {}.</p>", esc(&w));
    }
    let settings = report::settings_lines(&summary.runs, &summary.models);
    if !settings.is_empty() {
        s.push_str("<p class=\"note\">Settings of the episodes:</p><ul class=\"note\">");
        for line in settings {
            let _ = write!(s, "<li>{}</li>", esc(&line));
        }
        s.push_str("</ul>");
    }
    s
}

/// The pairwise table: files compared with each other ([`super::compare`]).
fn pairwise(summary: &SummaryFile) -> String {
    if summary.pairwise.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Files compared with each other</h2><p class=\"note\">b against a, on the questions both answered (EX: paired difference, Newcombe's 95% interval) and both were measured on (mean KLD: 95% bootstrap interval over questions).</p><table class=\"pairwise\"><tr><th>a</th><th>b</th><th>why</th><th>EX b − a</th><th>mean KLD a → b: b − a</th></tr>");
    for p in &summary.pairwise {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&p.a),
            esc(&p.b),
            esc(&p.why),
            esc(&p.ex_cell()),
            esc(&p.kld_cell())
        );
    }
    s.push_str("</table>");
    s
}

/// llama-perplexity's `--kl-divergence` table: a row per statistic, a column per model.
fn perplexity_table(d: &[DivergenceSummary]) -> String {
    let with: Vec<(&str, &crate::divergence::report::PerplexityTable)> =
        d.iter().filter_map(|m| m.table.as_ref().map(|t| (m.model.as_str(), t))).collect();
    if with.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h3>As llama-perplexity --kl-divergence reports it</h3><p class=\"note\">On the same teacher-forced tokens; Δp in points; percentiles interpolated as llama-perplexity does.</p><table class=\"perplexity\"><tr><th>statistic</th>");
    for (m, _) in &with {
        let _ = write!(s, "<th>{}</th>", esc(m));
    }
    s.push_str("</tr>");
    let tables: Vec<&crate::divergence::report::PerplexityTable> = with.iter().map(|(_, t)| *t).collect();
    for (name, cells) in crate::divergence::report::perplexity_rows(&tables) {
        let _ = write!(s, "<tr><td>{}</td>", esc(&name));
        for c in cells {
            let _ = write!(s, "<td>{}</td>", esc(&c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    s
}

/// What the reports left out of the folder, and why.
fn notes(summary: &SummaryFile) -> String {
    if summary.notes.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Left out</h2><ul class=\"warn\">");
    for n in &summary.notes {
        let _ = write!(s, "<li>{}</li>", esc(n));
    }
    s.push_str("</ul>");
    s
}

/// The `id` attribute of a question's row.
fn question_anchor(id: &str) -> String {
    let safe: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    format!("q-{safe}")
}

/// Tool results longer than this are cut in the report (the whole text is in `episodes.jsonl`).
const RESULT_CHARS: usize = 2_000;

fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => esc(text),
        Some((cut, _)) => format!(
            "{}<span class=\"cut\">… {} more characters in episodes.jsonl</span>",
            esc(&text[..cut]),
            text[cut..].chars().count()
        ),
    }
}

/// An episode, turn by turn: what the model wrote, each tool call and what it returned.
fn trace(e: &Episode) -> String {
    let mut s = format!(
        "<details><summary>episode trace: {} turn{}, {} tool call{}, {} tokens decoded, {:.1} s</summary><div class=\"trace\">",
        e.turns.len(),
        if e.turns.len() == 1 { "" } else { "s" },
        e.tool_calls,
        if e.tool_calls == 1 { "" } else { "s" },
        e.tokens.decoded_tokens,
        e.seconds
    );
    for t in &e.turns {
        let finish = match t.finish {
            crate::generate::Finish::Stop => "stop",
            crate::generate::Finish::Length => "token limit",
        };
        let _ = write!(
            s,
            "<div class=\"turn\"><div class=\"head\">turn {}{} · {} tokens · {finish} · {:.1} s</div><pre>{}</pre>",
            t.index,
            if t.final_turn { " (final answer)" } else { "" },
            t.tokens,
            t.seconds,
            esc(&t.completion)
        );
        for c in &t.calls {
            let args = if c.args.is_null() { String::new() } else { c.args.to_string() };
            let _ = write!(
                s,
                "<div class=\"call {}\"><code>{}({})</code> {}<pre>{}</pre></div>",
                if c.ok { "ok" } else { "bad" },
                esc(&c.tool),
                esc(&args),
                if c.ok { "→" } else { "→ error" },
                clip(&c.result, RESULT_CHARS)
            );
        }
        s.push_str("</div>");
    }
    let opened = if e.tables_opened.is_empty() { "none".to_string() } else { e.tables_opened.join(", ") };
    let _ = write!(
        s,
        "<p class=\"note\">ended by {}; tables opened: {}</p></div></details>",
        esc(e.ended_by.as_str()),
        esc(&opened)
    );
    s
}

/// One model's answer to one question.
fn answer(r: Option<&Record>) -> String {
    let Some(r) = r else {
        return "<td class=\"none\">not run</td>".into();
    };
    if !r.gold_ok {
        return format!("<td class=\"none\">gold query failed: {}</td>", esc(r.gold_error.as_deref().unwrap_or("")));
    }
    if let Some(e) = &r.error {
        return format!("<td class=\"none\">failed on the server (not scored): {}</td>", esc(e));
    }
    let (class, mark) = if r.correct { ("right", "✓ right") } else { ("wrong", "✗ wrong") };
    let mut s = format!("<td class=\"{class}\"><span class=\"mark\">{mark}</span>");
    let mut facts = Vec::new();
    if !r.correct && r.executed {
        facts.push(format!("ran, F1 {:.2}", r.f1));
    } else if !r.correct && r.sql.is_some() {
        facts.push("did not run".to_string());
    }
    if let Some(e) = &r.ended_by {
        facts.push(format!("ended by {e}"));
    }
    if !facts.is_empty() {
        let _ = write!(s, " <small>{}</small>", esc(&facts.join(" · ")));
    }
    match &r.sql {
        Some(sql) => {
            let _ = write!(s, "<pre class=\"sql\">{}</pre>", esc(sql));
        }
        None => s.push_str("<p><em>no SQL</em></p>"),
    }
    if let Some(e) = &r.episode {
        s.push_str(&trace(e));
    }
    s.push_str("</td>");
    s
}

/// One question's row: id, difficulty, text, evidence and gold SQL, then each model's answer.
fn question_row(id: &str, rs: &[Option<&Record>]) -> String {
    let any = rs.iter().flatten().next().copied();
    let marks: Vec<bool> = rs.iter().flatten().filter(|r| r.gold_ok && r.error.is_none()).map(|r| r.correct).collect();
    let differ = marks.iter().any(|&c| c) && marks.iter().any(|&c| !c);
    let episode = rs.iter().flatten().find_map(|r| r.episode.as_ref());
    let text = any.and_then(|r| r.question.clone()).or_else(|| episode.map(|e| e.question.clone()));
    let mut s = format!(
        "<tr id=\"{}\"{}><td class=\"q\"><b>{}</b>",
        question_anchor(id),
        if differ { " class=\"differ\"" } else { "" },
        esc(id)
    );
    if differ {
        s.push_str(" <span class=\"mark\">≠</span>");
    }
    if let Some(d) = any.and_then(|r| r.difficulty.as_deref()) {
        let _ = write!(s, " <small>{}</small>", esc(d));
    }
    if let Some(t) = text {
        let _ = write!(s, "<p>{}</p>", esc(&t));
    }
    if let Some(ev) = episode.and_then(|e| e.evidence.as_deref()) {
        let _ = write!(s, "<p class=\"note\"><b>evidence</b> {}</p>", esc(ev));
    }
    if let Some(g) = any.and_then(|r| r.gold_sql.as_deref()) {
        let _ = write!(s, "<div class=\"note\">gold</div><pre class=\"sql gold\">{}</pre>", esc(g));
    }
    s.push_str("</td>");
    for r in rs {
        s.push_str(&answer(*r));
    }
    s.push_str("</tr>");
    s
}

/// Every question: its text and gold SQL, then each model's SQL, mark and trace. Questions
/// where the models disagree are marked and listed in the comparison above.
fn questions(summaries: &[Summary], records: &[Record]) -> String {
    let mut ids: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut by: HashMap<(&str, &str), &Record> = HashMap::new();
    for r in records {
        if seen.insert(r.id.as_str()) {
            ids.push(&r.id);
        }
        by.entry((r.model.as_str(), r.id.as_str())).or_insert(r);
    }
    let mut s = String::from(
        "<h2>Questions</h2><p class=\"note\">Each model's SQL and whether its result matched the gold query's; open a trace for the \
         whole episode. Rows where the models disagree are marked ≠.</p><table class=\"questions\"><tr><th>question</th>",
    );
    for (i, m) in summaries.iter().enumerate() {
        let _ = write!(s, "<th><i class=\"dot\" style=\"background:{}\"></i>{}</th>", color(i), esc(&m.model));
    }
    s.push_str("</tr>");
    for id in ids {
        let rs: Vec<Option<&Record>> = summaries.iter().map(|m| by.get(&(m.model.as_str(), id)).copied()).collect();
        s.push_str(&question_row(id, &rs));
    }
    s.push_str("</table>");
    s
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222} table{border-collapse:collapse;font-size:13px} \
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top} td:first-child,th:first-child{text-align:left;white-space:nowrap} \
figure{margin:1.5em 0} figcaption{font-weight:600;margin-bottom:.4em} .legend i,.dot{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px} \
.legend span{margin-right:1em;font-size:13px} .note{color:#555;font-size:13px} \
table.questions td,table.questions th{text-align:left;max-width:34em} table.questions td.q{max-width:24em} pre.gold{background:#fff8e6} \
td.right .mark{color:#1a7f37;font-weight:600} td.wrong .mark{color:#c62828;font-weight:600} td.none{color:#777} \
tr.differ td.q{border-left:4px solid #f28e2b} tr.differ .q .mark{color:#f28e2b} \
pre{white-space:pre-wrap;word-break:break-word;margin:.3em 0;font-size:12px} pre.sql{background:#f6f8fa;padding:4px} \
details summary{cursor:pointer;color:#0550ae;font-size:12px} .trace{border-left:2px solid #ddd;padding-left:8px;margin:.3em 0} \
.turn .head{font-size:12px;color:#555;margin-top:.4em} .turn>pre{max-height:24em;overflow:auto} .call{font-size:12px} .call pre{background:#fafafa;max-height:16em;overflow:auto} \
.call.bad code{color:#c62828} .cut{color:#777;font-style:italic} h2{margin-top:1.6em} \
table.questions td{overflow-wrap:anywhere} table.questions .note{overflow-wrap:anywhere} \
table.divergence{font-size:12px} table.divergence td,table.divergence th{padding:2px 4px} \
table.divergence td.types{min-width:9em;max-width:15em;text-align:left;font-size:11px} \
table.divergence small{display:inline-block;max-width:7.5em;line-height:1.15;white-space:normal} \
table.divergence td.types small{max-width:none} table.divergence small,table.sortable small{color:#555} \
small.few{color:#8a5a00} small.warn{color:#b3261e} p.warn,ul.warn{color:#b3261e;max-width:60em} \
table.pairwise td,table.pairwise th{text-align:left;font-size:12px} \
.guide{font-size:14px;background:#f6f8fa;border-left:4px solid #4e79a7;padding:4px 8px;max-width:60em} \
table.sortable th{cursor:pointer} table.sortable th[data-dir=asc]::after{content:' ▲'} table.sortable th[data-dir=desc]::after{content:' ▼'}";

/// A model's colour: its place among the played models, else (a model measured with
/// `--kld-only`) after them, by its place in the divergence summaries.
fn model_colour(summary: &SummaryFile, model: &str) -> &'static str {
    match summary.models.iter().position(|m| m.model == model) {
        Some(i) => color(i),
        None => color(summary.models.len() + summary.divergence.iter().position(|m| m.model == model).unwrap_or(0)),
    }
}

/// A divergence figure and its interval as a table cell, or `too few to estimate` in place of
/// the interval where the sample does not support one; `data-v` holds the value for sorting.
fn stat_cell(d: &DivergenceSummary, key: &str, stat: &Stat, f: &dyn Fn(f64) -> String) -> String {
    if d.model == d.reference {
        // The reference against itself: 0 (or 1) by construction, the check; no interval.
        return format!("<td data-v=\"{}\">{}</td>", stat.value, esc(&f(stat.value)));
    }
    let under = match d.too_few.get(key) {
        Some(why) => format!("<small class=\"few\" title=\"{}\">too few to estimate</small>", esc(why)),
        None => format!("<small>[{} to {}]</small>", esc(&f(stat.ci.0)), esc(&f(stat.ci.1))),
    };
    format!("<td data-v=\"{}\">{}<br>{under}</td>", stat.value, esc(&f(stat.value)))
}

/// The table the page opens with when the run had a reference: per model, its file (size, bits
/// per weight, the tensor types it really holds), its divergence (mean, median, p99 and max KLD,
/// top-1 agreement, mean and RMS Δp, perplexity ratio, where it first parts per turn) and its EX
/// with the paired difference from the reference.
fn divergence_table(summary: &SummaryFile) -> String {
    let d = &summary.divergence;
    let colour = |model: &str| model_colour(summary, model);
    let mut s = String::from(
        "<table class=\"divergence\"><thead><tr><th>model</th><th>file MiB</th><th>bits / weight</th><th>tensor types (count)</th>\
         <th>mean KLD</th><th>median KLD</th><th>p99 KLD</th><th>max KLD</th><th>top-1 %</th><th>mean Δp %</th><th>RMS Δp %</th>\
         <th>PPL ratio</th><th>first divergence (turns)</th><th>EX %</th><th>EX − reference</th></tr></thead><tbody>",
    );
    let pct = |x: f64| report::signed(100.0 * x, 2);
    let rms = |x: f64| format!("{:.2}", 100.0 * x);
    for m in d {
        let entry = summary.runs.get(&m.model);
        let _ = write!(
            s,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}{}</td>",
            colour(&m.model),
            esc(&m.model),
            if m.model == m.reference { " <small>(reference)</small>" } else { "" }
        );
        match entry {
            Some(e) if e.bytes > 0 => {
                let _ = write!(s, "<td>{}</td>", report::mib(e.bytes));
            }
            _ => s.push_str("<td>–</td>"),
        }
        match entry.and_then(|e| e.bits_per_weight()) {
            Some(b) => {
                let _ = write!(s, "<td>{b:.2}</td>");
            }
            None => s.push_str("<td>–</td>"),
        }
        let mix = entry.map(|e| e.mix_text()).unwrap_or_default();
        let mut types = if mix.is_empty() { "–".to_string() } else { esc(&mix) };
        if let Some(f) = entry.and_then(|e| e.fallback.as_ref()) {
            let _ = write!(types, "<br><small class=\"warn\">fallback: {}</small>", esc(&f.sentence()));
        }
        if let Some(im) = entry.and_then(|e| e.imatrix.as_deref()) {
            let _ = write!(types, "<br><small>importance matrix {}</small>", esc(im));
        }
        let _ = write!(s, "<td class=\"types\">{types}</td>");
        s.push_str(&stat_cell(m, "mean_kld", &m.mean_kld, &fig));
        s.push_str(&stat_cell(m, "median_kld", &m.median_kld, &fig));
        s.push_str(&stat_cell(m, "p99_kld", &m.p99_kld, &fig));
        let _ = write!(s, "<td data-v=\"{}\">{}</td>", m.max_kld, fig(m.max_kld));
        s.push_str(&stat_cell(m, "top1", &m.top1, &|x| format!("{x:.2}")));
        s.push_str(&stat_cell(m, "mean_dp", &m.mean_dp, &pct));
        s.push_str(&stat_cell(m, "rms_dp", &m.rms_dp, &rms));
        s.push_str(&stat_cell(m, "ppl_ratio", &m.ppl_ratio, &|x| format!("{x:.4}")));
        let turns: usize = m.first_divergence.values().sum();
        let parts: Vec<String> = ["same", "thinking", "tool call", "sql", "answer"]
            .iter()
            .filter_map(|k| m.first_divergence.get(*k).filter(|n| **n > 0).map(|n| format!("{n} {k}")))
            .collect();
        let _ = write!(s, "<td class=\"types\">{turns} turns: {}</td>", esc(&parts.join(", ")));
        match summary.models.iter().find(|x| x.model == m.model) {
            Some(x) => {
                let _ = write!(s, "<td>{:.1}<br><small>{} of {}</small></td>", x.ex, x.correct, x.n);
            }
            None => s.push_str("<td>–<br><small>not played</small></td>"),
        }
        let paired = summary.paired.iter().find(|p| p.b == m.model && p.a == m.reference);
        match paired {
            Some(p) => {
                let interval = match report::too_few_questions(p.n) {
                    Some(why) => format!("<small class=\"few\" title=\"{}\">too few to estimate</small>", esc(&why)),
                    None => format!(
                        "<small>[{}]</small>",
                        report::range(p.diff_ci.0, p.diff_ci.1, &|x| report::signed(x, 1))
                    ),
                };
                let _ = write!(s, "<td>{} points<br>{interval}</td>", report::signed(p.diff, 1));
            }
            None => s.push_str("<td>–</td>"),
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// Mean KLD against file size (MiB), with each model's 95% interval as a whisker; files
/// quantised with an importance matrix are diamonds.
fn kld_against_size(summary: &SummaryFile) -> String {
    // The reference (0 by construction) is left out: its full-precision size would squeeze the
    // quantisations into a corner.
    let d: Vec<DivergenceSummary> = summary.divergence.iter().filter(|m| m.model != m.reference).cloned().collect();
    let colour = |model: &str| model_colour(summary, model);
    let mib: Vec<Option<f64>> = d
        .iter()
        .map(|m| summary.runs.get(&m.model).filter(|e| e.bytes > 0).map(|e| e.bytes as f64 / 1048576.0))
        .collect();
    if mib.iter().all(Option::is_none) {
        return String::new();
    }
    let mut s = format!(
        "<figure><figcaption>Mean KLD against file size (whiskers: 95% interval, where the sample supports one; the reference, 0 by construction, left out)</figcaption><svg viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">"
    );
    let (xmax, xstep, xdec) = ticks(mib.iter().flatten().copied().fold(0.0, f64::max));
    // A whisker only where the table shows the interval (not `too few to estimate`).
    let whisker = |m: &DivergenceSummary| (!m.too_few.contains_key("mean_kld")).then_some(m.mean_kld.ci);
    let top = |m: &DivergenceSummary| whisker(m).map_or(m.mean_kld.value, |ci| ci.1.max(m.mean_kld.value));
    let (ymax, ystep, ydec) = ticks(d.iter().map(top).fold(0.0, f64::max));
    let px = |x: f64| L + (R - L) * x / xmax;
    let py = |y: f64| (H - B) - (H - B - T) * y / ymax;
    let _ = write!(s, "<line x1=\"{L}\" y1=\"{}\" x2=\"{R}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\" stroke=\"#333\"/>", H - B, H - B, H - B);
    for k in 0..=(xmax / xstep).round() as usize {
        let v = k as f64 * xstep;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{v:.xdec$}</text>",
            px(v),
            H - B + 14.0
        );
    }
    for k in 0..=(ymax / ystep).round() as usize {
        let v = k as f64 * ystep;
        let y = py(v);
        let _ = write!(s, "<text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{v:.ydec$}</text><line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{R}\" y2=\"{y:.1}\" stroke=\"#eee\"/>", L - 4.0, y + 3.0);
    }
    let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">GGUF size (MiB)</text><text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">mean KLD (nats)</text>", (L + R) / 2.0, H - 6.0, H / 2.0, H / 2.0);
    let shown: Vec<(usize, f64)> = mib.iter().enumerate().filter_map(|(i, x)| x.map(|x| (i, x))).collect();
    let points: Vec<(f64, f64)> = shown.iter().map(|&(i, x)| (px(x), py(d[i].mean_kld.value))).collect();
    let labels: Vec<String> = shown.iter().map(|&(i, _)| d[i].model.clone()).collect();
    for ((&(i, x), &(cx, cy)), (lx, ly, end)) in shown.iter().zip(&points).zip(place_labels(&points, &labels, 10.0)) {
        let m = &d[i];
        let c = colour(&m.model);
        if let Some((lo, hi)) = whisker(m) {
            let _ = write!(
                s,
                "<line class=\"whisker\" x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"{c}\"/>",
                py(lo),
                py(hi)
            );
        }
        let entry = summary.runs.get(&m.model);
        let kind = entry.and_then(|e| e.type_label()).map(|w| format!(", {w}")).unwrap_or_default();
        let title = format!("{}: {x:.1} MiB{kind}, mean KLD {}", m.model, fig(m.mean_kld.value));
        match entry.and_then(|e| e.imatrix.as_deref()) {
            // A file quantised with an importance matrix is a diamond.
            Some(imatrix) => {
                let _ = write!(
                    s,
                    "<polygon points=\"{cx:.1},{:.1} {:.1},{cy:.1} {cx:.1},{:.1} {:.1},{cy:.1}\" fill=\"{c}\" stroke=\"#fff\"><title>{}, importance matrix {}</title></polygon>",
                    cy - 6.5,
                    cx + 6.5,
                    cy + 6.5,
                    cx - 6.5,
                    esc(&title),
                    esc(imatrix)
                );
            }
            None => {
                let _ = write!(s, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"5\" fill=\"{c}\" stroke=\"#fff\"><title>{}</title></circle>", esc(&title));
            }
        }
        let anchor = if end { " text-anchor=\"end\"" } else { "" };
        let _ = write!(s, "<text x=\"{lx:.1}\" y=\"{ly:.1}\" font-size=\"10\"{anchor}>{}</text>", esc(&m.model));
    }
    s.push_str("</svg></figure>");
    let weighed: Vec<String> = d
        .iter()
        .filter_map(|m| Some(format!("{} ({})", m.model, summary.runs.get(&m.model)?.imatrix.as_deref()?)))
        .collect();
    if !weighed.is_empty() {
        let _ = write!(
            s,
            "<p class=\"note\">Diamonds: quantised with an importance matrix: {}. Circles: without one.</p>",
            esc(&weighed.join("; "))
        );
    }
    s
}

/// Per question, each model's mean KLD and top-1 agreement, in a table that sorts by a click on
/// a column's head (the page's one script), the worst question of each model first a click
/// away.
fn kld_by_question(summary: &SummaryFile) -> String {
    let d: Vec<&DivergenceSummary> = summary.divergence.iter().filter(|m| m.model != m.reference).collect();
    if d.is_empty() {
        return String::new();
    }
    let mut ids: Vec<&str> = Vec::new();
    for m in &d {
        for q in &m.by_question {
            if !ids.contains(&q.id.as_str()) {
                ids.push(&q.id);
            }
        }
    }
    let mut s = String::from(
        "<h3>Divergence per question</h3><p class=\"note\">Mean KLD and top-1 agreement over each question's generated tokens; \
         click a column's head to sort by it (again to reverse).</p><table class=\"sortable\"><thead><tr><th>question</th>",
    );
    for m in &d {
        let _ = write!(s, "<th>{} mean KLD</th><th>{} top-1 %</th>", esc(&m.model), esc(&m.model));
    }
    s.push_str("</tr></thead><tbody>");
    for id in ids {
        let _ = write!(s, "<tr><td data-v=\"{0}\"><a href=\"#{1}\">{0}</a></td>", esc(id), question_anchor(id));
        for m in &d {
            match m.by_question.iter().find(|q| q.id == id) {
                Some(q) => {
                    let _ = write!(
                        s,
                        "<td data-v=\"{}\">{}</td><td data-v=\"{}\">{:.1}</td>",
                        q.mean_kld,
                        fig(q.mean_kld),
                        q.top1,
                        q.top1
                    );
                }
                None => s.push_str("<td data-v=\"\">–</td><td data-v=\"\">–</td>"),
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// The one script of the page: a click on a head of a `table.sortable` sorts its rows by that
/// column (numbers as numbers, by each cell's `data-v`), a second click reverses.
const SORT_SCRIPT: &str = "<script>document.querySelectorAll('table.sortable').forEach(function(t){\
t.querySelectorAll('thead th').forEach(function(th,i){th.title='sort';th.addEventListener('click',function(){\
var asc=th.getAttribute('data-dir')!=='asc';t.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('data-dir');});\
th.setAttribute('data-dir',asc?'asc':'desc');var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\
rows.sort(function(x,y){var a=x.cells[i].getAttribute('data-v'),c=y.cells[i].getAttribute('data-v');\
if(a===''&&c!=='')return 1;if(c===''&&a!=='')return -1;var na=parseFloat(a),nc=parseFloat(c);\
var r=(isNaN(na)||isNaN(nc))?String(a).localeCompare(String(c)):na-nc;return asc?r:-r;});\
rows.forEach(function(r){b.appendChild(r);});});});});</script>";

/// The section the page opens with when the run had a reference: the divergence table, what a
/// KLD means in this run, KLD against size, and per-question divergence; then the distribution
/// of per-token KLD and the questions each measure needs. Empty without a reference.
fn divergence(summary: &SummaryFile) -> String {
    let d = &summary.divergence;
    let Some(first) = d.first() else { return String::new() };
    let colour = |model: &str| model_colour(summary, model);
    let mut s = format!(
        "<h2>Divergence from the reference {}</h2><p class=\"note\">Teacher-forced along the reference's own episodes; per generated \
         token: KL divergence (reference ‖ model, nats), whether the most probable token is the reference's (top-1), and Δp, the \
         change in the probability of the reference's token; PPL ratio: the model's perplexity over the reference's on those \
         tokens. [95% bootstrap interval over questions.] File MiB are 2<sup>20</sup> bytes.</p>",
        esc(&first.reference)
    );
    s.push_str(&divergence_table(summary));
    let reasons = crate::divergence::report::left_out(d);
    if !reasons.is_empty() {
        let _ = write!(
            s,
            "<p class=\"note\">Intervals are shown from {} questions on, and a percentile's from {} tokens past it; left out here: {}.</p>",
            report::MIN_QUESTIONS,
            crate::divergence::report::MIN_TAIL_TOKENS,
            esc(&reasons.join("; "))
        );
    }
    if let Some(g) = crate::divergence::report::kld_guidance(d) {
        let _ = write!(s, "<p class=\"guide\">{}</p>", esc(&g));
    }
    s.push_str(&kld_against_size(summary));
    s.push_str(&kld_by_question(summary));
    // The distribution of per-token KLD: share of tokens per half decade.
    let edges = crate::divergence::report::histogram_edges();
    let bins = edges.len() - 1;
    let h2 = H + 40.0;
    let _ = write!(s, "<figure><figcaption>Per-token KLD: share of tokens in each half decade (the first bin holds everything below 10⁻⁶, 0 included)</figcaption><svg viewBox=\"0 0 {W} {h2}\" width=\"{W}\" height=\"{h2}\" role=\"img\">");
    let bx = |k: f64| L + (R - L) * (k + 0.5) / bins as f64;
    let _ = write!(s, "<line x1=\"{L}\" y1=\"{}\" x2=\"{R}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\" stroke=\"#333\"/>", H - B, H - B, H - B);
    for pct in [0, 25, 50, 75, 100] {
        let y = y_of(pct as f64);
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{pct}%</text><line x1=\"{L}\" y1=\"{y}\" x2=\"{R}\" y2=\"{y}\" stroke=\"#eee\"/>", L - 4.0, y + 3.0);
    }
    for (k, e) in edges.iter().enumerate().step_by(2) {
        let x = L + (R - L) * k as f64 / bins as f64;
        let _ = write!(
            s,
            "<text x=\"{x:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">1e{:.0}</text>",
            H - B + 14.0,
            e.log10()
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">KLD of a token (nats, log scale)</text>",
        (L + R) / 2.0,
        H - 10.0
    );
    for m in d {
        let total = m.histogram.iter().sum::<usize>().max(1) as f64;
        let pts: Vec<String> = m
            .histogram
            .iter()
            .enumerate()
            .map(|(k, &n)| format!("{:.1},{:.1}", bx(k as f64), y_of(100.0 * n as f64 / total)))
            .collect();
        let _ = write!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title></polyline>",
            pts.join(" "),
            colour(&m.model),
            esc(&m.model)
        );
    }
    let names: Vec<&String> = d.iter().map(|m| &m.model).collect();
    let (legend, _) = swatches(&names, L, H + 4.0, R);
    // The swatches number colours by position; recolour them by model.
    let mut legend = legend;
    for (i, m) in d.iter().enumerate() {
        legend = legend.replacen(
            &format!("fill=\"{}\"", color(i)),
            &format!("fill=\"{}\" data-m=\"\"", colour(&m.model)),
            1,
        );
    }
    s.push_str(&legend.replace(" data-m=\"\"", ""));
    s.push_str("</svg></figure>");
    s.push_str(&perplexity_table(d));
    // The questions each measure needs, and the figures per place in the turn.
    s.push_str("<h3>Questions needed to tell each model from the reference</h3><p class=\"note\">The questions at which a measure's 95% interval would exclude no difference, from the intervals seen (they narrow as 1/√n); –: no difference seen.</p><table><tr><th>model</th><th>mean KLD</th><th>top-1</th><th>EX (paired)</th></tr>");
    for m in d {
        let [kld, top1, ex] = m.needed_cells();
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&m.model),
            esc(&kld),
            esc(&top1),
            esc(&ex)
        );
    }
    s.push_str("</table><h3>By place in the turn</h3><table><tr><th>model</th><th>place</th><th>tokens</th><th>mean KLD</th><th>top-1 %</th></tr>");
    for m in d {
        for p in &m.by_place {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td></tr>",
                esc(&m.model),
                p.place.as_str(),
                p.tokens,
                fig(p.mean_kld),
                p.top1
            );
        }
    }
    s.push_str("</table>");
    for m in d {
        for (why, n) in &m.skipped {
            let _ = write!(s, "<p class=\"note\">{}: {n} question(s) not measured: {}</p>", esc(&m.model), esc(why));
        }
    }
    s
}

/// The report of a results folder: its summary and records.
pub fn report(summary: &SummaryFile, records: &[Record]) -> String {
    let models: &Models = &summary.runs;
    let mib: Vec<Option<f64>> = summary
        .models
        .iter()
        .map(|m| models.get(&m.model).filter(|e| e.bytes > 0).map(|e| e.bytes as f64 / 1048576.0))
        .collect();
    let secs: Vec<Option<f64>> = summary.models.iter().map(|m| Some(m.seconds_per_episode)).collect();
    let questions_n = {
        let mut ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    };
    // With a reference, the page answers "which quantisation is worse, and by how much" first.
    let divergence = divergence(summary);
    let (ex_head, script) = if divergence.is_empty() { ("", "") } else { ("<h2>Execution accuracy</h2>", SORT_SCRIPT) };
    let models_n = summary.models.len().max(summary.divergence.len());
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>sqale evaluation</title><style>{STYLE}</style></head><body>\
         <h1>sqale evaluation</h1><p class=\"note\">{models_n} model{}, {questions_n} question{}.</p>{}{divergence}{}{ex_head}{}{}{}{}{}{}{}{}{script}</body></html>\n",
        if models_n == 1 { "" } else { "s" },
        if questions_n == 1 { "" } else { "s" },
        notes(summary),
        pairwise(summary),
        table(&summary.models),
        pairs(summary),
        runs(summary),
        bars(&summary.models),
        scatter(&summary.models, "Accuracy against file size", "GGUF size (MiB)", &mib),
        scatter(&summary.models, "Accuracy against seconds per question", "seconds per episode", &secs),
        ended_by(&summary.models),
        questions(&summary.models, records)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_one_place_stack_without_overlap() {
        let labels: Vec<String> = vec![
            "SmolLM2-135M-Instruct.Q4_1.gguf".into(),
            "SmolLM2-135M-Instruct-copy.Q4_1.gguf".into(),
            "third".into(),
        ];
        let points = [(600.0, 100.0), (600.0, 100.0), (60.0, 255.0)];
        let places = place_labels(&points, &labels, 10.0);
        let rects: Vec<Rect> =
            places.iter().zip(&labels).map(|((x, y, end), l)| Rect::of_text(l, 10.0, *x, *y, *end)).collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.x0 >= 0.0 && a.x1 <= W && a.y0 >= 0.0 && a.y1 <= H - B, "label {i} inside: {a:?}");
            for b in &rects[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} {b:?}");
            }
        }
        assert!(places[0].2 && places[1].2, "labels near the right edge go left of their point");
    }

    /// A summary of two quantisations of one reference, the second with `too_few` mean KLD.
    fn two_quantisations() -> SummaryFile {
        let stat = |v: f64| serde_json::json!({"value": v, "ci": [v / 2.0, v * 2.0]});
        let div = |model: &str, kld: f64, too_few: serde_json::Value| {
            serde_json::json!({
                "model": model, "reference": "f32", "questions": 12, "skipped": [], "tokens": 900,
                "mean_kld": stat(kld), "median_kld": stat(kld), "p99_kld": stat(kld), "p999_kld": stat(kld),
                "top1": stat(99.0), "p_token": 0.9, "by_place": [], "first_divergence": {},
                "needed": {"kld": null, "top1": null, "ex": null}, "histogram": [], "seconds_per_question": 1.0,
                "too_few": too_few,
            })
        };
        let entry = |bytes: u64| serde_json::json!({"path": "m.gguf", "bytes": bytes, "params": 1});
        serde_json::from_value(serde_json::json!({
            "models": [], "paired": [],
            "runs": {"q8": entry(4 << 20), "q4": entry(2 << 20)},
            "divergence": [
                div("q8", 0.01, serde_json::json!({})),
                div("q4", 0.05, serde_json::json!({"mean_kld": "too few to estimate (9 questions; an interval needs 10)"})),
            ],
        }))
        .unwrap()
    }

    #[test]
    fn the_kld_figure_draws_only_the_intervals_the_table_shows() {
        let page = kld_against_size(&two_quantisations());
        assert_eq!(page.matches("class=\"whisker\"").count(), 1, "{page}");
        assert_eq!(page.matches("<circle").count(), 2, "{page}");
        // The y axis reaches q8's upper end (0.02) and q4's value (0.05), not q4's hidden 0.1.
        assert!(page.contains(">0.06<") && !page.contains(">0.08<") && !page.contains(">0.10<"), "{page}");
    }

    #[test]
    fn long_results_are_clipped_on_a_character_boundary() {
        assert_eq!(clip("abc", 5), "abc");
        assert!(clip("ééééé", 2).starts_with("éé<span"));
    }
}
