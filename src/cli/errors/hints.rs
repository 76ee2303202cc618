//! The flag that fixes each library error, one function per part of the library. The first
//! part whose error type `e` is (or, for a server's answer, holds) decides.

use sqale::agent::AgentError;
use sqale::engine::EngineError;
use sqale::env::EnvError;

/// The hint for `e`, if a flag fixes it.
pub(super) fn flag_hint(e: &anyhow::Error) -> Option<String> {
    let parts: [fn(&anyhow::Error) -> Hint; 11] =
        [engine, pull, pack, eval, env, remote, pool, databases, agent, imatrix, convert];
    parts.iter().find_map(|part| part(e)).flatten()
}

/// `Some(hint)` of an error of this part (`Some(None)`: of this part, and no flag fixes it).
type Hint = Option<Option<String>>;

fn hint(h: &str) -> Option<String> {
    Some(h.to_string())
}

fn engine(e: &anyhow::Error) -> Hint {
    Some(match e.downcast_ref::<EngineError>()? {
        EngineError::ModelNotFound(_) => hint("pass a GGUF file with --model"),
        EngineError::NoGpu(_) | EngineError::NoGpuDevice { .. } => hint("pass --gpu-layers 0 to run on the CPU"),
        EngineError::NoSuchDevice { .. } => hint("choose one with --device; `sqale info` lists them"),
        EngineError::Context { .. } | EngineError::ContextSize { .. } => hint("try a smaller --ctx"),
        EngineError::NoMtpHead(_) => {
            hint("pass --speculate lookup, or `sqale convert` the checkpoint with its head (--mtp-from its base model)")
        }
        EngineError::MtpOneSequence(_) => hint("pass --parallel 1, or --speculate lookup with several"),
        EngineError::NotExact(_) => hint("leave out --exact, or build without those kernels"),
        _ => None,
    })
}

fn pull(e: &anyhow::Error) -> Hint {
    use sqale::pull::PullError;
    match e.downcast_ref::<PullError>()? {
        PullError::NotCached { alias, .. } => {
            Some(Some(format!("`sqale pull {alias}` pulls it; --model takes a file")))
        }
        PullError::MtpBase { .. } => Some(hint("pass --no-mtp to pull it without a head")),
        PullError::BadName { what: "repository id", .. } => {
            Some(hint("`sqale pull` without an argument lists the aliases"))
        }
        // A conversion's error is the converter's to hint.
        _ => None,
    }
}

fn pack(e: &anyhow::Error) -> Hint {
    use sqale::pack::PackError;
    Some(match e.downcast_ref::<PackError>()? {
        PackError::NotInstalled { repo, revision, out_type, .. } => {
            Some(format!("`sqale pull {repo}@{revision} --type {out_type}` puts it there; --gguf FILE packs a file"))
        }
        PackError::Conflict { .. } => hint("pass --force to replace it"),
        PackError::BadDigest { .. } => hint("--sha256 takes the archive's SHA-256 that `sqale pack` printed"),
        PackError::NoBinary { .. } => hint("leave out --binary, or pack the archive again with --binary and --target"),
        PackError::TypeMismatch { declared, .. } => Some(format!("leave out --type to pack it as {declared}")),
        PackError::UnknownType { .. } => hint("pass --type"),
        _ => None,
    })
}

fn eval(e: &anyhow::Error) -> Hint {
    use sqale::eval::study::StudyError as S;
    if let Some(sqale::eval::SourceError::Unknown(_)) = e.downcast_ref() {
        return Some(hint("see `sqale eval --help`"));
    }
    if let Some(sqale::divergence::DivergenceError::OtherReference { .. }) = e.downcast_ref() {
        return Some(hint("--out, --reference, --kld-top-k"));
    }
    Some(match e.downcast_ref::<S>()? {
        S::NothingToRun => hint("give at least one --model file.gguf, --reference file.gguf or --server URL"),
        S::NoReference => hint("--kld-only needs --reference file.gguf or --reference-server URL"),
        S::NoLocalModels => hint("give at least one --model file.gguf to measure against --reference-server"),
        S::Unrecorded { .. } => hint("they were played without --reference: use another --out folder"),
        S::NoCalls => hint("--calls free, constrained or triggered (comma-separated for several)"),
        S::VoteOnServers => hint("leave out --vote, or evaluate the served model in a run of its own"),
        S::Vote(sqale::vote::VoteError::Zero) => hint("pass --vote 1 or more (5 is a usual choice), or leave it out"),
        S::Vote(sqale::vote::VoteError::TooMany { .. }) => hint(
            "each of the --vote times --parallel sequences holds one episode (--max-episode-tokens, at most --ctx): pass a smaller --vote, --parallel or --ctx",
        ),
        _ => None,
    })
}

fn env_hint(err: &EnvError) -> Option<String> {
    matches!(err, EnvError::NotFound(_)).then(|| "pass an existing SQLite file with --db".to_string())
}

fn env(e: &anyhow::Error) -> Hint {
    Some(env_hint(e.downcast_ref::<EnvError>()?))
}

/// A server's answer, under a probe or an episode's generation error.
fn remote(e: &anyhow::Error) -> Hint {
    use sqale::remote::RemoteError;
    match e.chain().find_map(|c| c.downcast_ref::<RemoteError>())? {
        RemoteError::Timeout { .. } => Some(hint("raise --server-timeout for a slow server")),
        RemoteError::Unauthorized { .. } => {
            Some(hint("set SQALE_API_KEY or --server-api-key-file to the server's key"))
        }
        _ => None,
    }
}

fn pool(e: &anyhow::Error) -> Hint {
    use sqale::remote::PoolError;
    Some(match e.downcast_ref::<PoolError>()? {
        PoolError::Empty => hint("pass --server URL"),
        PoolError::Probe { .. } => hint("check the --server URL, that the server is up, and --server-kind"),
        PoolError::Mixed { .. } => {
            hint("the servers of one --server (or --reference-server) group must serve one model")
        }
        PoolError::Tokenizer(_) => hint("check --tokenizer, or leave it out to tokenise with the server's /tokenize"),
        _ => None,
    })
}

fn databases(e: &anyhow::Error) -> Hint {
    use sqale::serve::databases::DatabaseError;
    Some(match e.downcast_ref::<DatabaseError>()? {
        DatabaseError::NotNamePath(_) | DatabaseError::BadName(_) => {
            hint("give each database as --db NAME=PATH, e.g. --db shop=/data/shop.sqlite")
        }
        _ => None,
    })
}

fn agent(e: &anyhow::Error) -> Hint {
    Some(match e.downcast_ref::<AgentError>()? {
        AgentError::PromptTooLong { .. } => hint("raise --max-episode-tokens"),
        AgentError::Env(err) => env_hint(err),
        _ => None,
    })
}

/// `sqale imatrix`'s errors, and an importance matrix file's (from `imatrix` or a quantisation).
fn imatrix(e: &anyhow::Error) -> Hint {
    if let Some(sqale::imatrix::ImatrixError::NoEpisodes(_)) = e.downcast_ref() {
        return Some(hint("`sqale eval --reference REF.gguf --out DIR` records them; pass --episodes DIR"));
    }
    let file = e.downcast_ref::<sqale_convert::imatrix::ImatrixError>().or_else(|| match e.downcast_ref() {
        Some(sqale_convert::ConvertError::Imatrix(err)) => Some(err),
        _ => None,
    })?;
    Some(match file {
        sqale_convert::imatrix::ImatrixError::WrongModel { model, .. } => {
            Some(format!("`sqale imatrix --model {}` makes one", model.display()))
        }
        _ => None,
    })
}

/// `sqale convert`'s errors, and `sqale pull`'s conversion.
fn convert(e: &anyhow::Error) -> Hint {
    use sqale_convert::ConvertError;
    let err = e.downcast_ref::<ConvertError>().or_else(|| match e.downcast_ref() {
        Some(sqale::pull::PullError::Convert(err)) => Some(err),
        _ => None,
    })?;
    Some(match err {
        ConvertError::MtpBlocks { .. } | ConvertError::MtpTensor { .. } => {
            hint("pass --no-mtp to convert without the head")
        }
        ConvertError::GraftOntoOwnHead { .. } => {
            hint("leave out --mtp-from to keep it, or add --mtp-replace to replace it")
        }
        ConvertError::GraftFromHeadlessGguf { .. } => hint("convert the base model without --no-mtp"),
        ConvertError::MissingShard { .. } => hint("e.g. hf download <repo> --local-dir <dir>"),
        ConvertError::NeedsImatrix(_) => {
            hint("`sqale imatrix --model F16_OR_BF16.gguf` makes one; pass it with --imatrix")
        }
        ConvertError::Requantize { .. } => hint("pass --allow-requantize"),
        _ => None,
    })
}
