//! The CLI's error text: each cause once, and the flag that fixes each library error.

use super::{error_text, with_flag_hint};

#[test]
fn library_errors_get_the_flag_that_fixes_them() {
    let e = with_flag_hint(sqale::engine::EngineError::NoGpu(3).into());
    assert!(e.to_string().contains("--gpu-layers 0"), "{e}");
    let e = with_flag_hint(sqale::engine::EngineError::NoMtpHead("m.gguf".into()).into());
    assert!(e.to_string().contains("--speculate lookup") && e.to_string().contains("--mtp-from"), "{e}");
    let e = with_flag_hint(sqale::engine::EngineError::MtpOneSequence(4).into());
    assert!(e.to_string().contains("--parallel 1"), "{e}");
    let e = with_flag_hint(sqale::env::EnvError::NotFound("x.db".into()).into());
    assert!(e.to_string().contains("--db"), "{e}");
    let e = with_flag_hint(sqale::agent::AgentError::PromptTooLong { needed: 9, budget: 8 }.into());
    assert!(e.to_string().contains("--max-episode-tokens"), "{e}");
    let plain = with_flag_hint(anyhow::anyhow!("something else"));
    assert_eq!(plain.to_string(), "something else");
}

#[test]
fn converter_errors_get_the_flag_that_fixes_them() {
    use anyhow::Context;
    use sqale_convert::ConvertError;
    let blocks = || ConvertError::MtpBlocks { blocks: 2 };
    let cases: Vec<(anyhow::Error, &str)> = vec![
        (blocks().into(), "--no-mtp"),
        (ConvertError::MtpTensor { tensor: "mtp.extra.weight".into() }.into(), "--no-mtp"),
        (ConvertError::GraftOntoOwnHead { trunk: "ft".into(), from: "base".into() }.into(), "--mtp-replace"),
        (ConvertError::GraftOntoOwnHead { trunk: "ft".into(), from: "base".into() }.into(), "--mtp-from"),
        (ConvertError::GraftFromHeadlessGguf { trunk: "ft".into(), from: "b.gguf".into() }.into(), "--no-mtp"),
        (
            ConvertError::MissingShard { path: "ck/a.safetensors".into(), index: "ck/i.json".into() }.into(),
            "--local-dir",
        ),
        // As `sqale convert` (with its context) and `sqale pull` hand them on.
        (Err::<(), _>(blocks()).context("converting ck").unwrap_err(), "--no-mtp"),
        (sqale::pull::PullError::Convert(blocks()).into(), "--no-mtp"),
    ];
    for (e, flag) in cases {
        let before = error_text(&e);
        assert!(!before.contains(flag), "the library names no flag: {before:?}");
        let text = error_text(&with_flag_hint(e));
        assert!(text.starts_with(&before) && text.contains(flag), "{text:?} should add {flag:?}");
    }
    let other = with_flag_hint(ConvertError::Config("no hidden_size".into()).into());
    assert!(!other.to_string().contains("--"), "no flag fixes a broken config.json: {other}");
}

#[test]
fn server_and_database_errors_get_the_flag_that_fixes_them() {
    use sqale::remote::{PoolError, RemoteError};
    let url = "http://gpu1:8000".to_string();
    let timeout = || RemoteError::Timeout { url: url.clone(), seconds: 600.0 };
    let unauthorized = || RemoteError::Unauthorized { url: url.clone(), status: 401 };
    let probe = |source| PoolError::Probe { url: url.clone(), source };
    let cases: Vec<(anyhow::Error, &str)> = vec![
        (timeout().into(), "raise --server-timeout"),
        (probe(timeout()).into(), "raise --server-timeout"),
        (probe(unauthorized()).into(), "--server-api-key-file"),
        // Under an episode: the agent's error hands the server's on as its source.
        (sqale::agent::AgentError::Generate(sqale::remote::remote_failed(unauthorized())).into(), "SQALE_API_KEY"),
        (probe(RemoteError::Connect { url: url.clone(), message: "refused".into() }).into(), "--server-kind"),
        (PoolError::Empty.into(), "--server URL"),
        (PoolError::Tokenizer("they disagree".into()).into(), "--tokenizer"),
        (
            PoolError::Mixed { a: "a".into(), model_a: "m".into(), b: "b".into(), model_b: "n".into() }.into(),
            "--server",
        ),
        (sqale::serve::databases::DatabaseError::NotNamePath("shop".into()).into(), "--db NAME=PATH"),
    ];
    for (e, flag) in cases {
        let before = error_text(&e);
        let text = error_text(&with_flag_hint(e));
        assert!(text.starts_with(&before) && text.contains(flag), "{text:?} should add {flag:?}");
    }
    let down = with_flag_hint(RemoteError::Connect { url, message: "refused".into() }.into());
    assert!(!down.to_string().contains("--"), "no flag fixes a server that is down: {down}");
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
    assert!(text.contains("--model") && text.contains("sqale pull m"), "{text}");
}

#[test]
fn pull_eval_and_divergence_errors_get_the_flag_that_fixes_them() {
    use sqale::divergence::DivergenceError::OtherReference;
    use sqale::eval::study::StudyError as S;
    let cases: Vec<(anyhow::Error, &str)> = vec![
        (sqale::pull::resolve("../x").unwrap_err().into(), "`sqale pull` without an argument"),
        (sqale::eval::SourceError::Unknown("x.txt".into()).into(), "sqale eval --help"),
        (S::NothingToRun.into(), "--reference file.gguf or --server URL"),
        (S::NoReference.into(), "--kld-only"),
        (S::NoLocalModels.into(), "--reference-server"),
        (S::Unrecorded { folder: "o".into(), label: "r".into(), count: 2, example: "q".into() }.into(), "--out"),
        (OtherReference { folder: "o".into(), theirs: "a".into(), ours: "b".into() }.into(), "--kld-top-k"),
        (S::NoCalls.into(), "--calls"),
        (S::VoteOnServers.into(), "--vote"),
        (S::Vote(sqale::vote::check_size(0, 4096).unwrap_err()).into(), "--vote 1 or more"),
        (S::Vote(sqale::vote::check_size(300, 4096).unwrap_err()).into(), "--ctx"),
    ];
    for (e, flag) in cases {
        let before = error_text(&e);
        assert!(!before.contains("--") && !before.contains("`sqale"), "the library names no flag: {before:?}");
        let text = error_text(&with_flag_hint(e));
        assert!(text.starts_with(&before) && text.contains(flag), "{text:?} should add {flag:?}");
    }
}

#[test]
fn pack_errors_get_the_flag_that_fixes_them() {
    use sqale::pack::PackError;
    let cases: Vec<(anyhow::Error, &str)> = vec![
        (
            PackError::NotInstalled {
                repo: "org/m".into(),
                revision: "main".into(),
                out_type: "q8_0".into(),
                path: "c/q8_0.gguf".into(),
            }
            .into(),
            "--gguf",
        ),
        (PackError::Conflict { path: "c/q4_k_m.gguf".into(), file: "model/q4_k_m.gguf".into() }.into(), "--force"),
        (PackError::NoBinary { archive: "site.tar".into() }.into(), "--binary"),
        (
            PackError::TypeMismatch { path: "m.gguf".into(), declared: "q4_1".into(), asked: "q4_k_m".into() }.into(),
            "leave out --type to pack it as q4_1",
        ),
        (PackError::UnknownType { path: "m.gguf".into(), main: "q4_K".into() }.into(), "--type"),
    ];
    for (e, flag) in cases {
        let before = error_text(&e);
        assert!(!before.contains(flag), "the library names no flag: {before:?}");
        let text = error_text(&with_flag_hint(e));
        assert!(text.starts_with(&before) && text.contains(flag), "{text:?} should add {flag:?}");
    }
}
