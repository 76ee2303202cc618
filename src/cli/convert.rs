//! `sqale convert`: a checkpoint to GGUF, with progress bars (shared with `quantize` and `synth`).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale::printable::escape_line;
use sqale_convert::{ConvertOptions, Graft, IfPresent, Mtp, OutType, Progress};

use super::progress::Progress as Shown;

/// The progress of a step named `what` (nothing when `quiet`): a bar on a terminal, plain lines
/// otherwise.
pub(super) fn bar(what: &str, quiet: bool) -> Shown {
    Shown::new("{prefix:>10} [{bar:40}] {pos}/{len} {wide_msg} ({elapsed})", what, quiet)
}

/// A path, safe to print on one line (control characters escaped).
pub(super) fn shown(p: &std::path::Path) -> String {
    escape_line(&p.display().to_string()).into_owned()
}

/// Arguments of `sqale convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Checkpoint folder (config.json, *.safetensors, tokenizer.json, ...).
    checkpoint: PathBuf,
    /// Output type: f32, f16, bf16, q8_0, q6_k, q5_k_m, q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_1, q4_0, iq4_nl, iq4_xs, q3_k_l, q3_k_m, q3_k_s, iq3_s, iq3_xxs*, q2_k, iq2_s*, iq2_xs* (* needs --imatrix).
    #[arg(long = "type", default_value = "q4_k_m")]
    out_type: String,
    /// Output file.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// general.name in the file (default: the folder's name).
    #[arg(long)]
    name: Option<String>,
    /// Threads for quantisation.
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Leave out the multi-token-prediction head (kept by default when the checkpoint has one).
    #[arg(long, conflicts_with = "mtp_from")]
    no_mtp: bool,
    /// Graft the MTP head of this base model (a Qwen3.5 checkpoint folder, or a qwen35 GGUF with a
    /// head) onto a checkpoint without one, such as a fine-tune saved by transformers. The base
    /// must have the same architecture, dimensions and vocabulary.
    #[arg(long, value_name = "CHECKPOINT_OR_GGUF")]
    mtp_from: Option<PathBuf>,
    /// With --mtp-from: replace the checkpoint's own head (without it, a checkpoint that has a
    /// head is refused).
    #[arg(long, requires = "mtp_from")]
    mtp_replace: bool,
    /// An importance matrix for the quantiser (`sqale imatrix` on an f16/bf16 GGUF of the same
    /// model, or llama.cpp's llama-imatrix).
    #[arg(long, value_name = "IMATRIX.gguf")]
    imatrix: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// The head option of `sqale convert`'s flags.
fn mtp_mode(no_mtp: bool, from: Option<PathBuf>, replace: bool) -> Mtp {
    match from {
        _ if no_mtp => Mtp::Drop,
        Some(from) => {
            Mtp::Graft(Graft { from, if_present: if replace { IfPresent::Replace } else { IfPresent::Refuse } })
        }
        None => Mtp::Keep,
    }
}

/// Runs `sqale convert`.
pub fn convert(args: ConvertArgs) -> anyhow::Result<()> {
    let out_type: OutType = args.out_type.parse().map_err(anyhow::Error::msg)?;
    let mtp = mtp_mode(args.no_mtp, args.mtp_from, args.mtp_replace);
    let opts =
        ConvertOptions { out_type, name: args.name, repo: None, threads: args.threads, mtp, imatrix: args.imatrix };
    let report = run_convert(&args.checkpoint, &args.output, &opts, args.json)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let head = match (&report.mtp_source, report.mtp_tensors) {
            (_, 0) => "no MTP head".to_string(),
            (Some(from), n) => format!("MTP head of {} grafted, {n} tensors", shown(from)),
            (None, n) => format!("MTP head kept, {n} tensors"),
        };
        println!(
            "wrote {} ({}, {:.1} MB, {} tensors, {} dropped, {head}) in {:.1} s{}",
            shown(&report.output),
            out_type,
            report.bytes as f64 / 1e6,
            report.tensors,
            report.dropped,
            report.convert_seconds + report.quantize_seconds,
            if report.quantize_seconds > 0.0 {
                format!(" ({:.1} s quantising)", report.quantize_seconds)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// Converts with progress bars (hidden when `quiet`).
pub fn run_convert(
    checkpoint: &std::path::Path,
    output: &std::path::Path,
    opts: &ConvertOptions,
    quiet: bool,
) -> anyhow::Result<sqale_convert::Report> {
    let mut convert_bar: Option<Shown> = None;
    let mut quant_bar: Option<Shown> = None;
    let report = sqale_convert::convert(checkpoint, output, opts, &mut |p| match p {
        Progress::Tensor { index, total, name } => {
            let pb = convert_bar.get_or_insert_with(|| bar("convert", quiet));
            pb.set_message(name);
            pb.set(index as u64 + 1, total as u64);
        }
        Progress::Quantize { index, total } => {
            if let Some(pb) = convert_bar.take() {
                pb.finish();
            }
            let pb = quant_bar.get_or_insert_with(|| bar("quantise", quiet));
            pb.set_message("tensors");
            pb.set(index as u64, total as u64);
        }
    })
    .with_context(|| format!("converting {}", checkpoint.display()))?;
    for pb in [convert_bar, quant_bar].into_iter().flatten() {
        pb.finish();
    }
    Ok(report)
}
