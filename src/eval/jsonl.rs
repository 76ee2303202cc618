//! JSON Lines files that grow as work finishes: `episodes.jsonl` and the divergence folder's
//! `transcripts.jsonl` and `records.jsonl`. One value per line, appended with one write, so a
//! kill leaves at most one partial line; reading skips lines that do not parse.

use std::io::Write;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Appends `value` to `path` as one line (one write: a kill leaves at most a partial last line).
pub(crate) fn append<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_string(value).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        // A FIFO put in the file's place fails at once instead of waiting for a reader.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut f = options.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        let kind = crate::regular_file::kind_of(&meta);
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is {kind}, not a regular file", path.display()),
        ));
    }
    f.write_all(line.as_bytes())?;
    f.flush()
}

/// The longest line read: one record, or one episode's transcript (its tokens and turns).
pub(crate) const MAX_LINE_BYTES: usize = 64 << 20;

/// Every value of `path`, in order, read as they are iterated; none when the file is missing or
/// is not a regular file (never a FIFO's wait, nor a device's endless bytes: the folders'
/// [`check_files`] refuses those with an error first). A line that does not parse (one cut by a
/// kill) is skipped; reading stops at a line longer than [`MAX_LINE_BYTES`].
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> impl Iterator<Item = T> {
    let lines = crate::regular_file::lines_at_most(path, MAX_LINE_BYTES).ok();
    lines.into_iter().flatten().map_while(Result::ok).filter_map(|l| serde_json::from_slice(&l).ok())
}

/// Every value of `path` that parses, and the 1-based numbers of the lines that do not (empty
/// lines aside), for the reports to say what they left out.
pub(crate) fn read_counted<T: DeserializeOwned>(path: &Path) -> (Vec<T>, Vec<usize>) {
    let (mut values, mut bad) = (Vec::new(), Vec::new());
    let Ok(lines) = crate::regular_file::lines_at_most(path, MAX_LINE_BYTES) else { return (values, bad) };
    for (i, line) in lines.enumerate() {
        let Ok(line) = line else {
            bad.push(i + 1);
            break;
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(v) => values.push(v),
            Err(_) => bad.push(i + 1),
        }
    }
    (values, bad)
}

/// Refuses a folder whose files named `names` are there but are not regular files (a link to
/// `/dev/zero`, a FIFO, a folder): an error naming the file and what it is.
pub(crate) fn check_files(dir: &Path, names: &[&str]) -> std::io::Result<()> {
    names.iter().try_for_each(|name| crate::regular_file::check_if_present(&dir.join(name)))
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
        let zero = dir.path().join("zero.jsonl");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(read::<u32>(&zero).count(), 0, "a device is not read");
        let e = check_files(dir.path(), &["x.jsonl", "zero.jsonl", "missing.jsonl"]).unwrap_err();
        assert!(e.to_string().contains("zero.jsonl is a character device"), "{e}");
    }
}
