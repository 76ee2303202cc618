//! How the CLI prints the library's errors: each cause once, with the flag that fixes it.

/// The command-line flag that fixes a library error, added to its message here: the library's
/// errors name no flags (as ripgrep's flag layer adds them to its library's errors).
pub(crate) fn with_flag_hint(e: anyhow::Error) -> anyhow::Error {
    use sqale::agent::AgentError;
    use sqale::engine::EngineError;
    use sqale::env::EnvError;
    let env_hint =
        |err: &EnvError| matches!(err, EnvError::NotFound(_)).then_some("pass an existing SQLite file with --db");
    let hint = if let Some(err) = e.downcast_ref::<EngineError>() {
        match err {
            EngineError::ModelNotFound(_) => Some("pass a GGUF file with --model"),
            EngineError::NoGpu(_) | EngineError::NoGpuDevice { .. } => Some("pass --gpu-layers 0 to run on the CPU"),
            EngineError::NoSuchDevice { .. } => Some("choose one with --device"),
            EngineError::Context { .. } | EngineError::ContextSize { .. } => Some("try a smaller --ctx"),
            _ => None,
        }
    } else if let Some(sqale::pull::PullError::NotCached { .. }) = e.downcast_ref() {
        Some("--model takes one")
    } else if let Some(sqale::pull::PullError::MtpBase { .. }) = e.downcast_ref() {
        Some("pass --no-mtp to pull it without a head")
    } else if let Some(err) = e.downcast_ref::<EnvError>() {
        env_hint(err)
    } else if let Some(sqale::remote::PoolError::Probe { .. }) = e.downcast_ref() {
        Some("check the --server URL, that the server is up, and --server-kind")
    } else if let Some(err) = e.downcast_ref::<AgentError>() {
        match err {
            AgentError::PromptTooLong { .. } => Some("raise --max-episode-tokens"),
            AgentError::Env(err) => env_hint(err),
            _ => None,
        }
    } else {
        None
    };
    match hint {
        Some(h) => anyhow::anyhow!("{} ({h})", error_text(&e)),
        None => e,
    }
}

/// An error and its causes on one line, as `{:#}` writes them, but each message once: many of
/// the library's errors say their cause in their own message and also hand it on as their
/// source, and a cause already said is not said again.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if msg.is_empty() || out.contains(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_errors_get_the_flag_that_fixes_them() {
        let e = with_flag_hint(sqale::engine::EngineError::NoGpu(3).into());
        assert!(e.to_string().contains("--gpu-layers 0"), "{e}");
        let e = with_flag_hint(sqale::env::EnvError::NotFound("x.db".into()).into());
        assert!(e.to_string().contains("--db"), "{e}");
        let e = with_flag_hint(sqale::agent::AgentError::PromptTooLong { needed: 9, budget: 8 }.into());
        assert!(e.to_string().contains("--max-episode-tokens"), "{e}");
        let plain = with_flag_hint(anyhow::anyhow!("something else"));
        assert_eq!(plain.to_string(), "something else");
    }

    /// A library error that says its cause and also hands it on as its source.
    #[derive(Debug, thiserror::Error)]
    #[error("reading the bench: {source}")]
    struct SaysItsSource {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_printed_once() {
        let io = std::io::Error::other("disk on fire");
        let e = anyhow::Error::from(SaysItsSource { source: io }).context("eval failed");
        assert_eq!(error_text(&e), "eval failed: reading the bench: disk on fire");
        assert_eq!(format!("{e:#}"), "eval failed: reading the bench: disk on fire: disk on fire", "what {{:#}} says");
        let e = with_flag_hint(sqale::agent::AgentError::PromptTooLong { needed: 481, budget: 300 }.into());
        let text = error_text(&e);
        assert_eq!(text.matches("the prompt alone needs 481 tokens").count(), 1, "{text}");
        let e = with_flag_hint(
            sqale::pull::PullError::NotCached {
                repo: "org/m".into(),
                alias: "m".into(),
                cache: "/c".into(),
                why: "HF_HUB_OFFLINE is set".into(),
            }
            .into(),
        );
        let text = error_text(&e);
        assert_eq!(text.matches("local GGUF file").count(), 1, "{text}");
        assert!(text.contains("--model"), "{text}");
    }
}
