//! An answer's first rows for people (a table, with comfy-table) and for scripts (CSV, with the
//! csv crate). The table's names and cells are the database's text: each is printed on one line
//! with its control characters escaped ([`escape_line`]); the CSV keeps the bytes.

use comfy_table::{presets::UTF8_FULL_CONDENSED, CellAlignment, ContentArrangement, Table};
use serde_json::Value;
use sqale::env::RowsPreview;
use sqale::printable::escape_line;

/// Terminals narrower than this get the table as it is, not wrapped.
const MIN_WRAP_WIDTH: u16 = 20;

/// A cell as text: strings as they are, NULL as `null_text`, numbers as JSON writes them.
fn cell(v: &Value, null_text: &str) -> String {
    match v {
        Value::Null => null_text.to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The rows as a table, numeric columns right-aligned (wrapped to the terminal's width when
/// stdout is one), every name and cell escaped for the terminal.
pub fn table(rows: &RowsPreview) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    // A terminal that reports no width (some pseudo-terminals say 0) gets the table unwrapped.
    if t.width().is_some_and(|w| w >= MIN_WRAP_WIDTH) {
        t.set_content_arrangement(ContentArrangement::Dynamic);
    }
    t.set_header(rows.columns.iter().map(|c| escape_line(c).into_owned()).collect::<Vec<_>>());
    for r in &rows.rows {
        t.add_row(r.iter().map(|v| escape_line(&cell(v, "NULL")).into_owned()).collect::<Vec<_>>());
    }
    for i in 0..rows.columns.len() {
        let mut values = rows.rows.iter().filter_map(|r| r.get(i)).filter(|v| !v.is_null()).peekable();
        let numeric = values.peek().is_some() && values.all(Value::is_number);
        if let (true, Some(c)) = (numeric, t.column_mut(i)) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t.to_string()
}

/// How many rows, and whether the query had more: `3 rows`, `first 30 rows (more not shown)`.
pub fn count(rows: &RowsPreview) -> String {
    let n = rows.rows.len();
    let noun = if n == 1 { "row" } else { "rows" };
    if rows.truncated {
        format!("first {n} {noun} (the query returns more; not shown)")
    } else {
        format!("{n} {noun}")
    }
}

/// The rows as CSV with a header line (NULL as an empty field).
pub fn csv(rows: &RowsPreview) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&rows.columns)?;
    for r in &rows.rows {
        w.write_record(r.iter().map(|v| cell(v, "")))?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(truncated: bool) -> RowsPreview {
        RowsPreview {
            columns: vec!["name".into(), "n".into()],
            rows: vec![vec![json!("Ada, \"the\" first"), json!(3)], vec![Value::Null, json!(1.5)]],
            truncated,
        }
    }

    #[test]
    fn csv_quotes_and_leaves_null_empty() {
        assert_eq!(csv(&sample(false)).unwrap(), "name,n\n\"Ada, \"\"the\"\" first\",3\n,1.5\n");
    }

    #[test]
    fn tables_show_every_cell_and_null() {
        let t = table(&sample(false));
        for s in ["name", "Ada, \"the\" first", "NULL", "1.5"] {
            assert!(t.contains(s), "{s} in\n{t}");
        }
        // Numbers are right-aligned: the short one is padded on its left.
        assert!(t.contains("   3 │"), "{t}");
    }

    #[test]
    fn tables_escape_what_a_terminal_would_obey() {
        let rows = RowsPreview {
            columns: vec!["st\x1b[2Jatus".into()],
            rows: vec![vec![json!("open\x1b]0;PWNED\x07")], vec![json!("a\nb")]],
            truncated: false,
        };
        let t = table(&rows);
        assert!(!t.contains('\x1b') && !t.contains('\x07'), "{t:?}");
        for s in ["st\\u{1b}[2Jatus", "open\\u{1b}]0;PWNED\\u{7}", "a\\nb"] {
            assert!(t.contains(s), "{s} in\n{t}");
        }
        // The CSV keeps the bytes (the output escapes them on a terminal).
        assert!(csv(&rows).unwrap().contains("open\x1b]0;PWNED\x07"));
    }

    #[test]
    fn counts_say_when_rows_were_cut() {
        assert_eq!(count(&sample(false)), "2 rows");
        assert!(count(&sample(true)).starts_with("first 2 rows"));
    }
}
