//! A self-contained HTML report (no scripts, no external files): summary tables and SVG plots of
//! EX by model and difficulty, accuracy against file size and against seconds per question,
//! and the `ended_by` mix.

use std::fmt::Write;

use super::report::{Paired, Summary};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const COLORS: &[&str] = &["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

const W: f64 = 640.0;
const H: f64 = 300.0;
const L: f64 = 50.0;
const B: f64 = 40.0;

fn axes(title: &str, x_label: &str, y_label: &str) -> String {
    let mut s = format!("<figure><figcaption>{}</figcaption><svg viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\">", esc(title));
    let _ = write!(s, "<line x1=\"{L}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>", H - B, W - 10.0, H - B);
    let _ = write!(s, "<line x1=\"{L}\" y1=\"10\" x2=\"{L}\" y2=\"{}\" stroke=\"#333\"/>", H - B);
    for pct in [0, 25, 50, 75, 100] {
        let y = (H - B) - (H - B - 10.0) * pct as f64 / 100.0;
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{pct}</text><line x1=\"{L}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#eee\"/>", L - 4.0, y + 3.0, W - 10.0);
    }
    let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>", (L + W) / 2.0, H - 6.0, esc(x_label));
    let _ = write!(s, "<text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>", H / 2.0, H / 2.0, esc(y_label));
    s
}

fn y_of(pct: f64) -> f64 {
    (H - B) - (H - B - 10.0) * pct.clamp(0.0, 100.0) / 100.0
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
    let gw = (W - L - 20.0) / groups.len() as f64;
    let bw = (gw - 10.0) / summaries.len().max(1) as f64;
    for (gi, g) in groups.iter().enumerate() {
        let gx = L + 10.0 + gi as f64 * gw;
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>", gx + gw / 2.0 - 5.0, H - B + 14.0, esc(g));
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
            let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {ex:.1}%</title></rect>", bw - 2.0, (H - B) - y, COLORS[mi % COLORS.len()], esc(&m.model));
            if let Some((lo, hi)) = ci {
                let cx = x + (bw - 2.0) / 2.0;
                let _ = write!(s, "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>", y_of(lo), y_of(hi));
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
        let _ = write!(s, "<span><i style=\"background:{}\"></i>{}</span> ", COLORS[i % COLORS.len()], esc(&m.model));
    }
    s.push_str("</p>");
    s
}

fn scatter(summaries: &[Summary], title: &str, x_label: &str, xs: &[Option<f64>]) -> String {
    if !xs.iter().flatten().any(|x| *x > 0.0) {
        return format!("<figure><figcaption>{}</figcaption><p>No data: scored predictions have no model file or timings.</p></figure>", esc(title));
    }
    let mut s = axes(title, x_label, "EX %");
    let max = xs.iter().flatten().copied().fold(0.0, f64::max).max(1e-9) * 1.1;
    for k in 0..=4 {
        let v = max * k as f64 / 4.0;
        let x = L + (W - L - 20.0) * k as f64 / 4.0;
        let _ = write!(s, "<text x=\"{x:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>", H - B + 14.0, if max < 10.0 { format!("{v:.2}") } else { format!("{v:.0}") });
    }
    for (i, (m, x)) in summaries.iter().zip(xs).enumerate() {
        let Some(x) = x else { continue };
        let px = L + (W - L - 20.0) * x / max;
        let py = y_of(m.ex);
        let _ = write!(s, "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"6\" fill=\"{}\"><title>{}: {x:.2}, {:.1}%</title></circle>", COLORS[i % COLORS.len()], esc(&m.model), m.ex);
        let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{}</text>", px + 8.0, py - 6.0, esc(&m.model));
    }
    s.push_str("</svg></figure>");
    s
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
    let row = 28.0;
    let h = 30.0 + row * summaries.len() as f64 + 20.0 * kinds.len().div_ceil(3) as f64;
    let mut s = format!("<figure><figcaption>How episodes ended</figcaption><svg viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" role=\"img\">");
    let x0 = 160.0;
    for (mi, m) in summaries.iter().enumerate() {
        let y = 10.0 + mi as f64 * row;
        let _ = write!(s, "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>", x0 - 6.0, y + 15.0, esc(&m.model));
        let total: usize = m.ended_by.values().sum();
        let mut x = x0;
        for (ki, k) in kinds.iter().enumerate() {
            let n = *m.ended_by.get(*k).unwrap_or(&0);
            if n == 0 || total == 0 {
                continue;
            }
            let w = (W - x0 - 20.0) * n as f64 / total as f64;
            let _ = write!(s, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"20\" fill=\"{}\"><title>{}: {n}</title></rect>", COLORS[ki % COLORS.len()], esc(k));
            x += w;
        }
    }
    for (ki, k) in kinds.iter().enumerate() {
        let lx = 20.0 + (ki % 3) as f64 * 210.0;
        let ly = 20.0 + row * summaries.len() as f64 + 20.0 * (ki / 3) as f64;
        let _ = write!(s, "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>", ly - 10.0, COLORS[ki % COLORS.len()], lx + 16.0, ly, esc(k));
    }
    s.push_str("</svg></figure>");
    s
}

fn table(summaries: &[Summary], pairs: &[Paired]) -> String {
    let mut s = String::from("<table><tr><th>model</th><th>n</th><th>EX %</th><th>95% CI</th><th>reward</th><th>F1</th><th>tool calls</th><th>turns</th><th>gold tables opened %</th><th>literals seen %</th><th>tokens decoded</th><th>generated</th><th>s / episode</th><th>gen tok/s</th><th>gold failed</th></tr>");
    for m in summaries {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}–{:.1}</td><td>{:.2}</td><td>{:.2}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.0}</td><td>{:.0}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(&m.model), m.n, m.ex, m.ex_ci.0, m.ex_ci.1, m.mean_reward, m.mean_f1, m.tool_calls_per_episode, m.turns_per_episode,
            m.opened_all_gold_tables, m.gold_literals_seen, m.decoded_tokens_per_episode, m.generated_tokens_per_episode,
            m.seconds_per_episode, m.generated_tokens_per_second, m.gold_failed
        );
    }
    s.push_str("</table>");
    for p in pairs {
        let _ = write!(
            s,
            "<p>{} − {}: <b>{:+.1}</b> points EX (95% CI {:+.1} to {:+.1}) on {} common questions; they disagree on {}: {}</p>",
            esc(&p.b), esc(&p.a), p.diff, p.diff_ci.0, p.diff_ci.1, p.n, p.disagreements.len(),
            esc(&p.disagreements.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", "))
        );
    }
    s
}

/// The report. `models` maps a model label to `{"bytes": file size, ...}` (from `models.json`).
pub fn report(summaries: &[Summary], pairs: &[Paired], models: &serde_json::Value) -> String {
    let gb: Vec<Option<f64>> = summaries.iter().map(|m| models.get(&m.model).and_then(|v| v["bytes"].as_f64()).map(|b| b / 1e9)).collect();
    let secs: Vec<Option<f64>> = summaries.iter().map(|m| Some(m.seconds_per_episode)).collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>sqale evaluation</title><style>\
         body{{font-family:system-ui,sans-serif;margin:2em;color:#222}} table{{border-collapse:collapse;font-size:13px}} \
         td,th{{border:1px solid #ccc;padding:3px 6px;text-align:right}} td:first-child,th:first-child{{text-align:left}} \
         figure{{margin:1.5em 0}} figcaption{{font-weight:600;margin-bottom:.4em}} .legend i{{display:inline-block;width:12px;height:12px;margin-right:4px}} \
         .legend span{{margin-right:1em;font-size:13px}}</style></head><body><h1>sqale evaluation</h1>{}{}{}{}{}</body></html>\n",
        table(summaries, pairs),
        bars(summaries),
        scatter(summaries, "Accuracy against file size", "GGUF size (GB)", &gb),
        scatter(summaries, "Accuracy against seconds per question", "seconds per episode", &secs),
        ended_by(summaries)
    )
}
