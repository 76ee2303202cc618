//! `sqale convert`, `sqale quantize`, `sqale synth`: checkpoints to GGUF, with progress bars.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use sqale::printable::escape_line;
use sqale_convert::synth::Preset;
use sqale_convert::{ConvertOptions, Graft, IfPresent, Imatrix, Mtp, OutType, Progress, QuantType, QuantizeOptions};

fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>10} [{bar:40}] {pos}/{len} {wide_msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
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
    /// Output type: f32, f16, bf16, q8_0, q6_k, q5_k_m, q5_k_s, q4_k_m, q4_k_s, q4_0, iq4_nl, iq4_xs, q3_k_l, q3_k_m, q3_k_s, iq3_s, iq3_xxs*, q2_k, iq2_s*, iq2_xs* (* needs --imatrix).
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
    let mut convert_bar: Option<ProgressBar> = None;
    let mut quant_bar: Option<ProgressBar> = None;
    let report = sqale_convert::convert(checkpoint, output, opts, &mut |p| match p {
        Progress::Tensor { index, total, name } => {
            let pb = convert_bar.get_or_insert_with(|| bar(total as u64, "convert", quiet));
            pb.set_position(index as u64 + 1);
            pb.set_message(escape_line(name).into_owned());
        }
        Progress::Quantize { index, total } => {
            if let Some(pb) = convert_bar.take() {
                pb.finish_and_clear();
            }
            let pb = quant_bar.get_or_insert_with(|| bar(total as u64, "quantise", quiet));
            pb.set_position(index as u64);
        }
    })
    .with_context(|| format!("converting {}", checkpoint.display()))?;
    for pb in [convert_bar, quant_bar].into_iter().flatten() {
        pb.finish_and_clear();
    }
    Ok(report)
}

/// Arguments of `sqale quantize`.
#[derive(Args, Debug)]
pub struct QuantizeArgs {
    /// Input GGUF (f32, f16 or bf16; an already quantised one with --allow-requantize).
    input: PathBuf,
    /// Output GGUF.
    output: PathBuf,
    /// Type: q8_0, q6_k, q5_k_m, q5_k_s, q4_k_m, q4_k_s, q4_0, iq4_nl, iq4_xs, q3_k_l, q3_k_m, q3_k_s, iq3_s, iq3_xxs*, q2_k, iq2_s*, iq2_xs* (* needs --imatrix), or f32 (with --allow-requantize, a quantised file's weights dequantised exactly).
    #[arg(long = "type", default_value = "q4_k_m")]
    out_type: String,
    /// An importance matrix to weigh rounding errors by (`sqale imatrix`, or llama.cpp's
    /// llama-imatrix): required by iq3_xxs, iq2_s and iq2_xs, and better files for every type
    /// below q4_k_m.
    #[arg(long, value_name = "IMATRIX.gguf")]
    imatrix: Option<PathBuf>,
    /// Quantise an input that is already quantised (the result carries both roundings), or
    /// dequantise it with --type f32.
    #[arg(long)]
    allow_requantize: bool,
    /// Threads.
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub fn quantize(args: QuantizeArgs) -> anyhow::Result<()> {
    let ty: QuantType = args.out_type.parse().map_err(anyhow::Error::msg)?;
    // Before the warnings and the matrix: an output that would destroy an input.
    sqale_convert::quantize::check_output(&args.input, &args.output, ty, args.imatrix.as_deref())?;
    let imatrix = match &args.imatrix {
        Some(p) => Some(Imatrix::read(p).with_context(|| format!("reading the importance matrix {}", p.display()))?),
        None => None,
    };
    if args.allow_requantize {
        let header = sqale_convert::gguf::read_header(&args.input)?;
        if let Some(from) = sqale_convert::quantize::quantized_type(&header) {
            if ty != QuantType::F32 {
                eprintln!(
                    "warning: {} is already quantised ({from}): the {ty} file carries both roundings, and is worse than one quantised from f16/bf16",
                    shown(&args.input)
                );
            }
        }
    }
    let opts = QuantizeOptions {
        threads: args.threads,
        imatrix: imatrix.as_ref().zip(args.imatrix.as_deref()),
        allow_requantize: args.allow_requantize,
    };
    let mut pb: Option<ProgressBar> = None;
    let t = std::time::Instant::now();
    let bytes = sqale_convert::quantize(&args.input, &args.output, ty, &opts, &mut |i, n| {
        pb.get_or_insert_with(|| bar(n as u64, "quantise", args.json)).set_position(i as u64);
    })?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let seconds = t.elapsed().as_secs_f64();
    if args.json {
        let report = serde_json::json!({
            "output": args.output, "type": ty.to_string(), "bytes": bytes, "seconds": seconds,
            "imatrix": args.imatrix, "allow_requantize": args.allow_requantize,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let with = args.imatrix.as_ref().map(|p| format!(", importance matrix {}", shown(p))).unwrap_or_default();
        println!("wrote {} ({ty}, {:.1} MB{with}) in {seconds:.1} s", shown(&args.output), bytes as f64 / 1e6);
    }
    Ok(())
}

/// Arguments of `sqale synth`.
#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Dimensions: qwen3.5-2b (the real model's), small (K-quant-sized rows, runs in seconds) or tiny.
    #[arg(long, default_value = "qwen3.5-2b")]
    preset: String,
    /// Folder holding the tokenizer.json (and tokenizer_config.json) to ship with it.
    #[arg(long)]
    tokenizer: PathBuf,
    /// Untied output head (lm_head.weight).
    #[arg(long)]
    untied: bool,
    /// No multi-token-prediction head (by default the checkpoint has a random one, mtp.*, so that
    /// speculative decoding can be benchmarked on it).
    #[arg(long)]
    no_mtp: bool,
    /// Largest shard in MB.
    #[arg(long, default_value_t = 2000)]
    shard_mb: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output folder.
    #[arg(long, short = 'o')]
    output: PathBuf,
}

pub fn synth(args: SynthArgs) -> anyhow::Result<()> {
    let mut preset = Preset::by_name(&args.preset)
        .ok_or_else(|| anyhow::anyhow!("unknown preset {:?}: choose qwen3.5-2b, small or tiny", args.preset))?;
    preset.tied = !args.untied;
    preset.mtp = !args.no_mtp;
    let mut pb: Option<ProgressBar> = None;
    let bytes = sqale_convert::synth::write_checkpoint(
        &args.output,
        &preset,
        &args.tokenizer,
        args.shard_mb << 20,
        args.seed,
        &mut |i, n| {
            pb.get_or_insert_with(|| bar(n as u64, "shards", false)).set_position(i as u64);
        },
    )?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    println!(
        "wrote a synthetic {} checkpoint to {} ({:.2} GB of bf16 weights)",
        args.preset,
        shown(&args.output),
        bytes as f64 / 1e9
    );
    Ok(())
}
