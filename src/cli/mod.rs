//! Command-line parsing and the commands.

mod ask;
mod bench;
mod convert;
mod errors;
mod eval;
mod info;
mod pull;
mod serve;
mod tools;
mod trace;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
pub use errors::error_text;
use sqale::defaults;
use sqale::speculate::Speculate;

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
    /// Measure prefill and decode speed, and what the prompt cache saves in an episode.
    Bench(bench::BenchArgs),
    /// Convert a Qwen3.5 safetensors checkpoint to a text-only GGUF (and quantise it).
    Convert(convert::ConvertArgs),
    /// Quantise a GGUF with llama.cpp's quantiser.
    Quantize(convert::QuantizeArgs),
    /// Write a synthetic Qwen3.5 checkpoint with random weights.
    Synth(convert::SynthArgs),
    /// Download a model from Hugging Face, convert and quantise it into the cache.
    Pull(pull::PullArgs),
    /// This build's backends and devices, and what a model and context need in memory.
    Info(info::InfoArgs),
    /// Execution accuracy of one or more models on a benchmark (and `eval score` for predictions).
    Eval(Box<eval::EvalArgs>),
    /// Serve the agent over HTTP: an API with live events, a web page, metrics.
    Serve(Box<serve::ServeArgs>),
    /// Serve the agent and its eight tools over the Model Context Protocol (stdio).
    Mcp(Box<serve::McpArgs>),
}

/// Where a model runs: threads and GPU placement, shared by every command that runs one.
#[derive(Args, Debug, Clone)]
pub struct HardwareArgs {
    /// Threads for generation and prefill (default: every CPU available).
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Layers to offload to the GPU (default: all with a GPU backend, else 0).
    #[arg(long, short = 'g')]
    gpu_layers: Option<u32>,
    /// Device to run on, by index or name as `sqale info` lists them (default: every GPU).
    #[arg(long)]
    device: Option<String>,
}

impl HardwareArgs {
    /// How to load a model on this hardware.
    fn model_options(&self, verbose: bool) -> sqale::engine::ModelOptions {
        sqale::engine::ModelOptions {
            gpu_layers: self.gpu_layers,
            verbose,
            device: self.device.clone(),
            skip_mtp: false,
        }
    }
}

/// Sampling flags (the protocol's values by default), in-process or on a server.
#[derive(Args, Debug, Clone)]
pub struct SamplingArgs {
    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = defaults::TEMPERATURE)]
    temp: f32,
    /// Top-p (nucleus) threshold.
    #[arg(long, default_value_t = defaults::TOP_P)]
    top_p: f32,
    /// Top-k cut-off.
    #[arg(long, default_value_t = defaults::TOP_K)]
    top_k: i32,
}

impl SamplingArgs {
    /// The same values for a server.
    fn remote(&self) -> sqale::remote::Sampling {
        sqale::remote::Sampling { temperature: self.temp, top_p: self.top_p, top_k: self.top_k }
    }
}

/// Model and sampling flags shared by the commands that run a model.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// GGUF model file (default: the registry's default model, pulled on first use).
    #[arg(long, short = 'm')]
    model: Option<PathBuf>,
    #[command(flatten)]
    hardware: HardwareArgs,
    /// Context window in tokens.
    #[arg(long, default_value_t = defaults::CONTEXT_TOKENS)]
    ctx: u32,
    /// Tokens per prefill batch.
    #[arg(long, default_value_t = defaults::BATCH_TOKENS)]
    batch: u32,
    #[command(flatten)]
    sampling: SamplingArgs,
    /// Speculative decoding: `auto` (every drafter the file has where drafts cannot change a
    /// token: on batch-invariant kernels, see `sqale info`; plain decoding elsewhere), `off`,
    /// `lookup` (prompt lookup), `mtp` (the model's head) or `both`. On other kernels the
    /// explicit modes may change tokens where llama.cpp rounds batches differently (docs/speculative-decoding.md).
    #[arg(long, default_value_t = Speculate::Auto)]
    speculate: Speculate,
    /// Longest draft one verify step checks (shorter drafts are chosen from the measured cost).
    #[arg(long, default_value_t = defaults::MAX_DRAFT_TOKENS)]
    max_draft: usize,
    /// Show llama.cpp's log.
    #[arg(long)]
    verbose: bool,
}

impl ModelArgs {
    /// The model file: `--model`, else the default model from the cache, pulled (downloaded and
    /// converted) on first use. Also returns the `sqale_agent.py` that came with a pulled model.
    fn model_path(&self) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
        if let Some(m) = &self.model {
            return Ok((m.clone(), None));
        }
        let entry = sqale::pull::default_entry()?;
        let prompt = || sqale::pull::cached_prompt_file(&entry);
        if let Some(p) = sqale::pull::cached_gguf(&entry, &entry.default_type) {
            return Ok((p, prompt()));
        }
        eprintln!("no --model given: pulling the default model {} ({}) once", entry.repo, entry.default_type);
        let gguf = pull::pull_entry(&entry, &entry.default_type, self.hardware.threads, false)?;
        Ok((gguf, prompt()))
    }

    fn load_path(&self, path: &std::path::Path) -> anyhow::Result<sqale::engine::Model> {
        Ok(sqale::engine::Model::load(path, &self.model_options())?)
    }

    /// How the model is loaded: the MTP head only when it may draft.
    fn model_options(&self) -> sqale::engine::ModelOptions {
        sqale::engine::ModelOptions { skip_mtp: !self.speculate.mtp(true), ..self.hardware.model_options(self.verbose) }
    }

    fn load(&self) -> anyhow::Result<sqale::engine::Model> {
        let (path, _) = self.model_path()?;
        self.load_path(&path)
    }

    fn engine_options(&self) -> sqale::engine::EngineOptions {
        sqale::engine::EngineOptions {
            ctx: self.ctx,
            threads: self.hardware.threads,
            batch: self.batch,
            temperature: self.sampling.temp,
            top_p: self.sampling.top_p,
            top_k: self.sampling.top_k,
            keep_prefix: true,
            speculate: self.speculate,
            max_draft: self.max_draft,
        }
    }
}

/// An inference server group to run on instead of a model in-process (`ask`, `eval`).
#[derive(Args, Debug, Clone, Default)]
pub struct ServerArgs {
    /// An inference server serving the model (vLLM or llama-server), e.g.
    /// `http://127.0.0.1:8080`; repeat for several servers of one model.
    #[arg(long = "server")]
    servers: Vec<String>,
    /// The servers' API: `vllm`, `llama-server`, or `auto` (probed).
    #[arg(long, default_value = "auto")]
    server_kind: String,
    /// File holding the servers' API key (default: the SQALE_API_KEY environment variable).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// Seconds to wait for one server response.
    #[arg(long, default_value_t = 600.0)]
    server_timeout: f64,
    /// Tokenise on the client with this tokenizer.json (or a Hugging Face repo id in the local
    /// cache), checked against the server's /tokenize; default: the server's /tokenize.
    #[arg(long)]
    tokenizer: Option<PathBuf>,
}

impl ServerArgs {
    /// Whether a server was given.
    fn any(&self) -> bool {
        !self.servers.is_empty()
    }

    /// Probes the servers into a pool (progress on stderr unless `quiet`).
    fn pool(&self, quiet: bool) -> anyhow::Result<sqale::remote::Pool> {
        self.pool_of(&self.servers, quiet)
    }

    /// Probes `urls` (another set of servers, e.g. a remote reference's) with these options.
    fn pool_of(&self, urls: &[String], quiet: bool) -> anyhow::Result<sqale::remote::Pool> {
        use anyhow::Context as _;
        let kind = match self.server_kind.as_str() {
            "auto" => None,
            k => Some(k.parse::<sqale::remote::ServerKind>().map_err(anyhow::Error::msg)?),
        };
        anyhow::ensure!(
            self.server_timeout.is_finite() && self.server_timeout > 0.0,
            "--server-timeout must be a positive number of seconds, got {}",
            self.server_timeout
        );
        let key = match &self.api_key_file {
            Some(f) => Some(
                std::fs::read_to_string(f)
                    .with_context(|| format!("reading the API key from --api-key-file {}", f.display()))?
                    .trim()
                    .to_string(),
            ),
            None => std::env::var("SQALE_API_KEY").ok().filter(|k| !k.is_empty()),
        };
        let options = sqale::remote::PoolOptions {
            kind,
            key,
            timeout: std::time::Duration::from_secs_f64(self.server_timeout),
            tokenizer: self.tokenizer.clone(),
            ..Default::default()
        };
        if !quiet {
            eprintln!("probing {} server(s): {}", urls.len(), urls.join(", "));
        }
        Ok(sqale::remote::Pool::connect(urls, options)?)
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    dispatch(cli).map_err(errors::with_flag_hint)
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Ask(a) => ask::run(a),
        Command::Tools(a) => tools::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Convert(a) => convert::convert(a),
        Command::Quantize(a) => convert::quantize(a),
        Command::Synth(a) => convert::synth(a),
        Command::Pull(a) => pull::run(a),
        Command::Info(a) => info::run(a),
        Command::Eval(a) => eval::run(*a),
        Command::Serve(a) => serve::serve(*a),
        Command::Mcp(a) => serve::mcp(*a),
    }
}

/// The database to use: the given one, or the demo database.
fn db_or_demo(db: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match db {
        Some(p) => Ok(p),
        None => {
            sqale::demo::demo_db_path().map_err(|e| anyhow::anyhow!("cannot write the demo database to the cache: {e}"))
        }
    }
}

/// Tool limits with the given statement timeout.
fn limits(sql_timeout: f64) -> anyhow::Result<sqale::env::Limits> {
    if !(sql_timeout.is_finite() && sql_timeout > 0.0) {
        anyhow::bail!("--sql-timeout must be a positive number of seconds, got {sql_timeout}");
    }
    Ok(sqale::env::Limits { timeout: std::time::Duration::from_secs_f64(sql_timeout), ..sqale::env::Limits::default() })
}
