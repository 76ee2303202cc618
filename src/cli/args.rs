//! The flags several commands share: where a model runs, how it samples, its engine, and how
//! tool calls are written (the inference servers to run on instead are in `servers.rs`).

use std::path::PathBuf;

use clap::Args;
use sqale::defaults;
use sqale::speculate::Speculate;

/// Where a model runs: threads and GPU placement, shared by every command that runs one.
#[derive(Args, Debug, Clone)]
pub struct HardwareArgs {
    /// Threads for generation and prefill (default: every CPU available).
    #[arg(long, short = 't')]
    pub(super) threads: Option<i32>,
    /// Layers to offload to the GPU (default: all with a GPU backend, else 0).
    #[arg(long, short = 'g')]
    gpu_layers: Option<u32>,
    /// Device to run on, by index or name as `sqale info` lists them (default: every GPU).
    #[arg(long)]
    device: Option<String>,
}

impl HardwareArgs {
    /// How to load a model on this hardware.
    pub(super) fn model_options(&self, verbose: bool) -> sqale::engine::ModelOptions {
        sqale::engine::ModelOptions {
            gpu_layers: self.gpu_layers,
            verbose,
            device: self.device.clone(),
            skip_mtp: false,
            vocab_only: false,
            repack: None,
        }
    }
}

/// Sampling flags (the protocol's values by default), in-process or on a server.
#[derive(Args, Debug, Clone)]
pub struct SamplingArgs {
    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = defaults::TEMPERATURE)]
    pub(super) temp: f32,
    /// Top-p (nucleus) threshold.
    #[arg(long, default_value_t = defaults::TOP_P)]
    pub(super) top_p: f32,
    /// Top-k cut-off.
    #[arg(long, default_value_t = defaults::TOP_K)]
    pub(super) top_k: i32,
}

impl SamplingArgs {
    /// The same values for a server.
    pub(super) fn remote(&self) -> sqale::remote::Sampling {
        sqale::remote::Sampling { temperature: self.temp, top_p: self.top_p, top_k: self.top_k }
    }
}

/// The engine flags of every command that runs a model in-process (`ask`, `bench`, `eval`,
/// `serve`): one set of declarations, one [`EngineArgs::engine_options`].
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    #[command(flatten)]
    pub(super) hardware: HardwareArgs,
    /// Context window in tokens.
    #[arg(long, default_value_t = defaults::CONTEXT_TOKENS)]
    pub(super) ctx: u32,
    /// Tokens per prefill batch.
    #[arg(long, default_value_t = defaults::BATCH_TOKENS)]
    batch: u32,
    #[command(flatten)]
    pub(super) sampling: SamplingArgs,
    /// Speculative decoding: `auto` (every drafter the file has where drafts cannot change a
    /// token: on batch-invariant kernels, see `sqale info`; plain decoding elsewhere; the MTP
    /// head with one sequence only, e.g. `eval --parallel 1`), `off`, `lookup` (prompt lookup,
    /// each sequence for itself), `mtp` (the model's head) or `both` (these two with one
    /// sequence only). On other kernels the explicit modes may change tokens where llama.cpp
    /// rounds batches differently (docs/speculative-decoding.md).
    #[arg(long, default_value_t = Speculate::Auto)]
    pub(super) speculate: Speculate,
    /// Longest draft one verify step checks (shorter drafts are chosen from the measured cost;
    /// drafts beyond 8 only where the text repeats verbatim) [default: 64, or 8 on a model with
    /// recurrent state such as Qwen3.5, which keeps a snapshot of that state per draft token]
    #[arg(long)]
    max_draft: Option<usize>,
    /// `ask`: decode the system prompt instead of restoring it from the prompt cache on disk,
    /// and write none (`sqale prompt-cache clear` removes the cache; the other commands decode
    /// the prompt once per process and keep it in memory).
    #[arg(long)]
    no_prompt_cache: bool,
    /// The KV cache's element type: `auto` (f16, as llama.cpp's default: half the memory of
    /// f32, and faster deep in a context), `f16` or `f32`. Both are exact on sqale's CPU build.
    #[arg(long, default_value_t = sqale::engine::KvType::Auto)]
    kv_type: sqale::engine::KvType,
    #[command(flatten)]
    pub(crate) exact: ExactArgs,
}

/// `--exact`: on the commands that run a model in-process, and on `info`, which reports it.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ExactArgs {
    /// Exact decoding in any batch: a token gets the logits it gets decoded alone, so drafting,
    /// `--parallel` and `serve` play exactly the episodes of plain one-at-a-time decoding.
    /// sqale's own build is exact already (generated tokens run on llama.cpp's reference
    /// kernels); on a llama.cpp without its patch it switches the tiled K-quant kernel off (see
    /// `sqale info` and docs/speculative-decoding.md, "Exactness"). Refused on a build that
    /// can't be exact.
    #[arg(long)]
    pub(crate) exact: bool,
}

impl EngineArgs {
    /// The engine options these flags give.
    pub(super) fn engine_options(&self) -> sqale::engine::EngineOptions {
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
            prompt_cache: None,
            kv_type: self.kv_type,
        }
    }

    /// The engine options of one conversation (`ask`): no snapshot of the prompt in memory
    /// (nothing would reuse it), and the prompt cache on disk unless `--no-prompt-cache`.
    pub(super) fn lone_options(&self) -> sqale::engine::EngineOptions {
        sqale::engine::EngineOptions {
            keep_prefix: false,
            prompt_cache: (!self.no_prompt_cache).then(sqale::engine::prompt_cache::default_dir),
            ..self.engine_options()
        }
    }
}

/// Model and engine flags shared by the commands that run one model.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// GGUF model file (default: the registry's default model, pulled on first use).
    #[arg(long, short = 'm')]
    model: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// Show llama.cpp's log.
    #[arg(long)]
    verbose: bool,
}

impl ModelArgs {
    /// The model file: `--model`, else the default model from the cache, pulled (downloaded and
    /// converted) on first use. Also returns the `sqale_agent.py` that came with a pulled model.
    pub(super) fn model_path(&self) -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
        if let Some(m) = &self.model {
            return Ok((m.clone(), None));
        }
        let options = sqale::pull::PullOptions { threads: self.engine.hardware.threads, no_mtp: false, imatrix: None };
        Ok(sqale::pull::default_model(&options, &mut super::pull::progress(false))?)
    }

    pub(super) fn load_path(&self, path: &std::path::Path) -> anyhow::Result<sqale::engine::Model> {
        Ok(sqale::engine::Model::load(path, &self.model_options())?)
    }

    /// How the model is loaded: the MTP head only when it may draft.
    pub(super) fn model_options(&self) -> sqale::engine::ModelOptions {
        sqale::engine::ModelOptions {
            skip_mtp: !self.engine.speculate.mtp(true),
            ..self.engine.hardware.model_options(self.verbose)
        }
    }

    pub(super) fn load(&self) -> anyhow::Result<sqale::engine::Model> {
        let (path, _) = self.model_path()?;
        self.load_path(&path)
    }
}

/// How a turn's tool calls are written (`ask`, `serve`; `eval` takes several conditions).
#[derive(Args, Debug, Clone)]
pub struct CallArgs {
    /// How tool calls are written: `free` (as in training), `constrained` (the turn held to the
    /// tool catalogue's grammar by llama.cpp's grammar sampler: a bounded thought, `</think>`,
    /// then calls) or `triggered` (the grammar starts where the model writes `{"tool"`); see
    /// docs/constrained-calls.md.
    #[arg(long, default_value_t = sqale::protocol::Calls::Free)]
    pub calls: sqale::protocol::Calls,
    /// With `--calls constrained`: characters of thought a turn may hold before the grammar
    /// makes it close the thought and call.
    #[arg(long, default_value_t = defaults::THOUGHT_CHARS as u32, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_thought_chars: u32,
}
