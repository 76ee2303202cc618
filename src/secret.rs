//! Secrets kept in files: the API keys a server expects and a client sends.

use std::path::Path;

/// The API key in the file at `path`: the file's text without surrounding whitespace (so that a
/// key file ending in a newline works). Empty when the file holds only whitespace; the caller
/// decides whether that is an error.
pub fn read_key_file(path: &Path) -> std::io::Result<String> {
    Ok(crate::regular_file::read_text_at_most(path, MAX_KEY_FILE_BYTES)?.trim().to_string())
}

/// The largest key file read: a key is a line of text, so anything near this is not a key file.
pub const MAX_KEY_FILE_BYTES: u64 = 64 << 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_file_is_read_without_its_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, "  s3cret-key\n").unwrap();
        assert_eq!(read_key_file(&path).unwrap(), "s3cret-key");
        std::fs::write(&path, "\n").unwrap();
        assert_eq!(read_key_file(&path).unwrap(), "");
        assert!(read_key_file(&dir.path().join("missing")).is_err());
        let e = read_key_file(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        std::fs::write(&path, vec![b'k'; MAX_KEY_FILE_BYTES as usize + 1]).unwrap();
        assert!(read_key_file(&path).unwrap_err().to_string().contains("more than the 65536"));
    }
}
