//! Output files that appear whole or not at all.
//!
//! A file is written under a temporary name in its destination's folder and renamed over the
//! destination when complete, so an error or a kill part-way leaves no half-written output
//! (the temporary file is removed when dropped). The temporary file is created with mode
//! `0666` less the process's umask, as `File::create` would: the output gets the permissions a
//! user expects, not the `0600` of a private temporary file.
//!
//! A process stopped by a signal runs no destructors, so every temporary file (and any other
//! temporary path a caller registers with [`Pending`]) is also listed, and [`remove_pending`]
//! removes them: a program calls it from its SIGINT/SIGTERM handler before it exits.
//!
//! [`check_output`] refuses an output path that cannot be a file (a folder, `dir/`) or that is,
//! once resolved, one of the command's inputs (the same path, a symbolic link to it, or a hard
//! link: the same device and inode): writing it would destroy the input.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// The temporary paths of this process that [`remove_pending`] removes, by registration id.
static PENDING: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A temporary path (file or folder) that [`remove_pending`] removes while this value lives:
/// what an interrupted process must not leave behind. Dropping it only forgets the path.
#[derive(Debug)]
pub struct Pending {
    id: u64,
}

impl Pending {
    /// Registers `path` for removal by [`remove_pending`].
    pub fn register(path: impl Into<PathBuf>) -> Pending {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push((id, path.into()));
        Pending { id }
    }

    /// Runs `make`, which creates a temporary file or folder and returns it with its path, and
    /// registers that path, as one step for [`remove_pending`]: a signal's removal that comes
    /// meanwhile waits until the path is registered, so nothing made is missed.
    pub fn create<T>(make: impl FnOnce() -> std::io::Result<(T, PathBuf)>) -> std::io::Result<(T, Pending)> {
        let mut list = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        let (value, path) = make()?;
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        list.push((id, path));
        Ok((value, Pending { id }))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.id);
    }
}

/// Removes every registered temporary path (folders with what they hold); returns how many were
/// removed. For a signal handler's thread, before the process exits: other threads may still be
/// writing into a folder being removed, so a folder is tried a few times.
pub fn remove_pending() -> usize {
    let paths: Vec<PathBuf> =
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).drain(..).map(|(_, path)| path).collect();
    remove_paths(paths)
}

fn remove_paths(paths: Vec<PathBuf>) -> usize {
    let mut removed = 0;
    for path in paths {
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        let gone = if meta.is_dir() {
            (0..20).any(|_| std::fs::remove_dir_all(&path).is_ok() || !path.exists())
        } else {
            std::fs::remove_file(&path).is_ok()
        };
        removed += usize::from(gone);
    }
    removed
}

/// A file being written; it replaces its destination on [`AtomicFile::commit`] and vanishes if
/// dropped before (or when [`remove_pending`] runs).
pub struct AtomicFile {
    tmp: NamedTempFile,
    dest: PathBuf,
    _pending: Pending,
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
        let (tmp, pending) = Pending::create(|| {
            let tmp = builder.tempfile_in(dir)?;
            let path = tmp.path().to_path_buf();
            Ok((tmp, path))
        })?;
        Ok(AtomicFile { tmp, dest, _pending: pending })
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

/// Why an output path cannot be written. Both say what to write instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The output names a folder (or ends with `/`): it must be a file path.
    #[error("the output {} is a folder, but it must be a file path: write it as {}", output.display(), suggestion.display())]
    NotAFile {
        /// The output given.
        output: PathBuf,
        /// A file path in that folder.
        suggestion: PathBuf,
    },
    /// The output's folder does not exist.
    #[error("the output {}'s folder {} does not exist: create it first, or write the output elsewhere", output.display(), folder.display())]
    NoFolder {
        /// The output given.
        output: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The output is, once resolved, one of the inputs: writing it would destroy that input.
    #[error("the output {} is {what} ({}){how}: writing it would destroy that input. Write the output to another file", output.display(), input.display())]
    IsInput {
        /// The output given.
        output: PathBuf,
        /// What the input is ("the input GGUF", "the importance matrix", ...).
        what: String,
        /// The input.
        input: PathBuf,
        /// How they are the same ("", ", through a symbolic link", ...).
        how: &'static str,
    },
}

/// One input of a command, for [`check_output`].
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// What it is, for the error: "the input GGUF", "the importance matrix".
    pub what: &'a str,
    /// Its path.
    pub path: &'a Path,
    /// A folder whose files are all read (a checkpoint): the output may not replace any file in
    /// it (`what` then says so: "a file of the checkpoint folder").
    pub folder: bool,
}

impl<'a> Input<'a> {
    /// An input file.
    pub fn file(what: &'a str, path: &'a Path) -> Self {
        Input { what, path, folder: false }
    }

    /// An input folder whose files are read.
    pub fn folder(what: &'a str, path: &'a Path) -> Self {
        Input { what, path, folder: true }
    }
}

/// The device and inode of what `path` names (symbolic links followed).
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// `path` with its folder resolved (symbolic links, `..`), and itself too when it exists.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).ok().map(|p| p.join(name))
}

/// Whether the path was written with a trailing separator (`out/`).
fn ends_with_separator(path: &Path) -> bool {
    let s = path.as_os_str().to_string_lossy();
    s.ends_with('/') || (cfg!(windows) && s.ends_with('\\'))
}

/// Checks that `output` can be written as a file without destroying any of `inputs`: it is not
/// a folder (nor ends with `/`; the error suggests `output/default_name`), its folder exists,
/// and it is none of the inputs once resolved (the same canonical path, or the same device and
/// inode: a symbolic or hard link), nor replaces a file of an input folder.
pub fn check_output(output: &Path, default_name: &str, inputs: &[Input<'_>]) -> Result<(), OutputError> {
    let not_a_file = || OutputError::NotAFile { output: output.to_path_buf(), suggestion: output.join(default_name) };
    if ends_with_separator(output) || output.is_dir() || output.file_name().is_none() {
        return Err(not_a_file());
    }
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(OutputError::NoFolder { output: output.to_path_buf(), folder: folder.to_path_buf() });
    }
    let out_path = resolved(output);
    let out_id = file_id(output);
    let is_link = std::fs::symlink_metadata(output).is_ok_and(|m| m.file_type().is_symlink());
    for input in inputs {
        let is_input = |how| OutputError::IsInput {
            output: output.to_path_buf(),
            what: input.what.to_string(),
            input: input.path.to_path_buf(),
            how,
        };
        let in_path = resolved(input.path);
        if input.folder {
            let out_folder = out_path.as_deref().and_then(Path::parent);
            if out_id.is_some() && out_folder.is_some() && out_folder == in_path.as_deref() {
                return Err(is_input(""));
            }
            continue;
        }
        if out_path.is_some() && out_path == in_path {
            return Err(is_input(if is_link { ", through a symbolic link" } else { "" }));
        }
        if out_id.is_some() && out_id == file_id(input.path) {
            return Err(is_input(", as a hard link to the same file"));
        }
    }
    Ok(())
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
    fn an_output_that_is_an_input_is_refused_however_it_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("in.gguf");
        std::fs::write(&input, "weights").unwrap();
        let inputs = [Input::file("the input GGUF", &input)];
        let is_input = |out: &Path| matches!(check_output(out, "x", &inputs), Err(OutputError::IsInput { .. }));
        assert!(is_input(&input));
        std::fs::create_dir(d.join("sub")).unwrap();
        assert!(is_input(&d.join("sub/../in.gguf")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&input, d.join("link.gguf")).unwrap();
            assert!(is_input(&d.join("link.gguf")));
            std::fs::hard_link(&input, d.join("hard.gguf")).unwrap();
            let e = check_output(&d.join("hard.gguf"), "x", &inputs).unwrap_err().to_string();
            assert!(e.contains("hard link") && e.contains("in.gguf") && e.contains("another file"), "{e}");
        }
        assert!(check_output(&d.join("out.gguf"), "x", &inputs).is_ok());
        // A folder input: none of its files, but a new file in it is fine.
        let ck = d.join("ck");
        std::fs::create_dir(&ck).unwrap();
        std::fs::write(ck.join("model.safetensors"), "w").unwrap();
        let folder = [Input::folder("the checkpoint folder", &ck)];
        assert!(matches!(check_output(&ck.join("model.safetensors"), "x", &folder), Err(OutputError::IsInput { .. })));
        assert!(check_output(&ck.join("new.gguf"), "x", &folder).is_ok());
    }

    #[test]
    fn a_folder_is_not_an_output_file() {
        let dir = tempfile::tempdir().unwrap();
        for out in [dir.path().to_path_buf(), dir.path().join("new/")] {
            let e = check_output(&out, "model.gguf", &[]).unwrap_err();
            assert!(matches!(e, OutputError::NotAFile { .. }), "{e}");
            assert!(e.to_string().contains("must be a file path") && e.to_string().contains("model.gguf"), "{e}");
        }
        let e = check_output(&dir.path().join("no/such/out.gguf"), "m", &[]).unwrap_err();
        assert!(matches!(e, OutputError::NoFolder { .. }), "{e}");
    }

    fn pending() -> Vec<PathBuf> {
        PENDING.lock().unwrap().iter().map(|(_, p)| p.clone()).collect()
    }

    #[test]
    fn temporaries_are_listed_while_they_live_and_removed_on_request() {
        // (remove_pending itself would remove other tests' files: the binary's tests check it.)
        let dir = tempfile::tempdir().unwrap();
        let f = AtomicFile::create(dir.path().join("out.bin")).unwrap();
        let tmp = f.temp_path().to_path_buf();
        let staging = dir.path().join("staging");
        std::fs::create_dir_all(staging.join("model")).unwrap();
        std::fs::write(staging.join("model/a"), "a").unwrap();
        let kept = Pending::register(&staging);
        assert!(pending().contains(&tmp) && pending().contains(&staging));
        assert_eq!(remove_paths(vec![tmp.clone(), staging.clone()]), 2);
        assert!(!staging.exists() && !tmp.exists());
        drop((kept, f));
        assert!(!pending().contains(&tmp) && !pending().contains(&staging));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

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
