//! What can go wrong packing or unpacking: each error names the file at fault.

use std::path::PathBuf;

use super::MANIFEST;

/// Errors of [`super::pack`] and [`super::unpack`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackError {
    /// File system trouble.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A model name the registry or the Hub would not accept.
    #[error(transparent)]
    Pull(#[from] crate::pull::PullError),
    /// A reference loop sqale cannot read.
    #[error(transparent)]
    Prompt(#[from] crate::prompt::PromptError),
    /// A type that is not one of the converter's.
    #[error("type {out_type:?} is not valid: {why}")]
    BadType {
        /// What was given.
        out_type: String,
        /// The converter's word.
        why: String,
    },
    /// The model to pack is not in sqale's cache.
    #[error("{repo}@{revision} is not in sqale's cache as {out_type} ({path} is missing). Pull it on this machine first, or pack a GGUF file")]
    NotInstalled {
        /// The repository.
        repo: String,
        /// The revision.
        revision: String,
        /// The type.
        out_type: String,
        /// The GGUF looked for.
        path: PathBuf,
    },
    /// The file to pack as the model is not a GGUF sqale can read.
    #[error("the file to pack as the model is not a GGUF: {source}")]
    NotGguf {
        /// The file.
        path: PathBuf,
        /// What its header reader found.
        #[source]
        source: sqale_convert::gguf::ReadError,
    },
    /// The cached GGUF differs from what its manifest recorded when it was pulled.
    #[error("{gguf} does not match its manifest {manifest} (SHA-256 {actual}, recorded {recorded}): the cached copy is damaged. Pull it again")]
    StaleCache {
        /// The GGUF.
        gguf: PathBuf,
        /// Its manifest.
        manifest: PathBuf,
        /// Its SHA-256 now.
        actual: String,
        /// The SHA-256 recorded.
        recorded: String,
    },
    /// A file changed while it was packed.
    #[error(
        "{path} changed while it was packed ({got} bytes read, {want} expected). Pack it again once nothing writes it"
    )]
    Changed {
        /// The file.
        path: PathBuf,
        /// Bytes read.
        got: u64,
        /// Its size when packing began.
        want: u64,
    },
    /// A target triple that cannot be one.
    #[error("{target:?} is not a target triple such as aarch64-unknown-linux-gnu: {why}")]
    BadTarget {
        /// What was given.
        target: String,
        /// The rule it breaks.
        why: &'static str,
    },
    /// The binary to pack is not an executable for its target.
    #[error("{path} is not a program for {target}: {why}")]
    WrongBinary {
        /// The file.
        path: PathBuf,
        /// The target it was given for.
        target: String,
        /// What it is instead.
        why: String,
    },
    /// A file of the archive ends early.
    #[error("{archive}: {file} is truncated ({got} of {want} bytes). Copy the archive again from the machine that packed it")]
    Truncated {
        /// The archive.
        archive: PathBuf,
        /// The file (its name in the archive).
        file: String,
        /// Bytes present.
        got: u64,
        /// Bytes its header gives.
        want: u64,
    },
    /// A file of the archive differs from what the manifest records.
    #[error("{archive}: {file} is altered: {what}. Copy the archive again from the machine that packed it")]
    Altered {
        /// The archive.
        archive: PathBuf,
        /// The file (its name in the archive).
        file: String,
        /// How it differs.
        what: String,
    },
    /// A file the manifest lists is not in the archive.
    #[error("{archive}: {file} is listed in {MANIFEST} but missing from the archive. Copy the archive again from the machine that packed it")]
    Missing {
        /// The archive.
        archive: PathBuf,
        /// The file (its name in the archive).
        file: String,
    },
    /// An entry no archive of `sqale pack` has.
    #[error("{archive}: {file} {why}: the archive was altered, or `sqale pack` did not make it")]
    Unexpected {
        /// The archive.
        archive: PathBuf,
        /// The entry (its name in the archive).
        file: String,
        /// Why it does not belong.
        why: String,
    },
    /// The archive has no manifest.
    #[error("{archive} has no {MANIFEST}: it is truncated (copy it again), or `sqale pack` did not make it")]
    NoManifest {
        /// The archive.
        archive: PathBuf,
    },
    /// The manifest cannot be read.
    #[error("{archive}: {MANIFEST} is invalid: {why}")]
    BadManifest {
        /// The archive.
        archive: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The tar structure is broken.
    #[error(
        "{archive} is damaged or truncated {at}: {source}. Copy the archive again from the machine that packed it"
    )]
    Damaged {
        /// The archive.
        archive: PathBuf,
        /// Where: "at its start", or after the last entry read whole.
        at: String,
        /// The tar reader's error.
        #[source]
        source: std::io::Error,
    },
    /// Every file matches the manifest, but the archive's SHA-256 is not the one expected: the
    /// manifest itself (or the tar framing) was changed.
    #[error("{archive}: its SHA-256 is {actual}, but {from} says {expected}, though every file matches {MANIFEST}: {MANIFEST} or the tar headers are altered. Copy the archive again from the machine that packed it")]
    Digest {
        /// The archive.
        archive: PathBuf,
        /// Its SHA-256.
        actual: String,
        /// The SHA-256 expected.
        expected: String,
        /// Where the expected one came from.
        from: String,
    },
    /// A SHA-256 given is not 64 hex digits.
    #[error("{value:?} from {from} is not a SHA-256 (64 hex digits)")]
    BadDigest {
        /// Where it came from.
        from: String,
        /// What it held.
        value: String,
    },
    /// A different file is installed where the archive's would go.
    #[error("{path} is installed already and differs from {file} in the archive; nothing was changed. Keep it, or replace it")]
    Conflict {
        /// The installed file.
        path: PathBuf,
        /// The archive's file.
        file: String,
    },
    /// The binary's destination is in a folder that does not exist.
    #[error("cannot write {path}: the folder {folder} does not exist; nothing was installed")]
    NoFolder {
        /// The destination.
        path: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The output path cannot be written: a folder, or one of the files being packed.
    #[error(transparent)]
    Output(#[from] sqale_convert::atomic::OutputError),
    /// The archive's `.sha256` could not be written; the archive was removed again.
    #[error("cannot write the archive's SHA-256 to {path}: {source}; {archive} was not written either. Move what is in the way, or write the archive elsewhere")]
    Sidecar {
        /// The `.sha256` file.
        path: PathBuf,
        /// The archive.
        archive: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The type asked for is not the one the GGUF declares.
    #[error("{path} is a {declared} file (its general.file_type), not {asked}: pack it as {declared}, or quantise it to {asked} first")]
    TypeMismatch {
        /// The GGUF.
        path: PathBuf,
        /// The type it declares.
        declared: String,
        /// The type asked for.
        asked: String,
    },
    /// The GGUF declares no type, and its tensors' main type names none.
    #[error("{path} declares no file type (no general.file_type), and its tensors' main type {main} names none: say which type it is")]
    UnknownType {
        /// The GGUF.
        path: PathBuf,
        /// Its tensors' main type.
        main: String,
    },
    /// What was given as the archive is not a regular file.
    #[error("{path} is {kind}, not an archive: give the .tar file `sqale pack` wrote")]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is ("a directory", "a character device", ...).
        kind: String,
    },
    /// A binary was asked for, but the archive has none.
    #[error("{archive} holds no sqale binary; nothing was installed")]
    NoBinary {
        /// The archive.
        archive: PathBuf,
    },
}

/// An I/O error at `path`.
pub(super) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> PackError {
    let path = path.into();
    move |source| PackError::Io { path, source }
}
