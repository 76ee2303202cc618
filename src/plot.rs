//! Charts: which one a result's rows call for, from their shape and types, drawn as inline SVG
//! (the service's page, through the answer event) or as text bars (`sqale ask` on a terminal);
//! and the SVG pieces `eval`'s report draws its figures with (escaping, colours, text widths,
//! round axis steps).
//!
//! The rule ([`choose`]):
//! - one row of one number: the number, large;
//! - a label column and one or more number columns: a bar chart, a bar per row and number;
//! - a date or time column (`2024-03-01`, `2024-03`, `2024-03-01 12:30`, `12:30:00`) and one
//!   number column, two rows or more: a line chart over time;
//! - anything else: no chart.
//!
//! Everything from the data is escaped for XML ([`esc`]); labels too long for their place are
//! cut with `…`, the whole label in the element's `<title>`.

use std::fmt::Write;

use serde_json::Value;

/// `s` safe inside XML text and attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const COLORS: &[&str] =
    &["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/// The `i`th colour of the palette (it repeats after ten).
pub fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

/// The width `text` takes at `size` px, over-estimated (0.62 em a character; sans-serif
/// averages nearer 0.5), so that what is laid out by it does not touch in the browser.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// An axis from 0 past `max` in round steps (1, 2, 2.5 or 5 × a power of ten, at most five
/// of them): `(end, step, decimals to print)`.
pub fn ticks(max: f64) -> (f64, f64, usize) {
    let max = if max > 0.0 && max.is_finite() { max } else { 1.0 };
    let raw = max * 1.05 / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let m = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().find(|m| m * mag >= raw).unwrap_or(10.0);
    let step = m * mag;
    let end = (max * 1.05 / step).ceil() * step;
    let decimals = (-(step.log10().floor())).max(0.0) as usize + (m == 2.5) as usize;
    (end, step, decimals)
}

/// Bars a bar chart draws at most (more rows: no chart).
pub const MAX_BARS: usize = 60;
/// Points a line chart draws at most.
pub const MAX_POINTS: usize = 2000;
/// Number columns a bar chart draws (the first ones).
const MAX_SERIES: usize = 4;

/// The chart a result calls for: column indices into its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chart {
    /// One number, shown large.
    Number {
        /// Its column.
        column: usize,
    },
    /// A bar per row (and per number column), labelled by `label`.
    Bars {
        /// The label column.
        label: usize,
        /// The number columns drawn.
        values: Vec<usize>,
    },
    /// A number over time.
    Line {
        /// The date or time column.
        x: usize,
        /// The number column.
        y: usize,
    },
}

/// A cell as a number: JSON numbers only (text that looks like one is a label).
pub fn number(v: &Value) -> Option<f64> {
    v.as_f64().filter(|f| f.is_finite())
}

/// A cell as a label: text as it is, numbers as written, `NULL` for null.
pub fn label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "NULL".to_string(),
        other => other.to_string(),
    }
}

/// The chart `rows` (of `columns`) call for, by the rule in the module's description.
pub fn choose(columns: &[String], rows: &[Vec<Value>]) -> Option<Chart> {
    if rows.is_empty() || columns.is_empty() || rows.iter().any(|r| r.len() != columns.len()) {
        return None;
    }
    let is_number = |c: usize| {
        rows.iter().all(|r| r[c].is_null() || number(&r[c]).is_some()) && rows.iter().any(|r| number(&r[c]).is_some())
    };
    let numbers: Vec<usize> = (0..columns.len()).filter(|&c| is_number(c)).collect();
    if rows.len() == 1 && columns.len() == 1 && numbers == [0] {
        return Some(Chart::Number { column: 0 });
    }
    let labels: Vec<usize> = (0..columns.len()).filter(|c| !numbers.contains(c)).collect();
    let [label] = labels[..] else { return None };
    if numbers.is_empty() {
        return None;
    }
    let times = rows.iter().all(|r| r[label].as_str().is_some_and(|s| time_of(s).is_some()));
    if times && numbers.len() == 1 && rows.len() >= 2 && rows.len() <= MAX_POINTS {
        return Some(Chart::Line { x: label, y: numbers[0] });
    }
    if rows.len() > MAX_BARS {
        return None;
    }
    Some(Chart::Bars { label, values: numbers.into_iter().take(MAX_SERIES).collect() })
}

/// `rows` drawn as the chart they call for, as inline SVG; `None` when they call for none.
pub fn svg(columns: &[String], rows: &[Vec<Value>]) -> Option<String> {
    Some(match choose(columns, rows)? {
        Chart::Number { column } => big_number(&columns[column], number(&rows[0][column])?),
        Chart::Bars { label, values } => bars(columns, rows, label, &values),
        Chart::Line { x, y } => line(columns, rows, x, y),
    })
}

/// A number as people read it: whole numbers without a point, others to about four
/// significant digits.
pub fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `s` cut to `max` px at `size` px (the cut marked with `…`).
fn fit(s: &str, size: f64, max: f64) -> String {
    if text_width(s, size) <= max {
        return s.to_string();
    }
    let keep = ((max / (size * 0.62)) as usize).saturating_sub(1).max(1);
    format!("{}…", s.chars().take(keep).collect::<String>())
}

/// Width of a line chart and a number (charts scale down with their container).
const W: f64 = 640.0;

fn open_svg(kind: &str, w: f64, h: f64, title: &str) -> String {
    format!(
        "<svg class=\"chart {kind}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{}\" \
         style=\"max-width:100%;height:auto\" font-family=\"sans-serif\">",
        esc(title)
    )
}

fn big_number(column: &str, v: f64) -> String {
    let mut s = open_svg("number", W, 100.0, column);
    let _ = write!(
        s,
        "<text class=\"value\" x=\"20\" y=\"62\" font-size=\"52\" font-weight=\"bold\">{}</text>\
         <text class=\"label\" x=\"20\" y=\"88\" font-size=\"14\" fill=\"#555\">{}</text></svg>",
        esc(&format_number(v)),
        esc(&fit(column, 14.0, W - 40.0))
    );
    s
}

/// A value axis over `lo..hi` (0 included): `(start, end, step, decimals)`.
fn value_axis(lo: f64, hi: f64) -> (f64, f64, f64, usize) {
    let (lo, hi) = (lo.min(0.0), hi.max(0.0));
    let (end, step, decimals) = ticks(hi.max(-lo));
    let start = if lo < 0.0 { -(((-lo) * 1.05 / step).ceil() * step) } else { 0.0 };
    let end = if hi > 0.0 { end } else { 0.0 };
    let end = if start == end { step } else { end };
    (start, end, step, decimals)
}

/// Horizontal bars: a row's label on the left, its bar (one per number column) and its value
/// at the bar's end; the value axis below with round ticks; a legend when there are several
/// number columns.
fn bars(columns: &[String], rows: &[Vec<Value>], label: usize, values: &[usize]) -> String {
    let series = values.len();
    let bar_h = 16.0;
    let group_h = bar_h * series as f64 + 8.0;
    let labels: Vec<String> = rows.iter().map(|r| label_of(&r[label])).collect();
    let label_w = labels.iter().map(|l| text_width(l, 12.0)).fold(40.0, f64::max).min(200.0);
    // As wide as the labels and a plot of 300 px need: text stays readable when a phone's
    // screen scales the chart down.
    let (x0, x1) = (label_w + 14.0, label_w + 14.0 + 300.0);
    let w = x1 + 50.0;
    let top = 22.0;
    let legend_h = if series > 1 { 20.0 } else { 0.0 };
    let plot_bottom = top + group_h * rows.len() as f64;
    let h = plot_bottom + 34.0 + legend_h;
    let all: Vec<f64> = rows.iter().flat_map(|r| values.iter().filter_map(|&c| number(&r[c]))).collect();
    let (start, end, step, decimals) =
        value_axis(all.iter().copied().fold(0.0, f64::min), all.iter().copied().fold(0.0, f64::max));
    let x_of = |v: f64| x0 + (x1 - x0) * (v - start) / (end - start);
    let names: Vec<&str> = values.iter().map(|&c| columns[c].as_str()).collect();
    let mut s = open_svg("bar", w, h, &format!("{} by {}", names.join(", "), columns[label]));
    let _ = write!(
        s,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"14\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">{}</text>",
        x0 - 6.0,
        esc(&fit(&columns[label], 11.0, x0 - 8.0))
    );
    // Gridlines and ticks.
    let n = ((end - start) / step).round() as usize;
    for k in 0..=n {
        let v = start + k as f64 * step;
        let x = x_of(v);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"#eee\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{v:.decimals$}</text>",
            plot_bottom + 14.0
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{x0:.1}\" y1=\"{plot_bottom:.1}\" x2=\"{x1:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"#333\"/>\
         <line class=\"axis\" x1=\"{:.1}\" y1=\"{top}\" x2=\"{:.1}\" y2=\"{plot_bottom:.1}\" stroke=\"#333\"/>",
        x_of(0.0),
        x_of(0.0)
    );
    let _ = write!(
        s,
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
        (x0 + x1) / 2.0,
        plot_bottom + 28.0,
        esc(&fit(&names.join(", "), 11.0, x1 - x0))
    );
    for (i, (row, full)) in rows.iter().zip(&labels).enumerate() {
        let gy = top + group_h * i as f64 + 4.0;
        let shown = fit(full, 12.0, x0 - 8.0);
        // A label cut to fit says itself whole on hover.
        let whole = if &shown == full { String::new() } else { format!("<title>{}</title>", esc(full)) };
        let _ = write!(
            s,
            "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"end\">{whole}{}</text>",
            x0 - 6.0,
            gy + group_h / 2.0,
            esc(&shown)
        );
        for (k, &c) in values.iter().enumerate() {
            let Some(v) = number(&row[c]) else { continue };
            let y = gy + bar_h * k as f64;
            let (a, b) = (x_of(0.0), x_of(v));
            let (x, w) = (a.min(b), (a - b).abs().max(1.0));
            let shown = format_number(v);
            let _ = write!(
                s,
                "<rect class=\"bar\" data-row=\"{i}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}, {}: {}</title></rect>",
                bar_h - 2.0,
                color(k),
                esc(full),
                esc(&columns[c]),
                esc(&shown)
            );
            let (vx, anchor) = if v < 0.0 { (x - 3.0, "end") } else { (x + w + 3.0, "start") };
            let _ = write!(
                s,
                "<text class=\"value\" x=\"{vx:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"{anchor}\">{}</text>",
                y + bar_h - 5.0,
                esc(&shown)
            );
        }
    }
    if series > 1 {
        let (mut lx, ly) = (x0, h - 8.0);
        for (k, name) in names.iter().enumerate() {
            let _ = write!(s, "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text class=\"legend\" x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"11\">{}</text>", ly - 9.0, color(k), lx + 14.0, esc(&fit(name, 11.0, 140.0)));
            lx += 14.0 + text_width(&fit(name, 11.0, 140.0), 11.0) + 16.0;
        }
    }
    s.push_str("</svg>");
    s
}

fn label_of(v: &Value) -> String {
    label(v)
}

/// A line over time: points at their dates, the first, middle and last dates under the axis,
/// values beside the points when there are few of them.
fn line(columns: &[String], rows: &[Vec<Value>], xc: usize, yc: usize) -> String {
    let mut points: Vec<(f64, Option<f64>, String)> = rows
        .iter()
        .filter_map(|r| {
            let l = r[xc].as_str()?;
            Some((time_of(l)?, number(&r[yc]), l.to_string()))
        })
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (x0, x1, top, bottom) = (56.0, W - 24.0, 16.0, 230.0);
    let h = bottom + 40.0;
    let ys: Vec<f64> = points.iter().filter_map(|p| p.1).collect();
    let (start, end, step, decimals) = value_axis(
        ys.iter().copied().fold(f64::INFINITY, f64::min),
        ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let y_of = |v: f64| bottom - (bottom - top) * (v - start) / (end - start);
    let (t0, t1) = (points.first().map_or(0.0, |p| p.0), points.last().map_or(1.0, |p| p.0));
    let span = if t1 > t0 { t1 - t0 } else { 1.0 };
    let x_of = |t: f64| x0 + (x1 - x0) * (t - t0) / span;
    let mut s = open_svg("line", W, h, &format!("{} over {}", columns[yc], columns[xc]));
    let n = ((end - start) / step).round() as usize;
    for k in 0..=n {
        let v = start + k as f64 * step;
        let y = y_of(v);
        let _ = write!(
            s,
            "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{v:.decimals$}</text>",
            x0 - 4.0,
            y + 3.0
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{x0}\" y1=\"{bottom}\" x2=\"{x1}\" y2=\"{bottom}\" stroke=\"#333\"/>\
         <line class=\"axis\" x1=\"{x0}\" y1=\"{top}\" x2=\"{x0}\" y2=\"{bottom}\" stroke=\"#333\"/>\
         <text class=\"axis-title\" x=\"12\" y=\"{:.1}\" font-size=\"11\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\" fill=\"#555\">{}</text>\
         <text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
        (top + bottom) / 2.0,
        (top + bottom) / 2.0,
        esc(&fit(&columns[yc], 11.0, bottom - top)),
        (x0 + x1) / 2.0,
        bottom + 32.0,
        esc(&fit(&columns[xc], 11.0, 200.0))
    );
    let mut ticks_at = vec![0, points.len() / 2, points.len().saturating_sub(1)];
    ticks_at.dedup();
    for (j, &i) in ticks_at.iter().enumerate() {
        let p = &points[i];
        let anchor = match j {
            0 => "start",
            _ if i + 1 == points.len() => "end",
            _ => "middle",
        };
        let _ = write!(
            s,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"{anchor}\">{}</text>",
            x_of(p.0),
            bottom + 14.0,
            esc(&fit(&p.2, 10.0, 180.0))
        );
    }
    let path: Vec<String> =
        points.iter().filter_map(|p| p.1.map(|v| format!("{:.1},{:.1}", x_of(p.0), y_of(v)))).collect();
    let _ =
        write!(s, "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>", color(0), path.join(" "));
    let few = points.len() <= 12;
    for (i, p) in points.iter().enumerate() {
        let Some(v) = p.1 else { continue };
        let (x, y) = (x_of(p.0), y_of(v));
        let shown = format_number(v);
        let _ = write!(
            s,
            "<circle class=\"point\" data-row=\"{i}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{}\"><title>{}: {}</title></circle>",
            color(0),
            esc(&p.2),
            esc(&shown)
        );
        if few {
            let _ = write!(
                s,
                "<text class=\"value\" x=\"{x:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
                y - 7.0,
                esc(&shown)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Seconds since 1970 (or since midnight, for a time alone) of a date or time written as
/// `YYYY-MM-DD`, `YYYY-MM`, or either with ` HH:MM[:SS[.fff]]` (or `T`, and a zone after it,
/// which is ignored), or `HH:MM[:SS]`; `None` for anything else.
pub fn time_of(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    let clock = |t: &str| -> Option<f64> {
        let tb = t.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Option<f64> {
            let part = tb.get(r)?;
            part.iter().all(u8::is_ascii_digit).then(|| std::str::from_utf8(part).ok()?.parse().ok())?
        };
        let (h, m) = (num(0..2)?, num(3..5)?);
        if tb.get(2) != Some(&b':') || h > 23.0 || m > 59.0 {
            return None;
        }
        let mut rest = &t[5..];
        let mut secs = 0.0;
        if rest.starts_with(':') {
            let sec = num(6..8)?;
            if sec > 60.0 {
                return None;
            }
            secs = sec;
            rest = &t[8..];
            if let Some(frac) = rest.strip_prefix('.') {
                let n = frac.bytes().take_while(u8::is_ascii_digit).count();
                if n == 0 {
                    return None;
                }
                rest = &frac[n..];
            }
        }
        let zone_ok = rest.is_empty()
            || rest == "Z"
            || ((rest.starts_with('+') || rest.starts_with('-'))
                && rest[1..].bytes().all(|c| c.is_ascii_digit() || c == b':')
                && rest.len() <= 6);
        zone_ok.then_some(h * 3600.0 + m * 60.0 + secs)
    };
    if b.len() >= 5 && b[2] == b':' {
        return clock(s);
    }
    let year = digits(0..4)?;
    if b.get(4) != Some(&b'-') {
        return None;
    }
    let month = digits(5..7)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let (day, rest) = if b.len() == 7 {
        (1, "")
    } else {
        if b.get(7) != Some(&b'-') {
            return None;
        }
        (digits(8..10)?, s.get(10..)?)
    };
    if !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day) as f64 * 86_400.0;
    if rest.is_empty() {
        return Some(days);
    }
    let t = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    Some(days + clock(t)?)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A compact text bar chart of `rows` for a terminal, when they call for a bar chart whose
/// numbers are none negative: a line a row, its label (escaped, cut to 24 characters), a bar
/// of up to `width` blocks, and its value. The first number column is drawn.
pub fn text_bars(columns: &[String], rows: &[Vec<Value>], width: usize) -> Option<String> {
    let Chart::Bars { label, values } = choose(columns, rows)? else { return None };
    let c = values[0];
    let vals: Vec<Option<f64>> = rows.iter().map(|r| number(&r[c])).collect();
    if vals.iter().flatten().any(|v| *v < 0.0) {
        return None;
    }
    let max = vals.iter().flatten().copied().fold(0.0, f64::max);
    let labels: Vec<String> = rows
        .iter()
        .map(|r| {
            let l = crate::printable::escape_line(&label_of(&r[label])).into_owned();
            if l.chars().count() > 24 {
                format!("{}…", l.chars().take(23).collect::<String>())
            } else {
                l
            }
        })
        .collect();
    let pad = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = format!(
        "{} by {}\n",
        crate::printable::escape_line(&columns[c]),
        crate::printable::escape_line(&columns[label])
    );
    for (l, v) in labels.iter().zip(&vals) {
        let (bar, shown) = match v {
            Some(v) if max > 0.0 => {
                let eighths = (v / max * width as f64 * 8.0).round() as usize;
                let mut bar = "█".repeat(eighths / 8);
                if !eighths.is_multiple_of(8) {
                    bar.push(['▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8 - 1]);
                }
                (bar, format_number(*v))
            }
            Some(v) => (String::new(), format_number(*v)),
            None => (String::new(), "NULL".to_string()),
        };
        let fill = pad - l.chars().count();
        let _ = writeln!(out, "{l}{} {bar} {shown}", " ".repeat(fill));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cols(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_chart_follows_the_shape_and_types() {
        let by_status = vec![vec![json!("delivered"), json!(40)], vec![json!("pending"), json!(12)]];
        assert_eq!(choose(&cols(&["status", "n"]), &by_status), Some(Chart::Bars { label: 0, values: vec![1] }));
        let over_time = vec![vec![json!("2024-01"), json!(3.5)], vec![json!("2024-02"), json!(4)]];
        assert_eq!(choose(&cols(&["month", "total"]), &over_time), Some(Chart::Line { x: 0, y: 1 }));
        assert_eq!(choose(&cols(&["n"]), &[vec![json!(7)]]), Some(Chart::Number { column: 0 }));
        // Two labels, no numbers, all numbers, a lone text, nothing: no chart.
        assert_eq!(choose(&cols(&["a", "b", "n"]), &[vec![json!("x"), json!("y"), json!(1)]]), None);
        assert_eq!(choose(&cols(&["a"]), &[vec![json!("x")]]), None);
        assert_eq!(choose(&cols(&["a", "b"]), &[vec![json!(1), json!(2)]]), None);
        assert_eq!(choose(&cols(&["a", "n"]), &[]), None);
        // Numbers written as text are labels; NULL among numbers is fine.
        let mixed = vec![vec![json!("10"), json!(null)], vec![json!("11"), json!(2)]];
        assert_eq!(choose(&cols(&["code", "n"]), &mixed), Some(Chart::Bars { label: 0, values: vec![1] }));
        let many: Vec<Vec<Value>> = (0..=MAX_BARS).map(|i| vec![json!(format!("k{i}")), json!(i)]).collect();
        assert_eq!(choose(&cols(&["k", "n"]), &many), None);
    }

    #[test]
    fn bars_have_one_rect_per_row_with_its_label_and_value_escaped() {
        let rows = vec![vec![json!("<b>&"), json!(40)], vec![json!("pending"), json!(-12.5)]];
        let svg = svg(&cols(&["status", "orders"]), &rows).unwrap();
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 2);
        assert!(svg.contains("&lt;b&gt;&amp;") && !svg.contains("<b>"), "{svg}");
        assert!(svg.contains(">40</text>") && svg.contains(">-12.5</text>"), "{svg}");
        assert!(svg.starts_with("<svg class=\"chart bar\"") && svg.ends_with("</svg>"));
    }

    #[test]
    fn lines_and_numbers_draw() {
        let rows = vec![vec![json!("2024-03-01"), json!(5)], vec![json!("2024-01-01"), json!(1)]];
        let s = svg(&cols(&["day", "n"]), &rows).unwrap();
        assert!(s.contains("<polyline") && s.matches("class=\"point\"").count() == 2, "{s}");
        assert!(s.find(">2024-01-01<").unwrap() < s.find(">2024-03-01<").unwrap(), "sorted by time: {s}");
        let n = svg(&cols(&["count(*)"]), &[vec![json!(1234)]]).unwrap();
        assert!(n.contains(">1234</text>") && n.contains("count(*)"), "{n}");
    }

    #[test]
    fn times_are_read_as_written_or_not_at_all() {
        assert_eq!(time_of("1970-01-02"), Some(86_400.0));
        assert_eq!(time_of("1970-01"), Some(0.0));
        assert_eq!(time_of("1970-01-01T01:00:00Z"), Some(3600.0));
        assert_eq!(time_of("1970-01-01 00:01"), Some(60.0));
        assert_eq!(time_of("12:30"), Some(45_000.0));
        for bad in ["2024", "2024-13-01", "hello", "2024-01-01x", "24:00", "2024/01/01", ""] {
            assert_eq!(time_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_print_as_people_read_them() {
        assert_eq!(format_number(40.0), "40");
        assert_eq!(format_number(12.5), "12.5");
        assert_eq!(format_number(0.123456), "0.1235");
        assert_eq!(format_number(-3.0), "-3");
    }

    #[test]
    fn text_bars_scale_to_the_largest_and_escape_labels() {
        let rows =
            vec![vec![json!("a\u{1b}[2J"), json!(10)], vec![json!("b"), json!(5)], vec![json!("c"), json!(null)]];
        let t = text_bars(&cols(&["k", "n"]), &rows, 10).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "n by k");
        assert!(lines[1].starts_with("a\\u{1b}[2J ██████████ 10"), "{t}");
        assert!(lines[2].contains(" █████ 5"), "{t}");
        assert!(lines[3].ends_with("NULL"), "{t}");
        assert!(!t.contains('\u{1b}'));
        assert!(text_bars(&cols(&["n"]), &[vec![json!(3)]], 10).is_none());
        assert!(text_bars(&cols(&["k", "n"]), &[vec![json!("a"), json!(-1)]], 10).is_none());
    }

    #[test]
    fn axes_step_roundly() {
        let close = |(a, b, c): (f64, f64, usize), (x, y, z): (f64, f64, usize)| {
            (a - x).abs() < 1e-9 && (b - y).abs() < 1e-9 && c == z
        };
        assert!(close(ticks(0.1), (0.125, 0.025, 3)), "{:?}", ticks(0.1));
        assert!(close(ticks(2.0), (2.5, 0.5, 1)), "{:?}", ticks(2.0));
        assert!(close(ticks(38.0), (40.0, 10.0, 0)), "{:?}", ticks(38.0));
        let (end, step, _) = ticks(0.0);
        assert!(end > 0.0 && step > 0.0);
    }
}
