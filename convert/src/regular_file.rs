//! Opening a file that must be a regular file: never blocking on a FIFO, never reading a device
//! or a directory, and never reading more than the caller can use.
//!
//! Opening a FIFO for reading blocks until a writer comes, and `/dev/zero` reads forever, so
//! checking the path first is not enough (it can be swapped between the check and the open).
//! [`open`] opens without blocking (`O_NONBLOCK`), then checks what was opened.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest configuration file a reader takes whole: a `config.json`, a `tokenizer.json` (the
/// Qwen3.5 vocabulary's is about 20 MB), a chat template, a README.
pub const MAX_CONFIG_BYTES: u64 = 256 << 20;

/// What a path names, in words: `a regular file`, or what it is instead (`a directory`,
/// `a named pipe (FIFO)`, `a character device`, ...).
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        return "a regular file";
    }
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_char_device() {
            return "a character device";
        }
    }
    "not a regular file"
}

/// What [`open`] found instead of a regular file: the payload of its
/// [`io::ErrorKind::InvalidInput`] error ([`not_regular`] reads it back).
#[derive(Debug)]
struct NotRegular {
    message: String,
    kind: &'static str,
}

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NotRegular {}

/// What the path was, when `e` is [`open`]'s refusal of something that is not a regular file
/// (`a directory`, `a named pipe (FIFO)`, ...).
pub fn not_regular(e: &io::Error) -> Option<&'static str> {
    e.get_ref()?.downcast_ref::<NotRegular>().map(|n| n.kind)
}

/// Opens `path` for reading if it is a regular file (a symbolic link to one is followed); a FIFO,
/// device, socket or directory is an [`io::ErrorKind::InvalidInput`] error saying which
/// ([`not_regular`]), and nothing blocks.
pub fn open(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = kind_of(&meta);
        let message = format!("{} is {kind}, not a regular file", path.display());
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular { message, kind }));
    }
    Ok(file)
}

/// The whole of the regular file at `path`, refused (an [`io::ErrorKind::InvalidData`] error)
/// when it holds more than `max_bytes`; also reads no more than that if it grows meanwhile.
pub fn read_at_most(path: &Path, max_bytes: u64) -> io::Result<Vec<u8>> {
    let file = open(path)?;
    let len = file.metadata()?.len();
    if len > max_bytes {
        return Err(too_large(path, len, max_bytes));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

/// [`read_at_most`] as UTF-8 text; text that is not UTF-8 is an [`io::ErrorKind::InvalidData`]
/// error naming the path and the byte where it stops being text.
pub fn read_text_at_most(path: &Path, max_bytes: u64) -> io::Result<String> {
    String::from_utf8(read_at_most(path, max_bytes)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to()),
        )
    })
}

/// Refuses `path` if something is there that is not a regular file (a device, a FIFO, a folder,
/// or a link to one), with an [`io::ErrorKind::InvalidInput`] error as [`open`]'s; nothing there,
/// or a regular file, is fine. For files a command reads later and may also create.
pub fn check_if_present(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            let kind = kind_of(&meta);
            let message = format!("{} is {kind}, not a regular file", path.display());
            Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular { message, kind }))
        }
        _ => Ok(()),
    }
}

/// The lines of the regular file at `path` (opened with [`open`]), without their `\n`, each
/// read only up to `max_line_bytes`: a longer line is an [`io::ErrorKind::InvalidData`] error
/// naming the line, after which the iterator ends.
pub fn lines_at_most(path: &Path, max_line_bytes: usize) -> io::Result<Lines> {
    let file = open(path)?;
    Ok(Lines { reader: io::BufReader::new(file), path: path.to_path_buf(), max: max_line_bytes, line: 0, done: false })
}

/// The lines of a file, each bounded: see [`lines_at_most`].
#[derive(Debug)]
pub struct Lines {
    reader: io::BufReader<File>,
    path: std::path::PathBuf,
    max: usize,
    line: usize,
    done: bool,
}

impl Iterator for Lines {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        use std::io::BufRead;
        if self.done {
            return None;
        }
        self.line += 1;
        let mut buf = Vec::new();
        let read = (&mut self.reader).take(self.max as u64 + 1).read_until(b'\n', &mut buf);
        match read {
            Ok(0) => {
                self.done = true;
                None
            }
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                } else if buf.len() > self.max {
                    self.done = true;
                    return Some(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{} line {} is longer than {} bytes, the most a line may hold",
                            self.path.display(),
                            self.line,
                            self.max
                        ),
                    )));
                }
                Some(Ok(buf))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

fn too_large(path: &Path, len: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} holds {len} bytes, more than the {max} it can hold", path.display()),
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_folders_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.bin");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let e = open(&fifo).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("is a named pipe (FIFO), not a regular file"), "{e}");
        assert_eq!(not_regular(&e), Some("a named pipe (FIFO)"));
        let e = open(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let link = dir.path().join("zero.bin");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read_at_most(&link, 1 << 20).unwrap_err().to_string().contains("a character device"));
        assert!(open(dir.path()).unwrap_err().to_string().contains("a directory"));
        assert_eq!(not_regular(&io::Error::other("x")), None);
    }

    #[test]
    fn lines_are_bounded_and_presence_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.jsonl");
        std::fs::write(&path, b"one\ntwo\r\nthree").unwrap();
        let lines: Vec<Vec<u8>> = lines_at_most(&path, 5).unwrap().map(Result::unwrap).collect();
        assert_eq!(lines, [b"one".to_vec(), b"two\r".to_vec(), b"three".to_vec()]);
        std::fs::write(&path, b"ok\n0123456789\nnever").unwrap();
        let mut it = lines_at_most(&path, 5).unwrap();
        assert_eq!(it.next().unwrap().unwrap(), b"ok");
        let e = it.next().unwrap().unwrap_err();
        assert!(e.to_string().contains("line 2 is longer than 5 bytes"), "{e}");
        assert!(it.next().is_none());
        // A line of exactly the bound is read.
        std::fs::write(&path, b"01234\n").unwrap();
        assert_eq!(lines_at_most(&path, 5).unwrap().count(), 1);
        assert!(check_if_present(&dir.path().join("missing")).is_ok());
        assert!(check_if_present(&path).is_ok());
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(check_if_present(&link).unwrap_err().to_string().contains("a character device"));
        assert!(lines_at_most(&link, 5).unwrap_err().to_string().contains("a character device"));
        std::fs::write(&path, b"\xff\xfe").unwrap();
        assert!(read_text_at_most(&path, 10).unwrap_err().to_string().contains("not UTF-8"));
    }

    #[test]
    fn a_file_past_its_bound_is_refused_and_one_within_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 100]).unwrap();
        assert_eq!(read_at_most(&path, 100).unwrap().len(), 100);
        let e = read_at_most(&path, 99).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("100 bytes"), "{e}");
    }
}
