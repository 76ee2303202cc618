//! Opening a file that must be a regular file: never blocking on a FIFO, never reading a device
//! or a directory, and never reading more than the caller can use.
//!
//! Opening a FIFO for reading blocks until a writer comes, and `/dev/zero` reads forever, so
//! checking the path first is not enough (it can be swapped between the check and the open).
//! [`open`] opens without blocking (`O_NONBLOCK`), then checks what was opened.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

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
