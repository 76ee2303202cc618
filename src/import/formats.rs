//! Reading each data format as rows of cells: CSV and TSV (the `csv` crate), JSON Lines
//! (`serde_json`), Parquet (the `parquet` crate's row reader, flat schemas only). Excel workbooks,
//! one table a sheet, are read in `workbook`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use rusqlite::types::Value;

use super::{ImportError, Kind, MAX_BYTES, MAX_COLUMNS, MAX_LINE_BYTES};

/// A data file's format, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Csv,
    Tsv,
    Jsonl,
    Parquet,
    /// An Excel workbook: one table a sheet (read by `workbook`, not `scan`).
    Xlsx,
}

impl Format {
    /// The format `path`'s extension names, if any.
    pub(super) fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(Format::Csv),
            "tsv" => Some(Format::Tsv),
            "jsonl" | "ndjson" => Some(Format::Jsonl),
            "parquet" => Some(Format::Parquet),
            "xlsx" => Some(Format::Xlsx),
            _ => None,
        }
    }
}

/// One value as read: `Raw` text (CSV, TSV) has its type inferred; the others come typed.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    Null,
    Raw(String),
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Cell {
    /// The narrowest column type that holds this value.
    pub(super) fn kind(&self) -> Kind {
        match self {
            Cell::Null => Kind::Null,
            Cell::Raw(s) if s.is_empty() => Kind::Null,
            Cell::Raw(s) if is_integer(s) => Kind::Integer,
            Cell::Raw(s) if is_real(s) => Kind::Real,
            Cell::Raw(_) | Cell::Text(_) => Kind::Text,
            Cell::Int(_) => Kind::Integer,
            Cell::Real(_) => Kind::Real,
            Cell::Blob(_) => Kind::Blob,
        }
    }

    /// Bytes it takes, roughly (for the import's bound).
    pub(super) fn size(&self) -> u64 {
        match self {
            Cell::Raw(s) | Cell::Text(s) => s.len() as u64,
            Cell::Blob(b) => b.len() as u64,
            _ => 8,
        }
    }

    /// The value stored in a column of type `kind`.
    pub(super) fn into_value(self, kind: Kind) -> Value {
        match (self, kind) {
            (Cell::Null, _) => Value::Null,
            (Cell::Raw(s), _) if s.is_empty() => Value::Null,
            (Cell::Raw(s), Kind::Integer) => s.parse().map(Value::Integer).unwrap_or(Value::Text(s)),
            (Cell::Raw(s), Kind::Real) => s.parse().map(Value::Real).unwrap_or(Value::Text(s)),
            (Cell::Raw(s) | Cell::Text(s), _) => Value::Text(s),
            (Cell::Int(i), Kind::Real) => Value::Real(i as f64),
            (Cell::Int(i), _) => Value::Integer(i),
            (Cell::Real(f), _) => Value::Real(f),
            (Cell::Blob(b), _) => Value::Blob(b),
        }
    }
}

/// An integer written as SQLite would print it (no sign `+`, no leading zero: `007` stays text).
fn is_integer(s: &str) -> bool {
    s.parse::<i64>().is_ok_and(|v| v.to_string() == s)
}

/// A decimal number (`1.5`, `-2e3`): digits, sign, point and exponent only; no leading zero
/// before a digit (`007.5` stays text), nothing infinite.
fn is_real(s: &str) -> bool {
    let digits = s.trim_start_matches(['-', '+']);
    s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && s.bytes().any(|b| b.is_ascii_digit())
        && !(digits.starts_with('0') && digits.as_bytes().get(1).is_some_and(u8::is_ascii_digit))
        && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Reads `file` (at `path`) in `format`, calling `on_row` with each row's cells (a row may be
/// shorter than the columns: the rest are `NULL`); returns the columns' names as written.
pub(super) fn scan(
    file: &File,
    format: Format,
    path: &Path,
    on_row: &mut dyn FnMut(Vec<Cell>) -> Result<(), ImportError>,
) -> Result<Vec<String>, ImportError> {
    match format {
        Format::Csv => delimited(file, b',', true, on_row),
        Format::Tsv => delimited(file, b'\t', false, on_row),
        Format::Jsonl => jsonl(file, on_row),
        Format::Parquet => parquet(file, on_row),
        Format::Xlsx => Err(reason("a workbook is read sheet by sheet, not as one table".into())),
    }
    .map_err(|e| e.into_import(path))
}

/// A reason a file cannot be read, or an error from the caller's `on_row`.
enum ScanError {
    Reason(String),
    Import(ImportError),
}

impl ScanError {
    fn into_import(self, path: &Path) -> ImportError {
        match self {
            ScanError::Reason(reason) => ImportError::File { path: path.to_path_buf(), reason },
            ScanError::Import(e) => e,
        }
    }
}

impl From<ImportError> for ScanError {
    fn from(e: ImportError) -> Self {
        ScanError::Import(e)
    }
}

fn reason(s: String) -> ScanError {
    ScanError::Reason(s)
}

const AS_UTF8: &str = "save the file as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`)";

fn csv_error(e: csv::Error) -> ScanError {
    let line = e.position().map_or_else(|| "?".to_string(), |p| p.line().to_string());
    reason(match e.kind() {
        csv::ErrorKind::Utf8 { pos, err } => format!(
            "line {} is not UTF-8 text (field {}): {AS_UTF8}",
            pos.as_ref().map_or_else(|| line.clone(), |p| p.line().to_string()),
            err.field() + 1
        ),
        csv::ErrorKind::UnequalLengths { pos, expected_len, len } => format!(
            "line {} has {len} fields where the header has {expected_len}: give every line the same number of \
             fields (quote a field that holds the delimiter)",
            pos.as_ref().map_or_else(|| line.clone(), |p| p.line().to_string()),
        ),
        csv::ErrorKind::Io(e) => format!("cannot read it: {e}"),
        _ => format!("line {line}: {e}"),
    })
}

fn delimited(
    file: &File,
    delimiter: u8,
    quoting: bool,
    on_row: &mut dyn FnMut(Vec<Cell>) -> Result<(), ImportError>,
) -> Result<Vec<String>, ScanError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(quoting)
        .has_headers(true)
        .flexible(false)
        .from_reader(file.take(MAX_BYTES + 1));
    let header: Vec<String> = reader.headers().map_err(csv_error)?.iter().map(str::to_string).collect();
    if header.is_empty() {
        return Err(reason("it is empty: the first line must name the columns".into()));
    }
    if header.len() > MAX_COLUMNS {
        return Err(reason(format!("its header has {} columns; sqale imports at most {MAX_COLUMNS}", header.len())));
    }
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(csv_error)? {
        on_row(record.iter().map(|f| Cell::Raw(f.to_string())).collect())?;
    }
    Ok(header)
}

fn jsonl(file: &File, on_row: &mut dyn FnMut(Vec<Cell>) -> Result<(), ImportError>) -> Result<Vec<String>, ScanError> {
    let mut reader = BufReader::new(file.take(MAX_BYTES + 1));
    let mut columns: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| reason(format!("cannot read it: {e}")))?;
        if n == 0 {
            break;
        }
        line += 1;
        if n > MAX_LINE_BYTES {
            return Err(reason(format!(
                "line {line} is longer than {MAX_LINE_BYTES} bytes; sqale imports shorter lines"
            )));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|e| reason(format!("line {line} is not UTF-8 text (byte {}): {AS_UTF8}", e.valid_up_to() + 1)))?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| reason(format!("line {line} is not JSON ({e}): give one JSON object a line")))?;
        let serde_json::Value::Object(object) = value else {
            return Err(reason(format!(
                "line {line} is not a JSON object: give one object a line, {{\"column\": value, ...}}"
            )));
        };
        let mut cells = vec![Cell::Null; columns.len()];
        for (key, v) in object {
            let i = match index.get(&key) {
                Some(&i) => i,
                None => {
                    if columns.len() >= MAX_COLUMNS {
                        return Err(reason(format!("its objects have more than {MAX_COLUMNS} keys; sqale imports at most {MAX_COLUMNS} columns")));
                    }
                    index.insert(key.clone(), columns.len());
                    columns.push(key);
                    cells.push(Cell::Null);
                    columns.len() - 1
                }
            };
            cells[i] = json_cell(v);
        }
        on_row(cells)?;
    }
    if columns.is_empty() {
        return Err(reason("it holds no JSON object with a key: give one object a line".into()));
    }
    Ok(columns)
}

fn json_cell(v: serde_json::Value) -> Cell {
    use serde_json::Value as J;
    match v {
        J::Null => Cell::Null,
        J::Bool(b) => Cell::Int(b as i64),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Cell::Int(i),
            (None, Some(f)) if n.is_f64() => Cell::Real(f),
            _ => Cell::Text(n.to_string()),
        },
        J::String(s) => Cell::Text(s),
        other => Cell::Text(other.to_string()),
    }
}

fn parquet(
    file: &File,
    on_row: &mut dyn FnMut(Vec<Cell>) -> Result<(), ImportError>,
) -> Result<Vec<String>, ScanError> {
    use parquet::basic::Repetition;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let handle = file.try_clone().map_err(|e| reason(format!("cannot read it: {e}")))?;
    let reader = SerializedFileReader::new(handle).map_err(|e| {
        reason(format!("it is not a Parquet file ({e}): check the file, or give it the extension of its format"))
    })?;
    let schema = reader.metadata().file_metadata().schema();
    let mut columns = Vec::new();
    for field in schema.get_fields() {
        let name = field.name().to_string();
        let repeated =
            field.get_basic_info().has_repetition() && field.get_basic_info().repetition() == Repetition::REPEATED;
        if field.is_group() || repeated {
            return Err(reason(format!(
                "column \"{}\" is nested (a struct, list or map); sqale imports flat tables: flatten it first \
                 (e.g. `duckdb -c \"COPY (SELECT ... ) TO 'flat.parquet'\"`) or write it as CSV",
                crate::printable::escape_line(&name)
            )));
        }
        columns.push(name);
    }
    if columns.len() > MAX_COLUMNS {
        return Err(reason(format!("it has {} columns; sqale imports at most {MAX_COLUMNS}", columns.len())));
    }
    let rows = reader.get_row_iter(None).map_err(|e| reason(format!("cannot read its rows: {e}")))?;
    for row in rows {
        let row = row.map_err(|e| reason(format!("cannot read its rows: {e}")))?;
        on_row(row.get_column_iter().map(|(_, f)| field_cell(f)).collect())?;
    }
    Ok(columns)
}

fn field_cell(f: &parquet::record::Field) -> Cell {
    use parquet::record::Field as F;
    match f {
        F::Null => Cell::Null,
        F::Bool(b) => Cell::Int(*b as i64),
        F::Byte(v) => Cell::Int(i64::from(*v)),
        F::Short(v) => Cell::Int(i64::from(*v)),
        F::Int(v) => Cell::Int(i64::from(*v)),
        F::Long(v) => Cell::Int(*v),
        F::UByte(v) => Cell::Int(i64::from(*v)),
        F::UShort(v) => Cell::Int(i64::from(*v)),
        F::UInt(v) => Cell::Int(i64::from(*v)),
        F::ULong(v) => i64::try_from(*v).map(Cell::Int).unwrap_or_else(|_| Cell::Text(v.to_string())),
        F::Float(v) => Cell::Real(f64::from(*v)),
        F::Double(v) => Cell::Real(*v),
        F::Str(s) => Cell::Text(s.clone()),
        F::Bytes(b) => Cell::Blob(b.data().to_vec()),
        other => Cell::Text(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_recognised_as_written() {
        for s in ["0", "12", "-3", "9223372036854775807"] {
            assert!(is_integer(s), "{s}");
        }
        for s in ["007", "+5", "1.0", "1e3", "", "12 "] {
            assert!(!is_integer(s), "{s}");
        }
        for s in ["1.5", "-0.25", "1e3", "0.5", "3"] {
            assert!(is_real(s), "{s}");
        }
        for s in ["007.5", "inf", "NaN", "1.2.3", "e", "-", "1,5"] {
            assert!(!is_real(s), "{s}");
        }
    }

    #[test]
    fn cells_take_their_columns_type() {
        assert_eq!(Cell::Raw("12".into()).into_value(Kind::Integer), Value::Integer(12));
        assert_eq!(Cell::Raw("12".into()).into_value(Kind::Real), Value::Real(12.0));
        assert_eq!(Cell::Raw("12".into()).into_value(Kind::Text), Value::Text("12".into()));
        assert_eq!(Cell::Raw(String::new()).into_value(Kind::Text), Value::Null);
        assert_eq!(Cell::Int(3).into_value(Kind::Real), Value::Real(3.0));
    }
}
