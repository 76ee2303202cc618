//! Reading an Excel workbook (`.xlsx`, through the `calamine` crate) as one table a sheet.
//!
//! A sheet's cells are streamed, never laid out as a grid first, so a hostile file that names a
//! far corner cell (`XFD1048576`) costs nothing: only the cells present are kept, and the bounds
//! (rows, columns, bytes, time) are checked as they come. The sheet's first row with a value
//! names the columns; every later row with a value is a row (blank rows are skipped). Columns
//! run from the leftmost to the rightmost cell with a value.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use calamine::{DataRef, Reader, Xlsx, XlsxError};

use super::formats::Cell;
use super::{Deadline, ImportError, MAX_BYTES, MAX_COLUMNS, MAX_ROWS, SMALLER};

/// One sheet with a value in it: its name, its header as written, its rows.
pub(super) struct Sheet {
    pub(super) name: String,
    pub(super) header: Vec<String>,
    pub(super) rows: Vec<Vec<Cell>>,
}

/// Memory a kept cell costs beyond its value (position and tag), for the byte bound.
const CELL_OVERHEAD: u64 = 16;

/// Reads every sheet of the workbook in `file` (at `path`), calling `on_sheet` with each sheet
/// that has a value; an error when none has.
pub(super) fn sheets(
    file: &File,
    path: &Path,
    deadline: &Deadline,
    on_sheet: &mut dyn FnMut(Sheet) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let bad = |reason: String| ImportError::File { path: path.to_path_buf(), reason };
    let mut handle = file.try_clone().map_err(|e| bad(format!("cannot read it: {e}")))?;
    handle.seek(SeekFrom::Start(0)).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let mut magic = [0u8; 8];
    let got = read_prefix(&mut handle, &mut magic).map_err(|e| bad(format!("cannot read it: {e}")))?;
    handle.seek(SeekFrom::Start(0)).map_err(|e| bad(format!("cannot read it: {e}")))?;
    if magic[..got].starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        return Err(bad("it is a password-protected (encrypted) workbook, or an old .xls workbook named .xlsx: \
             remove the password (or save it as .xlsx) in Excel or LibreOffice and pass that"
            .into()));
    }
    if !magic[..got].starts_with(b"PK") {
        return Err(bad("it is not an .xlsx workbook (not a zip archive): check the file, or give it the \
             extension of its format"
            .into()));
    }
    let mut book: Xlsx<_> = Xlsx::new(BufReader::new(handle)).map_err(|e| bad(open_error(e)))?;
    let mut found = 0usize;
    let mut rows_before = 0u64;
    let mut bytes_total = 0u64;
    for name in book.sheet_names() {
        let mut cells: Vec<(u32, u32, Cell)> = Vec::new();
        let mut sheet_rows = 0u64;
        {
            let mut reader = book
                .worksheet_cells_reader(&name)
                .map_err(|e| bad(format!("cannot read sheet \"{}\": {e}", crate::printable::escape_line(&name))))?;
            let mut last_row = None;
            while let Some(cell) = reader
                .next_cell()
                .map_err(|e| bad(format!("cannot read sheet \"{}\": {e}", crate::printable::escape_line(&name))))?
            {
                let (row, col) = cell.get_position();
                let value = cell_of(cell.get_value());
                if matches!(value, Cell::Null) {
                    continue;
                }
                if col as usize >= MAX_COLUMNS {
                    return Err(too_large(
                        path,
                        format!(
                            "sheet \"{}\" has more than {MAX_COLUMNS} columns",
                            crate::printable::escape_line(&name)
                        ),
                        format!("{MAX_COLUMNS} columns a table"),
                        "keep fewer columns",
                    ));
                }
                if last_row != Some(row) {
                    last_row = Some(row);
                    sheet_rows += 1;
                    // The sheet's first row is its header.
                    if rows_before + sheet_rows > MAX_ROWS + 1 {
                        return Err(too_large(
                            path,
                            format!("more than {MAX_ROWS} rows"),
                            format!("{MAX_ROWS} rows"),
                            SMALLER,
                        ));
                    }
                }
                bytes_total += value.size() + CELL_OVERHEAD;
                if bytes_total > MAX_BYTES {
                    return Err(too_large(
                        path,
                        format!("more than {MAX_BYTES} bytes of values"),
                        format!("{MAX_BYTES} bytes"),
                        SMALLER,
                    ));
                }
                cells.push((row, col, value));
                if cells.len().is_multiple_of(4096) {
                    deadline.check()?;
                }
            }
        }
        if cells.is_empty() {
            continue;
        }
        found += 1;
        rows_before += sheet_rows - 1;
        on_sheet(grid(name, cells))?;
        deadline.check()?;
    }
    if found == 0 {
        return Err(bad("the workbook has no sheet with a value in it: put the data in a sheet, with the \
             column names in its first row"
            .into()));
    }
    Ok(())
}

/// Reads up to `buf.len()` bytes from the start (fewer only at the end of the file).
fn read_prefix(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// What opening the workbook's zip archive said, for the user.
fn open_error(e: XlsxError) -> String {
    match e {
        XlsxError::Zip(e) => {
            format!("it is not an .xlsx workbook (a damaged zip archive: {e}): check the file, or save it again as .xlsx")
        }
        XlsxError::FileNotFound(part) => format!(
            "it is a zip archive but not an .xlsx workbook (it has no {part}): check the file, or save it again as .xlsx"
        ),
        other => format!("it is not a readable .xlsx workbook ({other}): check the file, or save it again as .xlsx"),
    }
}

fn too_large(path: &Path, what: String, limit: String, fix: &'static str) -> ImportError {
    ImportError::TooLarge { path: path.to_path_buf(), what, limit, fix }
}

/// The sheet's cells (those with a value) as a header and rows.
fn grid(name: String, mut cells: Vec<(u32, u32, Cell)>) -> Sheet {
    cells.sort_by_key(|&(row, col, _)| (row, col));
    let first_col = cells.iter().map(|c| c.1).min().unwrap_or(0);
    let last_col = cells.iter().map(|c| c.1).max().unwrap_or(0);
    let width = (last_col - first_col) as usize + 1;
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut current = None;
    for (row, col, value) in cells {
        if current != Some(row) {
            current = Some(row);
            rows.push(vec![Cell::Null; width]);
        }
        if let Some(last) = rows.last_mut() {
            last[(col - first_col) as usize] = value;
        }
    }
    let mut rows = rows.into_iter();
    let header = rows
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|c| match c {
            Cell::Null => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Real(f) => f.to_string(),
            Cell::Raw(s) | Cell::Text(s) => s,
            Cell::Blob(_) => String::new(),
        })
        .collect();
    Sheet { name, header, rows: rows.collect() }
}

/// A cell's value: numbers as `Int` when whole (Excel keeps every number as a float), `Real`
/// otherwise; booleans as 0 or 1; dates and times as ISO 8601 text; errors (`#N/A`) and blanks
/// as `Null`.
fn cell_of(v: &DataRef<'_>) -> Cell {
    match v {
        DataRef::Empty | DataRef::Error(_) => Cell::Null,
        DataRef::Int(i) => Cell::Int(*i),
        DataRef::Float(f) => whole(*f).map_or(Cell::Real(*f), Cell::Int),
        DataRef::Bool(b) => Cell::Int(i64::from(*b)),
        DataRef::String(s) => Cell::Text(s.clone()),
        DataRef::SharedString(s) => Cell::Text((*s).to_string()),
        DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => Cell::Text(s.clone()),
        DataRef::DateTime(d) if d.is_duration() => Cell::Text(duration(d.as_f64())),
        DataRef::DateTime(d) => {
            let (y, mo, day, h, mi, s, ms) = d.to_ymd_hms_milli();
            Cell::Text(match (h, mi, s, ms) {
                (0, 0, 0, 0) => format!("{y:04}-{mo:02}-{day:02}"),
                (_, _, _, 0) => format!("{y:04}-{mo:02}-{day:02} {h:02}:{mi:02}:{s:02}"),
                _ => format!("{y:04}-{mo:02}-{day:02} {h:02}:{mi:02}:{s:02}.{ms:03}"),
            })
        }
    }
}

/// `f` as an integer, when it is one that a float holds exactly.
fn whole(f: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    (f.fract() == 0.0 && f.abs() <= EXACT).then_some(f as i64)
}

/// A duration of `days` as `[-]H:MM:SS` (hours past 24 kept as hours).
fn duration(days: f64) -> String {
    let ms = (days * 86_400_000.0).round();
    let sign = if ms < 0.0 { "-" } else { "" };
    let total = (ms.abs() / 1000.0).floor() as u64;
    format!("{sign}{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{ExcelDateTime, ExcelDateTimeType};

    #[test]
    fn cells_take_the_narrowest_type() {
        assert_eq!(cell_of(&DataRef::Float(3.0)), Cell::Int(3));
        assert_eq!(cell_of(&DataRef::Float(2.5)), Cell::Real(2.5));
        assert_eq!(cell_of(&DataRef::Float(1e300)), Cell::Real(1e300));
        assert_eq!(cell_of(&DataRef::Bool(true)), Cell::Int(1));
        assert_eq!(cell_of(&DataRef::Empty), Cell::Null);
        let date = ExcelDateTime::new(45943.0, ExcelDateTimeType::DateTime, false);
        assert_eq!(cell_of(&DataRef::DateTime(date)), Cell::Text("2025-10-13".into()));
        let noon = ExcelDateTime::new(45943.5, ExcelDateTimeType::DateTime, false);
        assert_eq!(cell_of(&DataRef::DateTime(noon)), Cell::Text("2025-10-13 12:00:00".into()));
        let span = ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false);
        assert_eq!(cell_of(&DataRef::DateTime(span)), Cell::Text("36:00:00".into()));
    }

    #[test]
    fn a_far_corner_cell_makes_no_grid() {
        let sheet = grid("s".into(), vec![(1_048_575, 5, Cell::Int(2)), (0, 5, Cell::Text("a".into()))]);
        assert_eq!(sheet.header, ["a"]);
        assert_eq!(sheet.rows, [vec![Cell::Int(2)]]);
    }
}
