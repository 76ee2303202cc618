//! JSON Lines files that grow as work finishes: `episodes.jsonl` and the divergence folder's
//! `transcripts.jsonl` and `records.jsonl`. One value per line, appended with one write, so a
//! kill leaves at most one partial line; reading skips lines that do not parse.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Appends `value` to `path` as one line (one write: a kill leaves at most a partial last line).
pub(crate) fn append<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_string(value).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(line.as_bytes())?;
    f.flush()
}

/// Every value of `path`, in order, read as they are iterated; none when the file is missing. A
/// line that does not parse (one cut by a kill) is skipped.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> impl Iterator<Item = T> {
    let lines = std::fs::File::open(path).ok().map(|f| std::io::BufReader::new(f).split(b'\n'));
    lines.into_iter().flatten().map_while(Result::ok).filter_map(|l| serde_json::from_slice(&l).ok())
}

/// `values` as the text of a whole JSON Lines file.
pub(crate) fn lines<'a, T: Serialize + 'a>(
    values: impl IntoIterator<Item = &'a T>,
) -> Result<String, serde_json::Error> {
    let mut text = String::new();
    for v in values {
        text.push_str(&serde_json::to_string(v)?);
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_lines_read_back_and_a_cut_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        assert_eq!(read::<u32>(&path).count(), 0, "a missing file holds nothing");
        append(&path, &1u32).unwrap();
        append(&path, &2u32).unwrap();
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"cut").unwrap();
        assert_eq!(read::<u32>(&path).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(lines(&[1u32, 2]).unwrap(), "1\n2\n");
    }
}
