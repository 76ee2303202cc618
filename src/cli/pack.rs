//! `sqale pack` and `sqale unpack`: one verified archive for an air-gapped site
//! ([`sqale::pack`]).

use std::path::{Path, PathBuf};

use clap::Args;
use sqale::pack::{self, BinarySource, PackSource, UnpackOptions, UnpackReport};
use sqale::printable::escape_line;

use super::progress::Progress;

/// Arguments of `sqale pack`.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// The model: a registry alias or org/name[@revision] (default: the registry's default model,
    /// the one `sqale ask` uses without --model).
    model: Option<String>,
    /// Its type (default: the model's default type, q4_k_m; with --gguf, the type the file
    /// declares, which this must match).
    #[arg(long = "type")]
    out_type: Option<String>,
    /// Pack this GGUF file as the model, instead of the one `sqale pull` put in the cache.
    #[arg(long)]
    gguf: Option<PathBuf>,
    /// The reference loop (sqale_agent.py) to pack with --gguf.
    #[arg(long, requires = "gguf")]
    prompt: Option<PathBuf>,
    /// Add this sqale binary, built for the site (e.g. the aarch64 package's); needs --target.
    #[arg(long, requires = "target")]
    binary: Option<PathBuf>,
    /// The binary's target triple, e.g. aarch64-unknown-linux-gnu.
    #[arg(long, requires = "binary")]
    target: Option<String>,
    /// The archive to write (plain tar); its SHA-256 goes beside it as FILE.sha256.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `sqale unpack`.
#[derive(Args, Debug)]
pub struct UnpackArgs {
    /// The archive `sqale pack` wrote.
    archive: PathBuf,
    /// The archive's SHA-256 as `sqale pack` printed it (default: the one in ARCHIVE.sha256, when
    /// that file is beside the archive).
    #[arg(long)]
    sha256: Option<String>,
    /// Replace a different install of the same model and type.
    #[arg(long)]
    force: bool,
    /// Write the archive's sqale binary to this file (or into this folder), executable.
    #[arg(long)]
    binary: Option<PathBuf>,
    /// Verify the archive only; install nothing.
    #[arg(long)]
    check: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Byte progress on stderr: a bar on a terminal, plain lines otherwise, nothing for JSON.
fn bar(what: &str, quiet: bool) -> Progress {
    Progress::new("{prefix:>9} [{bar:40}] {bytes}/{total_bytes} {wide_msg} ({eta})", what, quiet).in_bytes()
}

fn show(pb: &mut Progress) -> impl FnMut(pack::Progress<'_>) + '_ {
    |p| {
        pb.set_message(p.file);
        pb.set(p.done, p.total);
    }
}

pub fn pack(args: PackArgs) -> anyhow::Result<()> {
    let entry = match &args.model {
        Some(name) => sqale::pull::resolve(name)?,
        None => sqale::pull::default_entry()?,
    };
    let source = match args.gguf {
        Some(gguf) => PackSource::Files { gguf, prompt: args.prompt },
        None => PackSource::Cache,
    };
    let binary = args.binary.zip(args.target).map(|(path, target)| BinarySource { path, target });
    let mut pb = bar("packing", args.json);
    let report =
        pack::pack(&entry, args.out_type.as_deref(), &source, binary.as_ref(), &args.output, &mut show(&mut pb))?;
    pb.finish();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let m = &report.manifest.model;
    println!(
        "packed {}@{} ({}) into {} ({})",
        line(&m.repo),
        line(&m.revision),
        line(&m.out_type),
        shown(&report.archive),
        size(report.bytes)
    );
    for (name, sum) in &report.manifest.files {
        println!("  {:<24} {:>10}  sha256 {}", line(name), size(sum.bytes), sum.sha256);
    }
    if let Some(t) = &report.manifest.binary_target {
        println!("  ({} is sqale for {})", pack::BINARY, line(t));
    }
    println!("archive sha256 {} (also in {})", report.sha256, shown(&report.sha256_file));
    println!("on the site: sqale unpack {}", shown(&report.archive));
    Ok(())
}

/// A name or value from an archive or the command line, safe to print on one line.
fn line(s: &str) -> String {
    escape_line(s).into_owned()
}

/// A path, safe to print on one line.
fn shown(p: &Path) -> String {
    line(&p.display().to_string())
}

pub fn unpack(args: UnpackArgs) -> anyhow::Result<()> {
    let options =
        UnpackOptions { sha256: args.sha256, force: args.force, binary_to: args.binary, check_only: args.check };
    let mut pb = bar(if args.check { "checking" } else { "unpacking" }, args.json);
    let report = pack::unpack(&args.archive, &options, &mut show(&mut pb))?;
    pb.finish();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_unpacked(&report);
    }
    Ok(())
}

fn print_unpacked(r: &UnpackReport) {
    let m = &r.manifest.model;
    let model = format!("{}@{} ({})", line(&m.repo), line(&m.revision), line(&m.out_type));
    let against = match &r.sha256_checked_against {
        Some(from) => format!("matches {}", line(from)),
        None => "not compared: no .sha256 beside the archive and no --sha256".into(),
    };
    println!("verified {} files of {} (sha256 {}, {against})", r.manifest.files.len(), shown(&r.archive), r.sha256);
    let Some(gguf) = &r.gguf else {
        println!("{model}: nothing installed (--check)");
        return;
    };
    let how = if r.already_installed { "already installed" } else { "installed" };
    println!("{how}: {model} as {}", shown(gguf));
    if let Some(p) = &r.prompt {
        println!("  reference loop {}", shown(p));
    }
    if r.default_model {
        println!("  `sqale ask` uses it without --model");
    } else {
        println!("  not the registry's default model and type: pass --model {}", shown(gguf));
    }
    match (&r.binary, &r.manifest.binary_target) {
        (Some(path), Some(t)) => println!("sqale for {} written to {}", line(t), shown(path)),
        (None, Some(t)) => println!("the archive also holds sqale for {}: --binary PATH writes it", line(t)),
        _ => {}
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{bytes} B")
    }
}
