//! sqale's per-token KL divergence on the tokens `llama-perplexity --kl-divergence` scores, for
//! checking the one against the other (`benches/kld-vs-llama.sh`).
//!
//! llama-perplexity tokenizes the text (beginning-of-sequence token added where the model wants
//! one, special-token markup read as text), cuts it into chunks of `--ctx` tokens and, in each,
//! scores the predictions of tokens `ctx/2 + 1 .. ctx`. This does the same for the first
//! `CHUNKS` chunks (as `--chunks`) with sqale's teacher-forced pass
//! ([`sqale::divergence::text::table`]: the whole vocabulary kept, so the KLD is exact) and
//! prints llama-perplexity's whole table as JSON, computed by the reports' own
//! `PerplexityTable::of`.
//!
//! ```text
//! cargo run --release --example kld_vs_llama -- REF.gguf MODEL.gguf TEXT.txt CTX [CHUNKS]
//! ```

use std::path::Path;

use sqale::divergence::report::{DP_PERCENTILES, KLD_PERCENTILES};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(
        args.len() == 4 || args.len() == 5,
        "usage: kld_vs_llama REF.gguf MODEL.gguf TEXT.txt CTX [CHUNKS]"
    );
    let ctx: usize = args[3].parse()?;
    let chunks: usize = args.get(4).map_or(Ok(1), |c| c.parse())?;
    let text = std::fs::read_to_string(&args[2])?;
    // llama-perplexity's whole table, by the function the reports' figures are checked with.
    let t = sqale::divergence::text::table(Path::new(&args[0]), Path::new(&args[1]), &text, ctx, chunks, 2)?;
    let mut out = serde_json::json!({
        "tokens": t.tokens,
        "ppl": t.ppl,
        "ppl_base": t.ppl_base,
        "ln_ratio": t.ln_ratio,
        "cor": t.cor,
        "mean_kld": t.mean_kld,
        "mean_dp": t.mean_dp,
        "rms_dp": t.rms_dp,
        "same_top_pct": 100.0 * t.same_top,
    });
    for ((name, _), v) in KLD_PERCENTILES.iter().zip(&t.kld) {
        out[format!("{name} KLD")] = serde_json::json!(v);
    }
    for ((name, _), v) in DP_PERCENTILES.iter().zip(&t.dp) {
        out[format!("{name} dp")] = serde_json::json!(v);
    }
    // The names the earlier checks read.
    out["max_kld"] = out["Maximum KLD"].clone();
    out["p99_kld"] = out["99.0% KLD"].clone();
    out["median_kld"] = out["Median KLD"].clone();
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
