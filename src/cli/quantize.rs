//! `sqale quantize`: a GGUF quantised with llama.cpp's quantiser, with a progress bar.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale_convert::{Imatrix, QuantType, QuantizeOptions};

use super::convert::{bar, shown};
use super::progress::Progress;

/// Arguments of `sqale quantize`.
#[derive(Args, Debug)]
pub struct QuantizeArgs {
    /// Input GGUF (f32, f16 or bf16; an already quantised one with --allow-requantize).
    input: PathBuf,
    /// Output GGUF.
    output: PathBuf,
    /// Type: q8_0, q6_k, q5_k_m, q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_1, q4_0, iq4_nl, iq4_xs, q3_k_l, q3_k_m, q3_k_s, iq3_s, iq3_xxs*, q2_k, iq2_s*, iq2_xs* (* needs --imatrix), or f32 (with --allow-requantize, a quantised file's weights dequantised exactly).
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

/// Runs `sqale quantize`.
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
    let mut pb: Option<Progress> = None;
    let t = std::time::Instant::now();
    let bytes = sqale_convert::quantize(&args.input, &args.output, ty, &opts, &mut |i, n| {
        let pb = pb.get_or_insert_with(|| bar("quantise", args.json));
        pb.set_message("tensors");
        pb.set(i as u64, n as u64);
    })?;
    if let Some(pb) = pb {
        pb.finish();
    }
    let seconds = t.elapsed().as_secs_f64();
    // What the file really holds: llama.cpp stores a weight whose rows do not divide into the
    // type's blocks in a larger type.
    let written = sqale_convert::gguf::read_header(&args.output)
        .with_context(|| format!("reading back {}", shown(&args.output)))?;
    let mix = sqale_convert::mix::type_mix(&written);
    let fallback = sqale_convert::mix::fallback(&written);
    if args.json {
        let report = serde_json::json!({
            "output": args.output, "type": ty.to_string(), "bytes": bytes, "seconds": seconds,
            "imatrix": args.imatrix, "allow_requantize": args.allow_requantize,
            "mix": mix, "fallback": fallback,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let with = args.imatrix.as_ref().map(|p| format!(", importance matrix {}", shown(p))).unwrap_or_default();
        let mib = bytes as f64 / 1048576.0;
        println!("wrote {} ({ty}, {mib:.1} MiB{with}) in {seconds:.1} s", shown(&args.output));
        println!("tensor types: {}", sqale_convert::mix::mix_text(&mix));
    }
    if let Some(f) = &fallback {
        eprintln!("warning: {}; the file is not the {ty} its name says", f.sentence());
    }
    Ok(())
}
