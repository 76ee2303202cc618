//! Output files that appear whole or not at all.
//!
//! A file is written under a temporary name in its destination's folder and renamed over the
//! destination when complete, so an error or a kill part-way leaves no half-written output
//! (the temporary file is removed when dropped). The temporary file is created with mode
//! `0666` less the process's umask, as `File::create` would: the output gets the permissions a
//! user expects, not the `0600` of a private temporary file.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written; it replaces its destination on [`AtomicFile::commit`] and vanishes if
/// dropped before.
pub struct AtomicFile {
    tmp: NamedTempFile,
    dest: PathBuf,
}

impl AtomicFile {
    /// Starts writing `dest` (its folder must exist).
    pub fn create(dest: impl AsRef<Path>) -> std::io::Result<Self> {
        let dest = dest.as_ref().to_path_buf();
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".sqale-").suffix(".part");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Applied at creation, so the umask still applies, as for `File::create`.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile { tmp: builder.tempfile_in(dir)?, dest })
    }

    /// The file being written.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// The temporary file's path (for a writer that needs a path, such as llama.cpp's
    /// quantiser).
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the file to disk and renames it over the destination; returns its size in bytes.
    pub fn commit(self) -> std::io::Result<u64> {
        let file = self.tmp.as_file();
        file.sync_all()?;
        let bytes = file.metadata()?.len();
        self.tmp.persist(&self.dest).map_err(|e| e.error)?;
        Ok(bytes)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.tmp.seek(pos)
    }
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes.as_ref())?;
    f.commit().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_leaves_nothing_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write(&path, "one").unwrap();
        write(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        {
            let mut f = AtomicFile::create(&path).unwrap();
            f.write_all(b"half").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    #[cfg(unix)]
    fn output_mode_follows_the_umask_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write(&path, [1u8, 2, 3]).unwrap();
        let atomic = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        let plain_path = dir.path().join("plain.bin");
        std::fs::write(&plain_path, [1u8]).unwrap();
        let plain = std::fs::metadata(&plain_path).unwrap().permissions().mode() & 0o777;
        // Under the usual umask 022 this is 0644, where a plain temporary file would be 0600.
        assert_eq!(atomic, plain, "same mode as File::create under this umask");
    }
}
