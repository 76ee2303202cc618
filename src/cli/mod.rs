//! Command-line parsing and the commands.

mod args;
mod ask;
mod bench;
mod convert;
mod errors;
mod eval;
mod imatrix;
mod info;
mod mcp;
mod pack;
mod play;
mod progress;
mod prompt_cache;
mod pull;
mod quantize;
mod serve;
mod servers;
mod synth;
mod tools;
mod trace;

use std::path::PathBuf;
use std::process::ExitCode;

use args::{CallArgs, EngineArgs, ExactArgs, ModelArgs};
use clap::{Parser, Subcommand};
pub use errors::error_text;
use servers::ServerArgs;

/// `0.1.0 (backends: cpu; x86_64-unknown-linux-gnu)`.
const VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), " (backends: ", env!("SQALE_BACKENDS"), "; ", env!("SQALE_TARGET"), ")");

/// Edge runtime for the SQaLe text-to-SQL agents.
#[derive(Parser, Debug)]
#[command(name = "sqale", version = VERSION, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Answer a question over a SQLite database with a GGUF model.
    Ask(ask::AskArgs),
    /// Run one tool call exactly as the agent would and print what the model would see.
    Tools(tools::ToolsArgs),
    /// Play scripted completions through the real agent and tools, and print the conversation.
    Play(play::PlayArgs),
    /// Measure prefill and decode speed, and what the prompt cache saves in an episode.
    Bench(bench::BenchArgs),
    /// Convert a Qwen3.5 safetensors checkpoint to a text-only GGUF (and quantise it).
    Convert(convert::ConvertArgs),
    /// Quantise a GGUF with llama.cpp's quantiser (weighed by an importance matrix, if given).
    Quantize(quantize::QuantizeArgs),
    /// Collect an importance matrix from agent episodes, a benchmark or text, for `quantize --imatrix`.
    Imatrix(imatrix::ImatrixArgs),
    /// Write a synthetic Qwen3.5 checkpoint with random weights.
    Synth(synth::SynthArgs),
    /// Download a model from Hugging Face, convert and quantise it into the cache.
    Pull(pull::PullArgs),
    /// Pack a model from the cache (and a binary) into one archive for an air-gapped site.
    Pack(pack::PackArgs),
    /// Verify an archive of `sqale pack` and install its model into the cache.
    Unpack(pack::UnpackArgs),
    /// This build's backends and devices, and what a model and context need in memory.
    Info(info::InfoArgs),
    /// Clear the prompt cache on disk (the saved system-prompt states later runs restore).
    PromptCache(prompt_cache::PromptCacheArgs),
    /// Execution accuracy of one or more models on a benchmark (and `eval score` for predictions).
    Eval(Box<eval::EvalArgs>),
    /// Serve the agent over HTTP: an API with live events, a web page, metrics.
    Serve(Box<serve::ServeArgs>),
    /// Serve the agent and its eight tools over the Model Context Protocol (stdio).
    Mcp(Box<mcp::McpArgs>),
}

/// Runs a parsed command line: its exit status, or the error (`ask` tells an answer from none).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    dispatch(cli).map_err(errors::with_flag_hint)
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    if cli.command.exact() {
        // Before any command runs llama.cpp, which reads the kernel switch once.
        sqale::engine::make_exact()?;
    }
    if cli.command.writes_files() {
        crate::remove_temporaries_on_signals();
    }
    let done = match cli.command {
        Command::Ask(a) => return ask::run(a),
        Command::Tools(a) => tools::run(a),
        Command::Play(a) => play::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Convert(a) => convert::convert(a),
        Command::Quantize(a) => quantize::quantize(a),
        Command::Imatrix(a) => imatrix::run(a),
        Command::Synth(a) => synth::synth(a),
        Command::Pull(a) => pull::run(a),
        Command::Pack(a) => pack::pack(a),
        Command::Unpack(a) => pack::unpack(a),
        Command::Info(a) => info::run(a),
        Command::PromptCache(a) => prompt_cache::run(a),
        Command::Eval(a) => eval::run(*a),
        Command::Serve(a) => serve::serve(*a),
        Command::Mcp(a) => mcp::mcp(*a),
    };
    done.map(|()| ExitCode::SUCCESS)
}

impl Command {
    /// Whether `--exact` was given (to a command that runs a model, or to `info`).
    fn exact(&self) -> bool {
        let flag = match self {
            Command::Ask(a) => a.model.engine.exact,
            Command::Bench(a) => a.model.engine.exact,
            Command::Imatrix(a) => a.model.engine.exact,
            Command::Eval(a) => a.run.engine.exact,
            Command::Serve(a) => a.service.model.engine.exact,
            Command::Mcp(a) => a.service.model.engine.exact,
            Command::Info(a) => a.exact,
            _ => return false,
        };
        flag.exact
    }

    /// Whether the command writes files through temporary ones and has no signal handling of its
    /// own (`ask`, `serve` and `mcp` have theirs): those are removed on SIGINT or SIGTERM.
    fn writes_files(&self) -> bool {
        matches!(
            self,
            Command::Convert(_)
                | Command::Quantize(_)
                | Command::Imatrix(_)
                | Command::Synth(_)
                | Command::Pull(_)
                | Command::Pack(_)
                | Command::Unpack(_)
                | Command::Eval(_)
        )
    }
}

/// The database to use: the given one, or the demo database.
fn db_or_demo(db: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match db {
        Some(p) => Ok(p),
        None => sqale::demo::demo_db_path().map_err(|e| anyhow::anyhow!("the demo database: {e}")),
    }
}

/// Tool limits with the given statement timeout.
fn limits(sql_timeout: f64) -> anyhow::Result<sqale::env::Limits> {
    if !(sql_timeout.is_finite() && sql_timeout > 0.0) {
        anyhow::bail!("--sql-timeout must be a positive number of seconds, got {sql_timeout}");
    }
    Ok(sqale::env::Limits { timeout: std::time::Duration::from_secs_f64(sql_timeout), ..sqale::env::Limits::default() })
}
