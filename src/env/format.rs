//! Rendering SQLite values and result sets as compact text the model reads.

use rusqlite::types::ValueRef;

use super::Limits;

/// One value as the model sees it: `NULL`, numbers as SQLite prints them, text verbatim (one
/// line: newlines become `\n`), blobs by size. Cut at `max_chars` with the cut stated.
pub(crate) fn cell(value: ValueRef<'_>, max_chars: usize) -> String {
    let text = match value {
        ValueRef::Null => return "NULL".to_string(),
        ValueRef::Integer(i) => return i.to_string(),
        ValueRef::Real(f) => return real(f),
        ValueRef::Blob(b) => return format!("<blob {} bytes>", b.len()),
        ValueRef::Text(t) => String::from_utf8_lossy(t),
    };
    one_line(&text, max_chars)
}

/// A text value as a SQL string literal (`'O''Brien'`), cut like [`cell`].
pub(crate) fn literal(value: ValueRef<'_>, max_chars: usize) -> String {
    match value {
        ValueRef::Text(t) => {
            let s = String::from_utf8_lossy(t).replace('\'', "''");
            format!("'{}'", one_line(&s, max_chars))
        }
        other => cell(other, max_chars),
    }
}

fn real(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

fn one_line(text: &str, max_chars: usize) -> String {
    let escaped = text.replace('\r', "\\r").replace('\n', "\\n");
    let total = escaped.chars().count();
    if total <= max_chars {
        escaped
    } else {
        let kept: String = escaped.chars().take(max_chars).collect();
        format!("{kept}…[+{} chars]", total - max_chars)
    }
}

/// A tool result held to `max_chars` characters: the one rule every result passes through
/// ([`super::Environment::call`]), whatever built it (a schema listing, a header of many columns,
/// an error that lists names). A longer result is cut at its last line break in the second half
/// of the allowance (else at the allowance itself), and the cut is stated with what was left out.
pub(crate) fn cap(text: String, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text;
    }
    let end = text.char_indices().nth(max_chars).map_or(text.len(), |(i, _)| i);
    let kept = &text[..end];
    let kept = match kept.rfind('\n') {
        Some(i) if kept[..i].chars().count() >= max_chars / 2 => &kept[..i],
        _ => kept,
    };
    let dropped = total - kept.chars().count();
    format!("{kept}\n[output cut at {max_chars} characters: {dropped} more characters not shown]")
}

/// A name (of a table, column, view) as a result shows it: cut at `max_chars` with the cut
/// stated, like a cell, so that one absurd name cannot fill a result.
pub(crate) fn name(name: &str, max_chars: usize) -> String {
    one_line(name, max_chars)
}

/// Builds a result table: a header line, one line per row, and a closing line that states the
/// row count and any truncation.
pub(crate) struct TableText<'l> {
    limits: &'l Limits,
    out: String,
    shown: usize,
    truncated_by_size: bool,
}

impl<'l> TableText<'l> {
    /// Starts an empty table.
    pub(crate) fn new(limits: &'l Limits) -> Self {
        TableText { limits, out: String::new(), shown: 0, truncated_by_size: false }
    }

    /// Adds a row unless the row or size limit is reached; returns whether it was added.
    pub(crate) fn push(&mut self, cells: &[String]) -> bool {
        if self.shown >= self.limits.max_rows || self.truncated_by_size {
            return false;
        }
        let line = cells.join(" | ");
        if self.out.len() + line.len() + 1 > self.limits.max_result_chars {
            self.truncated_by_size = true;
            return false;
        }
        self.out.push_str(&line);
        self.out.push('\n');
        self.shown += 1;
        true
    }

    /// Closes the table: the header line of `columns`, the rows, and `[N rows]` or
    /// `[showing first K of N rows ...]`. `counted_all` is false when counting stopped at the
    /// counting cap.
    pub(crate) fn finish(self, columns: &[String], total: usize, counted_all: bool) -> String {
        let mut out = columns.join(" | ");
        out.push('\n');
        out.push_str(&self.out);
        let total_text = if counted_all { format!("{total}") } else { format!("more than {total}") };
        let tail = if self.shown == total && counted_all {
            match total {
                0 => "[0 rows]".to_string(),
                1 => "[1 row]".to_string(),
                n => format!("[{n} rows]"),
            }
        } else if self.truncated_by_size {
            format!(
                "[output cut at {} characters: showing first {} of {} rows]",
                self.limits.max_result_chars, self.shown, total_text
            )
        } else {
            format!("[showing first {} of {} rows]", self.shown, total_text)
        };
        out.push_str(&tail);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_render_compactly_and_state_cuts() {
        assert_eq!(cell(ValueRef::Null, 10), "NULL");
        assert_eq!(cell(ValueRef::Real(2.0), 10), "2.0");
        assert_eq!(cell(ValueRef::Real(0.1 + 0.2), 10), "0.30000000000000004");
        assert_eq!(cell(ValueRef::Text(b"a\nb"), 10), "a\\nb");
        assert_eq!(cell(ValueRef::Text(b"abcdef"), 3), "abc…[+3 chars]");
        assert_eq!(literal(ValueRef::Text(b"O'Brien"), 50), "'O''Brien'");
        assert_eq!(cell(ValueRef::Blob(&[1, 2, 3]), 10), "<blob 3 bytes>");
    }

    #[test]
    fn every_result_is_capped_with_the_cut_stated() {
        assert_eq!(cap("short".into(), 10), "short");
        let long = "x".repeat(50);
        let capped = cap(long, 10);
        assert_eq!(capped, "xxxxxxxxxx\n[output cut at 10 characters: 40 more characters not shown]");
        // At a line break when one falls in the second half of the allowance.
        let lines = "aaaa\nbbbbbb\ncccccc".to_string();
        assert_eq!(cap(lines, 14), "aaaa\nbbbbbb\n[output cut at 14 characters: 7 more characters not shown]");
        // Characters, not bytes: no cut inside a character.
        assert!(cap("é".repeat(20), 5).starts_with("ééééé\n[output cut"));
        assert_eq!(name("orders", 10), "orders");
        assert_eq!(name(&"t".repeat(30), 10), "tttttttttt…[+20 chars]");
    }

    #[test]
    fn tables_state_row_and_size_truncation() {
        let limits = Limits { max_rows: 2, ..Limits::default() };
        let mut t = TableText::new(&limits);
        assert!(t.push(&["1".into()]));
        assert!(t.push(&["2".into()]));
        assert!(!t.push(&["3".into()]));
        assert_eq!(t.finish(&["a".into()], 3, true), "a\n1\n2\n[showing first 2 of 3 rows]");

        let limits = Limits { max_result_chars: 8, ..Limits::default() };
        let mut t = TableText::new(&limits);
        assert!(t.push(&["123".into()]));
        assert!(t.push(&["456".into()]));
        assert!(!t.push(&["789".into()]));
        assert!(t.finish(&["a".into()], 3, true).ends_with("[output cut at 8 characters: showing first 2 of 3 rows]"));
    }
}
