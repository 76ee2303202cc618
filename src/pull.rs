//! The model registry (`models/registry.toml`) and `sqale pull`: download a checkpoint with
//! hf-hub into the standard Hugging Face cache (resumable, with progress; `HF_HUB_OFFLINE=1`
//! reads the cache only), convert and quantise it into sqale's cache, and record checksums.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use hf_hub::{Cache, Repo, RepoType};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The registry, embedded at build time.
pub const REGISTRY_TOML: &str = include_str!("../models/registry.toml");

/// One known model.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Entry {
    /// Short name (`synsql`).
    pub alias: String,
    /// Hugging Face repository id.
    pub repo: String,
    /// Branch, tag or commit.
    pub revision: String,
    /// Quantisation used when none is asked for.
    pub default_type: String,
    /// One line for people.
    pub description: String,
    /// The registry entry (alias) whose MTP head is grafted onto this model when its checkpoint
    /// has none (`None`: no graft).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtp_from: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RegistryFile {
    default: String,
    model: Vec<Entry>,
}

/// Errors of the registry and of pulling.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PullError {
    /// The embedded registry is malformed (a build problem).
    #[error("models/registry.toml is invalid: {0}")]
    Registry(String),
    /// Not in the cache and the network may not be used or failed.
    #[error("{repo} is not in the Hugging Face cache ({cache}) and {why}. Where there is network, pull {alias} once (the cache is then reused offline); or use a local GGUF file")]
    NotCached {
        /// The repository.
        repo: String,
        /// Its alias (or the repo again).
        alias: String,
        /// The cache folder looked in.
        cache: String,
        /// Why it could not be downloaded.
        why: String,
    },
    /// A dataset is not in the cache and cannot be downloaded.
    #[error("dataset {repo} is not in the Hugging Face cache ({cache}) and {why}. Where there is network, run the same command there once (the cache is reused offline), or give local parquet files as sqale:QUERIES,SCHEMAS")]
    DatasetNotCached {
        /// The dataset.
        repo: String,
        /// The cache folder looked in.
        cache: String,
        /// Why it could not be downloaded.
        why: String,
    },
    /// Downloading failed.
    #[error("downloading {file} from {repo} failed: {reason}")]
    Download {
        /// The repository.
        repo: String,
        /// The file.
        file: String,
        /// hf-hub's reason.
        reason: String,
    },
    /// The checkpoint has no MTP head and the model to graft one from is not at hand.
    #[error("{alias} has no MTP head of its own, and its base {base} (whose head sqale grafts by default) could not be fetched: {source}. Pull it without a head, or fetch the base first")]
    MtpBase {
        /// The model pulled.
        alias: String,
        /// The head's source repository.
        base: String,
        /// Why it could not be fetched.
        #[source]
        source: Box<PullError>,
    },
    /// A repository id or revision that the Hub would not accept, refused before any path is
    /// made from it.
    #[error("{what} {value:?} is not valid: {why}. {hint}")]
    BadName {
        /// "repository id" or "revision".
        what: &'static str,
        /// What was given.
        value: String,
        /// The rule it breaks.
        why: &'static str,
        /// What a valid one looks like.
        hint: &'static str,
    },
    /// Conversion failed.
    #[error(transparent)]
    Convert(#[from] sqale_convert::ConvertError),
    /// File system trouble.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// All known models and the default alias.
pub fn registry() -> Result<(Vec<Entry>, String), PullError> {
    let f: RegistryFile = toml::from_str(REGISTRY_TOML).map_err(|e| PullError::Registry(e.to_string()))?;
    Ok((f.model, f.default))
}

/// An alias or a repository id (`org/name`, optionally `@revision`) → an entry. Unknown
/// repositories are allowed and get the default type. A repository id and a revision become
/// folders of the cache ([`model_dir`]), so both are checked as the Hub checks them first.
pub fn resolve(name: &str) -> Result<Entry, PullError> {
    let (models, _) = registry()?;
    let (id, rev) = match name.split_once('@') {
        Some((i, r)) => (i, Some(r)),
        None => (name, None),
    };
    let mut e = match models.iter().find(|m| m.alias == id || m.repo == id) {
        Some(m) => m.clone(),
        None => {
            check_repo_id(id)?;
            Entry {
                alias: id.to_string(),
                repo: id.to_string(),
                revision: "main".into(),
                default_type: "q4_k_m".into(),
                description: String::new(),
                mtp_from: None,
            }
        }
    };
    if let Some(r) = rev {
        check_revision(r)?;
        e.revision = r.to_string();
    }
    Ok(e)
}

/// A repository id as the Hub accepts it (huggingface_hub's `validate_repo_id`): `name` or
/// `org/name`, each part of letters, digits, `-`, `_` and `.`, not starting or ending with `-` or
/// `.`, without `--` or `..`, the name at most 96 characters.
fn check_repo_id(id: &str) -> Result<(), PullError> {
    const HINT: &str =
        "Give a registry alias (models/registry.toml) or a Hugging Face id such as trl-lab/qwen3.5-2b-grpo-synsql";
    let bad = |why| PullError::BadName { what: "repository id", value: id.to_string(), why, hint: HINT };
    let parts: Vec<&str> = id.split('/').collect();
    if parts.len() > 2 {
        return Err(bad("it has more than one '/'"));
    }
    for part in parts {
        if part.is_empty() || part.len() > 96 {
            return Err(bad("each part is 1 to 96 characters"));
        }
        if !part.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            return Err(bad("only letters, digits, '-', '_' and '.' may appear"));
        }
        if part.starts_with(['-', '.']) || part.ends_with(['-', '.']) {
            return Err(bad("a part may not start or end with '-' or '.'"));
        }
        if part.contains("--") || part.contains("..") {
            return Err(bad("'--' and '..' may not appear"));
        }
    }
    Ok(())
}

/// A revision as the Hub accepts it: a branch, a tag (git's ref-name rules), or a commit hash.
/// It may hold `/` (`refs/pr/1`), but no empty, `.` or `..` part, so that the cache folder made
/// from it stays inside the model's folder.
fn check_revision(rev: &str) -> Result<(), PullError> {
    const HINT: &str = "Give a branch, a tag or a commit hash after '@', e.g. org/name@main";
    let bad = |why| PullError::BadName { what: "revision", value: rev.to_string(), why, hint: HINT };
    if rev.is_empty() || rev.len() > 255 {
        return Err(bad("it is 1 to 255 characters"));
    }
    if !rev.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        return Err(bad("only letters, digits, '-', '_', '.' and '/' may appear"));
    }
    if rev.split('/').any(|p| p.is_empty() || p.starts_with('.') || p.ends_with(".lock")) {
        return Err(bad("no part of it may be empty, start with '.' or end with '.lock'"));
    }
    if rev.contains("..") {
        return Err(bad("'..' may not appear"));
    }
    Ok(())
}

/// The default model's entry.
pub fn default_entry() -> Result<Entry, PullError> {
    let (_, default) = registry()?;
    resolve(&default)
}

/// Where sqale keeps converted models: `<cache>/sqale/models/<org>--<name>/<revision>/`.
pub fn model_dir(e: &Entry) -> PathBuf {
    crate::cache::root().join("models").join(e.repo.replace('/', "--")).join(&e.revision)
}

/// The converted GGUF of `e` in type `ty`, if it exists.
pub fn cached_gguf(e: &Entry, ty: &str) -> Option<PathBuf> {
    let p = model_dir(e).join(format!("{ty}.gguf"));
    p.is_file().then_some(p)
}

/// The reference loop `sqale_agent.py` kept next to the converted model, if the repository had one.
pub fn cached_prompt_file(e: &Entry) -> Option<PathBuf> {
    let p = model_dir(e).join("sqale_agent.py");
    p.is_file().then_some(p)
}

/// Fetches every parquet file of the dataset `id` (`org/name`) into the standard Hugging Face
/// cache, or finds them there when offline, and returns the snapshot folder holding them.
pub fn fetch_dataset(id: &str, progress: bool) -> Result<PathBuf, PullError> {
    let cache = Cache::from_env();
    let not_cached = |why: String| PullError::DatasetNotCached {
        repo: id.to_string(),
        cache: cache.path().display().to_string(),
        why,
    };
    let cached_snapshot = || -> Option<PathBuf> {
        let dir = cache.path().join(format!("datasets--{}", id.replace('/', "--"))).join("snapshots");
        let mut snaps: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        snaps.sort();
        snaps.pop().map(|(_, p)| p)
    };
    if offline() {
        return cached_snapshot().ok_or_else(|| not_cached("HF_HUB_OFFLINE is set".into()));
    }
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(progress)
        .build()
        .map_err(|err| not_cached(format!("the Hugging Face client could not start ({err})")))?;
    let repo = api.dataset(id.to_string());
    let info = match repo.info() {
        Ok(info) => info,
        // No network: a complete earlier download still serves.
        Err(err) => return cached_snapshot().ok_or_else(|| not_cached(format!("it could not be listed ({err})"))),
    };
    let mut snapshot = None;
    for file in info.siblings.iter().map(|s| s.rfilename.as_str()).filter(|f| f.ends_with(".parquet")) {
        let path = repo.get(file).map_err(|e| PullError::Download {
            repo: id.to_string(),
            file: file.to_string(),
            reason: e.to_string(),
        })?;
        // The snapshot folder is the file's path less its name in the repository.
        let depth = Path::new(file).components().count();
        snapshot = path.ancestors().nth(depth).map(Path::to_path_buf);
    }
    snapshot.ok_or_else(|| not_cached("it holds no parquet files".into()))
}

/// Whether `HF_HUB_OFFLINE` asks for the cache only.
pub fn offline() -> bool {
    std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| matches!(v.trim(), "1" | "true" | "TRUE" | "yes" | "ON" | "on"))
}

/// Files a conversion needs, besides the shards; `optional` ones may be absent.
const FILES: &[(&str, bool)] = &[
    ("config.json", true),
    ("tokenizer.json", true),
    ("tokenizer_config.json", false),
    ("generation_config.json", false),
    ("chat_template.jinja", false),
    ("README.md", false),
    ("sqale_agent.py", false),
    ("model.safetensors.index.json", false),
];

/// Shard names: from the index if there is one, else `model.safetensors`.
fn shard_names(index: Option<&Path>) -> Result<Vec<String>, PullError> {
    let Some(index) = index else {
        return Ok(vec!["model.safetensors".into()]);
    };
    let text = crate::regular_file::read_text_at_most(index, MAX_JSON_BYTES)
        .map_err(|e| PullError::Io { path: index.to_path_buf(), source: e })?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| PullError::Registry(format!("{}: {e}", index.display())))?;
    let mut names: Vec<String> = v["weight_map"]
        .as_object()
        .map(|m| m.values().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    names.sort();
    names.dedup();
    Ok(names)
}

/// How often a download that breaks off is taken up again where it stopped.
const DOWNLOAD_RETRIES: usize = 3;

/// Where one file's download stands, as [`fetch_checkpoint`] reports it while it reads.
#[derive(Debug, Clone, Copy)]
pub struct Download<'a> {
    /// The repository.
    pub repo: &'a str,
    /// The file, as named in the repository.
    pub file: &'a str,
    /// Bytes in the cache so far (a resumed download starts where the last one stopped).
    pub done: u64,
    /// The file's size.
    pub total: u64,
}

/// hf-hub's progress hooks, passed on as [`Download`]s.
struct Reporter<'a, 'f> {
    repo: &'a str,
    file: &'a str,
    done: u64,
    total: u64,
    on_download: &'f mut dyn FnMut(Download<'_>),
}

impl Reporter<'_, '_> {
    fn report(&mut self) {
        let d = Download { repo: self.repo, file: self.file, done: self.done.min(self.total), total: self.total };
        (self.on_download)(d);
    }
}

impl hf_hub::api::Progress for Reporter<'_, '_> {
    fn init(&mut self, size: usize, _filename: &str) {
        // Called again when a broken download is resumed; `update` then adds what was kept.
        self.total = size as u64;
        self.done = 0;
    }

    fn update(&mut self, size: usize) {
        self.done += size as u64;
        self.report();
    }

    fn finish(&mut self) {
        self.report();
    }
}

/// Gets the checkpoint's files into the Hugging Face cache (downloading what is missing unless
/// offline, each download reported to `on_download` as it reads) and returns the snapshot folder
/// holding them.
pub fn fetch_checkpoint(e: &Entry, on_download: &mut dyn FnMut(Download<'_>)) -> Result<PathBuf, PullError> {
    let repo = Repo::with_revision(e.repo.clone(), RepoType::Model, e.revision.clone());
    let cache = Cache::from_env();
    let not_cached = |why: String| PullError::NotCached {
        repo: e.repo.clone(),
        alias: e.alias.clone(),
        cache: cache.path().display().to_string(),
        why,
    };
    let api = if offline() {
        None
    } else {
        Some(
            hf_hub::api::sync::ApiBuilder::from_env()
                .with_progress(false)
                .with_retries(DOWNLOAD_RETRIES)
                .build()
                .map_err(|err| not_cached(format!("the Hugging Face client could not start ({err})")))?,
        )
    };
    let cached = cache.repo(repo.clone());
    let mut get = |file: &str, required: bool| -> Result<Option<PathBuf>, PullError> {
        if let Some(p) = cached.get(file) {
            return Ok(Some(p));
        }
        let Some(api) = &api else {
            return if required { Err(not_cached("HF_HUB_OFFLINE is set".into())) } else { Ok(None) };
        };
        let reporter = Reporter { repo: &e.repo, file, done: 0, total: 0, on_download: &mut *on_download };
        match api.repo(repo.clone()).download_with_progress(file, reporter) {
            Ok(p) => Ok(Some(p)),
            // Optional files are often absent from a repository.
            Err(_) if !required => Ok(None),
            Err(err) if file == "config.json" => Err(not_cached(format!("it could not be downloaded ({err})"))),
            Err(err) => Err(PullError::Download { repo: e.repo.clone(), file: file.into(), reason: err.to_string() }),
        }
    };
    let mut snapshot = None;
    let mut index = None;
    for (file, required) in FILES {
        let p = get(file, *required)?;
        if *file == "config.json" {
            snapshot = p.as_ref().and_then(|p| p.parent().map(Path::to_path_buf));
        }
        if *file == "model.safetensors.index.json" {
            index = p;
        }
    }
    for shard in shard_names(index.as_deref())? {
        get(&shard, true)?;
    }
    snapshot.ok_or_else(|| not_cached("config.json is missing".into()))
}

/// A record of what was pulled, written next to the GGUF as `<type>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Repository.
    pub repo: String,
    /// Revision asked for.
    pub revision: String,
    /// The snapshot (commit) folder the files came from.
    pub snapshot: String,
    /// Output type.
    pub out_type: String,
    /// SHA-256 of each source file.
    pub files: BTreeMap<String, String>,
    /// SHA-256 of the GGUF.
    pub gguf_sha256: String,
    /// Where its MTP head came from: `<repo>@<revision>` of the base whose head was grafted,
    /// `"own"` for the checkpoint's own head, `None` without a head.
    #[serde(default)]
    pub mtp_head: Option<String>,
    /// SHA-256 of the importance matrix the quantiser weighed by, if one was given.
    #[serde(default)]
    pub imatrix_sha256: Option<String>,
    /// Size of the GGUF.
    pub gguf_bytes: u64,
    /// sqale's version.
    pub sqale_version: String,
}

/// The largest JSON file of a checkpoint read (a shard index, a manifest).
const MAX_JSON_BYTES: u64 = 64 << 20;

/// SHA-256 of a file, hex, streaming.
pub fn sha256_file(path: &Path) -> Result<String, PullError> {
    let mut f = crate::regular_file::open(path).map_err(|e| PullError::Io { path: path.to_path_buf(), source: e })?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| PullError::Io { path: path.to_path_buf(), source: e })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(crate::hash::hex(&h.finalize()))
}

/// Whether the checkpoint in `snapshot` has its own MTP head (`mtp.*` tensors in its index or
/// single shard).
pub fn has_mtp_head(snapshot: &Path) -> bool {
    let names = |path: &Path| -> Option<Vec<String>> {
        if path.extension().is_some_and(|x| x == "json") {
            let v: serde_json::Value =
                serde_json::from_slice(&crate::regular_file::read_at_most(path, MAX_JSON_BYTES).ok()?).ok()?;
            return Some(v["weight_map"].as_object()?.keys().cloned().collect());
        }
        // A single shard: its JSON header.
        let mut f = crate::regular_file::open(path).ok()?;
        let mut len = [0u8; 8];
        f.read_exact(&mut len).ok()?;
        let mut header = vec![0u8; usize::try_from(u64::from_le_bytes(len)).ok()?.min(100 << 20)];
        f.read_exact(&mut header).ok()?;
        let v: serde_json::Value = serde_json::from_slice(&header).ok()?;
        Some(v.as_object()?.keys().cloned().collect())
    };
    ["model.safetensors.index.json", "model.safetensors"]
        .iter()
        .map(|f| snapshot.join(f))
        .find(|p| p.is_file())
        .and_then(|p| names(&p))
        .is_some_and(|n| n.iter().any(|k| k.starts_with("mtp.") || k.starts_with("model.mtp.")))
}

/// The head a pull writes: the checkpoint's own if it has one; else, unless `no_mtp`, the head of
/// the registry's `mtp_from` entry, fetched (or found in the cache) like any checkpoint. Returns
/// the conversion's head option and what the manifest records.
pub fn mtp_for(
    e: &Entry,
    snapshot: &Path,
    no_mtp: bool,
    on_download: &mut dyn FnMut(Download<'_>),
) -> Result<(sqale_convert::Mtp, Option<String>), PullError> {
    use sqale_convert::{Graft, IfPresent, Mtp};
    if no_mtp {
        return Ok((Mtp::Drop, None));
    }
    if has_mtp_head(snapshot) {
        return Ok((Mtp::Keep, Some("own".into())));
    }
    let Some(alias) = &e.mtp_from else {
        return Ok((Mtp::Keep, None));
    };
    let base = resolve(alias)?;
    let base_snapshot = fetch_checkpoint(&base, on_download).map_err(|err| PullError::MtpBase {
        alias: e.alias.clone(),
        base: base.repo.clone(),
        source: Box::new(err),
    })?;
    let graft = Graft { from: base_snapshot, if_present: IfPresent::KeepOwn };
    Ok((Mtp::Graft(graft), Some(format!("{}@{}", base.repo, base.revision))))
}

/// Converts the snapshot into sqale's cache as `<type>.gguf` with the MTP head `mtp` (see
/// [`mtp_for`]; `mtp_head` is what the manifest records of it), keeps `sqale_agent.py` beside
/// it, and writes the manifest. Returns the GGUF path and the manifest.
pub fn install(
    e: &Entry,
    snapshot: &Path,
    ty: &str,
    options: &PullOptions,
    (mtp, mtp_head): (sqale_convert::Mtp, Option<String>),
    progress: &mut dyn FnMut(sqale_convert::Progress<'_>),
) -> Result<(PathBuf, Manifest), PullError> {
    let out_type: sqale_convert::OutType = ty.parse().map_err(|m: String| PullError::Registry(m))?;
    let dir = model_dir(e);
    std::fs::create_dir_all(&dir).map_err(|err| PullError::Io { path: dir.clone(), source: err })?;
    let gguf = dir.join(format!("{ty}.gguf"));
    let opts = sqale_convert::ConvertOptions {
        out_type,
        name: Some(e.repo.clone()),
        repo: Some(e.repo.clone()),
        threads: options.threads,
        mtp,
        imatrix: options.imatrix.clone(),
    };
    let report = sqale_convert::convert(snapshot, &gguf, &opts, progress)?;
    let mtp_head = mtp_head.filter(|_| report.mtp_tensors > 0);
    let mut files = BTreeMap::new();
    for entry in
        std::fs::read_dir(snapshot).map_err(|err| PullError::Io { path: snapshot.to_path_buf(), source: err })?
    {
        let entry = entry.map_err(|err| PullError::Io { path: snapshot.to_path_buf(), source: err })?;
        let p = entry.path();
        if p.is_file() {
            files.insert(entry.file_name().to_string_lossy().into_owned(), sha256_file(&p)?);
        }
    }
    let agent = snapshot.join("sqale_agent.py");
    if agent.is_file() {
        std::fs::copy(&agent, dir.join("sqale_agent.py"))
            .map_err(|err| PullError::Io { path: agent.clone(), source: err })?;
    }
    let manifest = Manifest {
        repo: e.repo.clone(),
        revision: e.revision.clone(),
        snapshot: snapshot.display().to_string(),
        out_type: ty.to_string(),
        files,
        gguf_sha256: sha256_file(&gguf)?,
        mtp_head,
        imatrix_sha256: options.imatrix.as_deref().map(sha256_file).transpose()?,
        gguf_bytes: std::fs::metadata(&gguf).map(|m| m.len()).unwrap_or(0),
        sqale_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let mpath = dir.join(format!("{ty}.json"));
    crate::atomic::write(&mpath, serde_json::to_string_pretty(&manifest).unwrap_or_default())
        .map_err(|err| PullError::Io { path: mpath.clone(), source: err })?;
    Ok((gguf, manifest))
}

/// How to pull a model.
#[derive(Debug, Clone, Default)]
pub struct PullOptions {
    /// Threads for quantisation (`None`: every CPU).
    pub threads: Option<i32>,
    /// Leave out the MTP head (by default the checkpoint's own, else grafted: [`mtp_for`]).
    pub no_mtp: bool,
    /// An importance matrix for the quantiser (`sqale imatrix`); the types that
    /// [`sqale_convert::QuantType::needs_imatrix`] are refused without one, before any download.
    pub imatrix: Option<PathBuf>,
}

/// What a pull reports as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum PullEvent<'a> {
    /// No model file was given: the registry's default model `entry` is pulled as `ty`, once.
    PullingDefault {
        /// The default model.
        entry: &'a Entry,
        /// Its type.
        ty: &'a str,
    },
    /// A file of the checkpoint (or of the base whose MTP head is grafted) is downloading.
    Download(Download<'a>),
    /// The conversion's progress.
    Convert(sqale_convert::Progress<'a>),
    /// The GGUF is installed, its manifest written.
    Installed {
        /// The GGUF.
        gguf: &'a Path,
        /// Its manifest.
        manifest: &'a Manifest,
    },
}

/// Pulls `entry` as `ty`: fetches its checkpoint ([`fetch_checkpoint`]), picks its MTP head
/// ([`mtp_for`]) and converts it into sqale's cache ([`install`]). Returns the GGUF path and
/// its manifest.
pub fn pull(
    entry: &Entry,
    ty: &str,
    options: &PullOptions,
    on_event: &mut dyn FnMut(PullEvent<'_>),
) -> Result<(PathBuf, Manifest), PullError> {
    let out_type: sqale_convert::OutType = ty.parse().map_err(|m: String| PullError::Registry(m))?;
    if let sqale_convert::OutType::Quant(q) = out_type {
        if q.needs_imatrix() && options.imatrix.is_none() {
            return Err(PullError::Convert(sqale_convert::ConvertError::NeedsImatrix(q)));
        }
    }
    let snapshot = fetch_checkpoint(entry, &mut |d| on_event(PullEvent::Download(d)))?;
    let mtp = mtp_for(entry, &snapshot, options.no_mtp, &mut |d| on_event(PullEvent::Download(d)))?;
    let (gguf, manifest) = install(entry, &snapshot, ty, options, mtp, &mut |p| on_event(PullEvent::Convert(p)))?;
    on_event(PullEvent::Installed { gguf: &gguf, manifest: &manifest });
    Ok((gguf, manifest))
}

/// The registry's default model in its default type: the GGUF from sqale's cache, pulled into
/// it first when missing ([`pull`], with `options`), and the `sqale_agent.py` that came with it.
pub fn default_model(
    options: &PullOptions,
    on_event: &mut dyn FnMut(PullEvent<'_>),
) -> Result<(PathBuf, Option<PathBuf>), PullError> {
    let entry = default_entry()?;
    let gguf = match cached_gguf(&entry, &entry.default_type) {
        Some(p) => p,
        None => {
            on_event(PullEvent::PullingDefault { entry: &entry, ty: &entry.default_type });
            pull(&entry, &entry.default_type, options, on_event)?.0
        }
    };
    Ok((gguf, cached_prompt_file(&entry)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_ids_and_revisions_are_checked_as_the_hub_does() {
        for ok in ["synsql", "trl-lab/qwen3.5-2b-grpo-synsql", "Qwen/Qwen3.5-2B", "gpt2", "a_b/c.d"] {
            assert!(resolve(ok).is_ok(), "{ok}");
        }
        for rev in ["main", "v1.0", "refs/pr/1", "0123456789abcdef0123456789abcdef01234567"] {
            assert_eq!(resolve(&format!("synsql@{rev}")).unwrap().revision, rev);
        }
        for bad in ["../x", "a/b/c", "org/../name", "/abs", "org/", "-org/name", "org/name.", "a--b/c", "o rg/n", ""] {
            let err = resolve(bad).expect_err(bad);
            assert!(matches!(err, PullError::BadName { what: "repository id", .. }), "{bad}: {err}");
        }
        for bad in ["../../x", "..", "main/../..", "/etc", "a//b", ".hidden", "x.lock", "a b", "", "ref@{1}"] {
            let err = resolve(&format!("org/name@{bad}")).expect_err(bad);
            assert!(matches!(err, PullError::BadName { what: "revision", .. }), "{bad}: {err}");
            let msg = err.to_string();
            assert!(msg.contains("revision") && msg.contains("org/name@main"), "{msg}");
        }
    }

    #[test]
    fn a_checked_entry_stays_inside_the_cache() {
        let root = crate::cache::root().join("models");
        let e = resolve("org/name@refs/pr/1").unwrap();
        let dir = model_dir(&e);
        assert!(dir.starts_with(&root) && dir.components().all(|c| c != std::path::Component::ParentDir));
    }
}
