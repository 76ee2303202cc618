//! `sqale prompt-cache clear`, and how the other commands show the prompt cache on disk: its
//! files for a model (`info --model`) and what it could not do (`ask`).

use std::path::Path;

use clap::{Args, Subcommand};
use serde_json::{json, Value};
use sqale::engine::prompt_cache::{self, PromptCacheError};

/// Arguments of `sqale prompt-cache`.
#[derive(Args, Debug)]
pub struct PromptCacheArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand, Debug)]
enum Action {
    /// Remove every saved system-prompt state (downloaded models and the rest of the cache stay).
    Clear {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: PromptCacheArgs) -> anyhow::Result<()> {
    let Action::Clear { json } = args.action;
    let dir = prompt_cache::default_dir();
    let cleared = prompt_cache::clear(&dir)?;
    if json {
        println!("{}", json!({ "dir": dir, "files": cleared.files, "bytes": cleared.bytes }));
    } else {
        println!("removed {} file(s), {} from {}", cleared.files, mib(cleared.bytes), dir.display());
    }
    Ok(())
}

/// Prints what the prompt cache could not do (on stderr), with the flag that turns it off.
pub(super) fn print_notes(notes: Vec<PromptCacheError>) {
    for note in notes {
        let hint = match note {
            PromptCacheError::Write { .. } => " (--no-prompt-cache turns the prompt cache off)",
            _ => "",
        };
        eprintln!("sqale: {}{hint}", sqale::printable::escape_controls(&note.to_string()));
    }
}

/// The prompt cache's files for the model at `model`, as `info --json` shows them.
pub(super) fn for_model(model: &Path) -> anyhow::Result<Value> {
    let dir = prompt_cache::default_dir();
    let files: Vec<Value> = prompt_cache::for_model(&dir, model)?
        .into_iter()
        .filter_map(|(f, stale)| {
            let k = f.key?;
            Some(json!({
                "path": f.path, "bytes": f.bytes, "tokens": f.tokens, "ctx": k.ctx, "batch": k.batch,
                "kv_type": k.kv_type, "prompt_sha256": k.prompt_sha256, "mtp_drafting": k.mtp_drafting,
                "stale": stale,
            }))
        })
        .collect();
    Ok(json!({ "dir": dir, "files": files }))
}

/// Prints [`for_model`]'s files for people.
pub(super) fn print_for_model(cache: &Value) {
    let files = cache["files"].as_array().map(Vec::as_slice).unwrap_or_default();
    let dir = cache["dir"].as_str().unwrap_or_default();
    if files.is_empty() {
        println!("  prompt cache      none in {dir} (the first `sqale ask` writes one)");
        return;
    }
    let total: u64 = files.iter().filter_map(|f| f["bytes"].as_u64()).sum();
    println!("  prompt cache      {} file(s), {} in {dir}", files.len(), mib(total));
    for f in files {
        let stale = if f["stale"] == true { ", stale: the model file changed (replaced on next use)" } else { "" };
        let head = if f["mtp_drafting"] == true { ", with the MTP head's state" } else { "" };
        println!(
            "    {}  {} prompt tokens, ctx {}, batch {}, prompt {:.12}{head}{stale}",
            mib(f["bytes"].as_u64().unwrap_or(0)),
            f["tokens"],
            f["ctx"],
            f["batch"],
            f["prompt_sha256"].as_str().unwrap_or_default()
        );
    }
}

/// Bytes as MiB for people.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}
