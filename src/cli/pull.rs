//! `sqale pull`: download, convert, quantise, record checksums.

use std::path::PathBuf;

use clap::Args;
use sqale::pull::{self, Entry};

/// Arguments of `sqale pull`.
#[derive(Args, Debug)]
pub struct PullArgs {
    /// A registry alias (synsql, sqale, bird, base) or a repository id (org/name[@revision]).
    /// Without one, lists the registry.
    model: Option<String>,
    /// Output type (default: the registry's, q4_k_m).
    #[arg(long = "type")]
    out_type: Option<String>,
    /// Threads for quantisation.
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Leave out the multi-token-prediction head. By default a model keeps its own, and a
    /// registry model without one (a fine-tune) gets its base model's head grafted, which means
    /// fetching the base checkpoint too.
    #[arg(long)]
    no_mtp: bool,
}

/// Fetches, converts and installs `entry` as `ty` with its MTP head (see [`pull_entry_mtp`]);
/// returns the GGUF path.
pub fn pull_entry(entry: &Entry, ty: &str, threads: Option<i32>, quiet: bool) -> anyhow::Result<PathBuf> {
    pull_entry_mtp(entry, ty, threads, quiet, false)
}

/// Fetches, converts and installs `entry` as `ty`; the MTP head is its own, else grafted from
/// the registry's `mtp_from` model, and left out when `no_mtp`. Returns the GGUF path.
pub fn pull_entry_mtp(
    entry: &Entry,
    ty: &str,
    threads: Option<i32>,
    quiet: bool,
    no_mtp: bool,
) -> anyhow::Result<PathBuf> {
    let snapshot = pull::fetch_checkpoint(entry, !quiet)?;
    let mtp = pull::mtp_for(entry, &snapshot, no_mtp, !quiet)?;
    let mut last = 0usize;
    let (gguf, manifest) = pull::install(entry, &snapshot, ty, threads, mtp, &mut |p| {
        if quiet {
            return;
        }
        match p {
            sqale_convert::Progress::Tensor { index, total, .. } if index * 20 / total != last => {
                last = index * 20 / total;
                eprint!("\rconverting {:>3}%", (index + 1) * 100 / total);
            }
            sqale_convert::Progress::Quantize { index, total } => eprint!("\rquantising {index}/{total}   "),
            _ => {}
        }
    })?;
    if !quiet {
        eprintln!(
            "\r{} ({}, {:.1} MB, sha256 {})",
            gguf.display(),
            manifest.out_type,
            manifest.gguf_bytes as f64 / 1e6,
            &manifest.gguf_sha256[..16]
        );
    }
    Ok(gguf)
}

pub fn run(args: PullArgs) -> anyhow::Result<()> {
    let Some(name) = args.model else {
        let (models, default) = pull::registry()?;
        for m in models {
            let mark = if m.alias == default { "*" } else { " " };
            println!("{mark} {:<8} {:<36} {:<8} {}", m.alias, m.repo, m.default_type, m.description);
        }
        return Ok(());
    };
    let entry = pull::resolve(&name)?;
    let ty = args.out_type.unwrap_or_else(|| entry.default_type.clone());
    let gguf = pull_entry_mtp(&entry, &ty, args.threads, args.json, args.no_mtp)?;
    if args.json {
        let manifest = std::fs::read_to_string(gguf.with_extension("json"))?;
        println!("{manifest}");
    } else {
        println!("{}", gguf.display());
    }
    Ok(())
}
