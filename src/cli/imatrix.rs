//! `sqale imatrix`: an importance matrix from agent episodes, a benchmark, or text
//! ([`sqale::imatrix`]), written in llama.cpp's GGUF form for `sqale quantize --imatrix`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale::imatrix::{self, ImatrixEvent, ImatrixSetup, Source};
use sqale::printable::escape_line;
use sqale_convert::Imatrix;

use super::args::ModelArgs;
use super::progress::Progress;

/// Arguments of `sqale imatrix`.
#[derive(Args, Debug)]
pub struct ImatrixArgs {
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Recorded episodes to teacher-force: the results folder of `sqale eval --reference` (its
    /// divergence/transcripts.jsonl) or that file. Repeatable.
    #[arg(long, value_name = "RESULTS_OR_TRANSCRIPTS")]
    episodes: Vec<PathBuf>,
    /// A benchmark whose questions the model plays first (as `eval` plays them), then
    /// teacher-forced.
    #[arg(long, value_name = "BENCHMARK")]
    bench: Option<String>,
    /// Questions of --bench to play (the first N).
    #[arg(long, requires = "bench")]
    limit: Option<usize>,
    /// Token budget of each played episode.
    #[arg(long, default_value_t = sqale::defaults::MAX_EPISODE_TOKENS)]
    max_episode_tokens: usize,
    /// Seed of the played episodes.
    #[arg(long, default_value_t = 0)]
    seed: u32,
    /// A plain text file, cut into chunks of --chunk tokens (as llama.cpp's llama-imatrix reads it).
    #[arg(long, value_name = "FILE")]
    text: Option<PathBuf>,
    /// Tokens per chunk of text.
    #[arg(long, default_value_t = 512)]
    chunk: usize,
    /// Chunks of text to use at most (default: all).
    #[arg(long)]
    chunks: Option<usize>,
    /// Existing matrices (sqale's or llama-imatrix's) whose statistics are added to the new ones,
    /// as llama-imatrix's --in-file; repeatable. With no other source they are only merged.
    #[arg(long = "in-file", value_name = "IMATRIX.gguf")]
    in_files: Vec<PathBuf>,
    /// The importance matrix to write (llama.cpp's GGUF imatrix form).
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Refuses an output that is a folder or any file the command reads: the model, a matrix to
/// merge, the text, the recorded episodes, the benchmark.
fn check_output(args: &ImatrixArgs, model: &std::path::Path) -> anyhow::Result<()> {
    use sqale_convert::atomic::Input;
    let transcripts: Vec<PathBuf> =
        args.episodes.iter().map(|e| e.join("divergence").join("transcripts.jsonl")).collect();
    let bench = args.bench.as_deref().map(std::path::Path::new).filter(|p| p.is_file());
    let mut inputs = vec![Input::file("the model", model)];
    inputs.extend(args.in_files.iter().map(|f| Input::file("a matrix to merge (--in-file)", f)));
    inputs.extend(args.text.iter().map(|f| Input::file("the calibration text", f)));
    inputs.extend(args.episodes.iter().map(|f| Input::file("the recorded episodes", f)));
    inputs.extend(transcripts.iter().map(|f| Input::file("the recorded episodes", f)));
    inputs.extend(bench.map(|f| Input::file("the benchmark", f)));
    Ok(sqale_convert::atomic::check_output(&args.output, "model.imatrix.gguf", &inputs)?)
}

pub fn run(args: ImatrixArgs) -> anyhow::Result<()> {
    let mut sources: Vec<Source> = args.episodes.iter().cloned().map(Source::Episodes).collect();
    if let Some(spec) = &args.bench {
        let questions = super::eval::load(spec, args.limit, None, &Default::default(), args.json)?;
        sources.push(Source::Bench { name: spec.clone(), questions });
    }
    sources.extend(args.text.iter().cloned().map(Source::Text));
    anyhow::ensure!(
        !sources.is_empty() || !args.in_files.is_empty(),
        "no calibration source: give --episodes RESULTS (recorded agent episodes), --bench BENCHMARK, --text FILE or --in-file IMATRIX"
    );
    let (path, _) = args.model.model_path()?;
    check_output(&args, &path)?;
    // Each matrix to merge must be the model's own: a merge adds entries of the same shape.
    let header = sqale_convert::gguf::read_header(&path)?;
    let mut merged: Option<Imatrix> = None;
    for f in &args.in_files {
        let m = Imatrix::read(f).with_context(|| format!("reading {}", f.display()))?;
        m.check_model(&header, f, &path)?;
        match &mut merged {
            Some(all) => all.merge(&m),
            None => merged = Some(m),
        }
    }
    // Only a benchmark to play needs the weights in this handle; the collection has its own.
    let options = sqale::engine::ModelOptions { vocab_only: args.bench.is_none(), ..args.model.model_options() };
    let model = sqale::engine::Model::load(&path, &options)?;
    if let Some(m) = &merged {
        if sources.is_empty() {
            let bytes = m.write(&args.output).with_context(|| format!("writing {}", args.output.display()))?;
            println!(
                "wrote {} ({} weights merged from {} files, {bytes} bytes)",
                super::convert::shown(&args.output),
                m.entries.len(),
                args.in_files.len()
            );
            return Ok(());
        }
    }
    let setup = ImatrixSetup {
        chunk: args.chunk,
        max_chunks: args.chunks,
        threads: args.model.engine.hardware.threads,
        engine: args.model.engine.engine_options(),
        max_episode_tokens: args.max_episode_tokens,
        seed: args.seed,
        ..ImatrixSetup::default()
    };
    let mut bar = Progress::new("{prefix:>8} [{bar:40}] {pos}/{len} {msg} ({elapsed})", "", args.json);
    let (matrix, report) = imatrix::imatrix(&model, &sources, &setup, &mut |e| match e {
        ImatrixEvent::Played { done, total } => {
            bar.set_prefix("play");
            bar.set_message("episodes");
            bar.set(done as u64, total as u64);
        }
        ImatrixEvent::Decoded { done, total } => {
            bar.set_prefix("collect");
            bar.set_message("tokens");
            bar.set(done as u64, total as u64);
        }
        ImatrixEvent::Source { source, sequences, tokens } => {
            bar.suspend(|| eprintln!("{}: {sequences} sequences, {tokens} tokens", escape_line(source)));
        }
        _ => {}
    })?;
    bar.finish();
    let mut matrix = matrix;
    if let Some(m) = &merged {
        matrix.merge(m);
    }
    let bytes = matrix.write(&args.output).with_context(|| format!("writing {}", args.output.display()))?;
    if args.json {
        let mut json = serde_json::to_value(&report)?;
        json["output"] = serde_json::json!(args.output);
        json["bytes"] = serde_json::json!(bytes);
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(());
    }
    println!(
        "wrote {} ({} weights, {} tokens counted of {} decoded in {} sequences{}) in {:.1} s{}",
        super::convert::shown(&args.output),
        report.entries,
        report.counted_tokens,
        report.decoded_tokens,
        report.sequences,
        if report.cut > 0 { format!(", {} cut to the context", report.cut) } else { String::new() },
        report.play_seconds + report.collect_seconds,
        report.peak_rss_bytes.map(|b| format!(", peak memory {:.0} MB", b as f64 / 1e6)).unwrap_or_default()
    );
    Ok(())
}
