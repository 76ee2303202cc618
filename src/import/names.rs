//! The names an imported database gets: a table after its file, columns after the header.
//!
//! A name is kept as written (quotes and SQL in it are harmless: every name is quoted), but one
//! with control characters is refused, since it would reach the model's prompt and a terminal.

use std::collections::HashSet;
use std::path::Path;

use crate::printable::{escape_line, is_unsafe_char};

/// Characters a name may have.
const MAX_NAME_CHARS: usize = 128;

/// The table named after `path`'s file name without its extension.
pub(super) fn table_name(path: &Path) -> Result<String, String> {
    let stem = path.file_stem().unwrap_or_default();
    let Some(stem) = stem.to_str() else {
        return Err("its file name is not UTF-8: rename the file".into());
    };
    check(stem).map_err(|why| format!("its file name \"{}\" {why}: rename the file", escape_line(stem)))?;
    if stem.is_empty() {
        return Err("its file name is empty before the extension: rename the file".into());
    }
    if stem.to_ascii_lowercase().starts_with("sqlite_") {
        return Err(format!("table names starting sqlite_ are SQLite's own (\"{stem}\"): rename the file"));
    }
    Ok(stem.to_string())
}

/// The table for a workbook's sheet `sheet`: the sheet's name, or `<prefix>_<sheet>` when the
/// workbook is one of a folder's files (`prefix` its table name, after the file).
pub(super) fn sheet_table_name(prefix: Option<&str>, sheet: &str) -> Result<String, String> {
    let name = match prefix {
        Some(prefix) => format!("{prefix}_{sheet}"),
        None => sheet.to_string(),
    };
    let shown = escape_line(sheet);
    if sheet.trim().is_empty() {
        return Err("it has a sheet without a name: name the sheet".into());
    }
    check(&name).map_err(|why| {
        format!("its sheet \"{shown}\" would be table \"{}\", which {why}: rename the sheet", escape_line(&name))
    })?;
    if name.to_ascii_lowercase().starts_with("sqlite_") {
        return Err(format!("table names starting sqlite_ are SQLite's own (sheet \"{shown}\"): rename the sheet"));
    }
    Ok(name)
}

/// The columns' names: empty ones become `column_N` (N from 1), a repeated one (in any case)
/// gets `_2`, `_3`...; a name with control characters, or too long, is refused.
pub(super) fn column_names(names: &[String]) -> Result<Vec<String>, String> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        check(name)
            .map_err(|why| format!("column {}'s name \"{}\" {why}: rename it in the file", i + 1, escape_line(name)))?;
        let base = if name.trim().is_empty() { format!("column_{}", i + 1) } else { name.clone() };
        let mut name = base.clone();
        let mut k = 2;
        while !seen.insert(name.to_lowercase()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        out.push(name);
    }
    Ok(out)
}

fn check(name: &str) -> Result<(), &'static str> {
    if name.chars().any(|c| is_unsafe_char(c) || c == '\n' || c == '\r' || c == '\t') {
        return Err("holds control characters");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err("is longer than 128 characters");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_named_uniquely_and_control_characters_refused() {
        let got = column_names(&["a".into(), "".into(), "A".into(), "x\"; DROP TABLE t; --".into()]).unwrap();
        assert_eq!(got, ["a", "column_2", "A_2", "x\"; DROP TABLE t; --"]);
        let e = column_names(&["ok".into(), "bad\u{1b}[2J".into()]).unwrap_err();
        assert!(e.contains("column 2") && e.contains("\\u{1b}") && e.contains("control characters"), "{e}");
    }

    #[test]
    fn tables_are_named_after_the_file() {
        assert_eq!(table_name(Path::new("/x/orders.csv")).unwrap(), "orders");
        assert!(table_name(Path::new("/x/sqlite_master.csv")).unwrap_err().contains("rename"));
        assert!(table_name(Path::new("/x/a\u{7}b.csv")).unwrap_err().contains("control"));
    }

    #[test]
    fn sheets_are_named_alone_or_after_their_file() {
        assert_eq!(sheet_table_name(None, "Orders").unwrap(), "Orders");
        assert_eq!(sheet_table_name(Some("sales"), "Q1").unwrap(), "sales_Q1");
        assert!(sheet_table_name(None, "sqlite_x").unwrap_err().contains("rename the sheet"));
        assert!(sheet_table_name(None, "a\u{1b}b").unwrap_err().contains("control"));
        assert!(sheet_table_name(Some(&"x".repeat(120)), "long sheet").unwrap_err().contains("longer"));
    }
}
