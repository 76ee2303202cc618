//! `sqale synth`: a synthetic Qwen3.5 checkpoint with random weights, with a progress bar.

use std::path::PathBuf;

use clap::Args;
use sqale_convert::synth::Preset;

use super::convert::{bar, shown};

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

/// Runs `sqale synth`.
pub fn synth(args: SynthArgs) -> anyhow::Result<()> {
    let mut preset = Preset::by_name(&args.preset)
        .ok_or_else(|| anyhow::anyhow!("unknown preset {:?}: choose qwen3.5-2b, small or tiny", args.preset))?;
    preset.tied = !args.untied;
    preset.mtp = !args.no_mtp;
    let mut pb: Option<super::progress::Progress> = None;
    let bytes = sqale_convert::synth::write_checkpoint(
        &args.output,
        &preset,
        &args.tokenizer,
        args.shard_mb << 20,
        args.seed,
        &mut |i, n| {
            pb.get_or_insert_with(|| bar("shards", false)).set(i as u64, n as u64);
        },
    )?;
    if let Some(pb) = pb {
        pb.finish();
    }
    println!(
        "wrote a synthetic {} checkpoint to {} ({:.2} GB of bf16 weights)",
        args.preset,
        shown(&args.output),
        bytes as f64 / 1e9
    );
    Ok(())
}
