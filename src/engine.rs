//! The llama.cpp engine: one loaded model, one context, one growing token sequence per
//! conversation. It knows nothing of SQL or tools.
//!
//! The decode loop, top to bottom:
//! 1. [`Engine::begin`] restores the shared prefix (the system turn) from a state snapshot taken
//!    the first time it was decoded; snapshots work for hybrid recurrent models (`qwen35`),
//!    whose state cannot be truncated back to a prefix, as well as for plain transformers.
//! 2. [`Engine::append`] tokenizes only the new text and decodes it in batches, keeping the
//!    logits of the last token.
//! 3. [`Engine::complete`] samples from those logits, decodes each sampled token once, and stops
//!    on an end-of-generation token, which is not decoded: the caller's next append starts with
//!    the turn's closing marker. Within a conversation no token is decoded twice.
//!
//! One context holds one sequence (id 0) today; the sequence id is threaded through so that
//! several conversations can later share a context as separate sequences.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::{LlamaStateSeqFlags, SeqState};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::generate::{Completion, Counters, Finish, GenerateError, Generator};

/// Errors from loading a model or creating a context.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No file at the path.
    #[error("model file not found: {0} (pass a GGUF file with --model)")]
    ModelNotFound(PathBuf),
    /// llama.cpp could not load the file.
    #[error("llama.cpp could not load {path} as a GGUF model ({reason}); check that the file is complete and of an architecture this llama.cpp knows")]
    Load {
        /// The file.
        path: PathBuf,
        /// llama.cpp's reason.
        reason: String,
    },
    /// The llama.cpp backend failed to initialise.
    #[error("llama.cpp backend failed to initialise: {0}")]
    Backend(String),
    /// GPU offload was asked of a build without a GPU backend.
    #[error("--gpu-layers {0} asks for GPU offload, but this build of sqale has no GPU backend (rebuild with --features vulkan or --features cuda), or pass --gpu-layers 0")]
    NoGpu(u32),
    /// GPU offload was asked, the build has a GPU backend, but llama.cpp sees no GPU.
    #[error("--gpu-layers {layers} asks for GPU offload and this build has the {backends} backend, but llama.cpp sees no GPU device (check the driver: `vulkaninfo --summary` or `nvidia-smi`; for Mesa's CPU Vulkan driver lavapipe set GGML_VK_VISIBLE_DEVICES=0), or pass --gpu-layers 0")]
    NoGpuDevice {
        /// Layers asked for.
        layers: u32,
        /// The GPU backends built in.
        backends: String,
    },
    /// `--device` named a device llama.cpp does not see.
    #[error("no device {asked:?}; llama.cpp sees: {available} (see `sqale info`)")]
    NoSuchDevice {
        /// What was asked for.
        asked: String,
        /// The devices there are.
        available: String,
    },
    /// The context could not be created (usually not enough memory).
    #[error("llama.cpp could not create a context of {n_ctx} tokens ({reason}); try a smaller --ctx")]
    Context {
        /// Context size asked for.
        n_ctx: u32,
        /// llama.cpp's reason.
        reason: String,
    },
}

/// How to load a model.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Layers offloaded to the GPU; `None` means all when a GPU backend is built in, else 0.
    pub gpu_layers: Option<u32>,
    /// Show llama.cpp's own log on stderr.
    pub verbose: bool,
    /// The device to run on, by index or name as `sqale info` lists them (e.g. `1` or
    /// `Vulkan0`); `None` lets llama.cpp use every GPU it sees.
    pub device: Option<String>,
}

/// The GPU backends this build was compiled with (`vulkan`, `cuda`, `metal`), comma-separated.
pub const GPU_BACKENDS: &str = env!("SQALE_GPU_BACKENDS");

/// How to run a context.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Context window in tokens.
    pub ctx: u32,
    /// Threads for generation and prefill; `None` uses every CPU this process may run on.
    pub threads: Option<i32>,
    /// Tokens decoded per batch during prefill.
    pub batch: u32,
    /// Sampling temperature; 0 means greedy.
    pub temperature: f32,
    /// Nucleus sampling threshold.
    pub top_p: f32,
    /// Top-k cut-off.
    pub top_k: i32,
    /// Snapshot the shared prefix (the system turn) after decoding it, so that later
    /// conversations restore it instead of decoding it again. Off for a single conversation,
    /// which has no use for it: taking it copies the prefix's KV cache (back from the device,
    /// on a GPU backend).
    pub keep_prefix: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            ctx: 16_384,
            threads: None,
            batch: 512,
            temperature: 0.6,
            top_p: 0.95,
            top_k: 20,
            keep_prefix: true,
        }
    }
}

fn backend() -> Result<&'static LlamaBackend, EngineError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            load_backend_modules();
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| EngineError::Backend(e.clone()))
}

/// With `--features portable`, llama.cpp's backends are shared libraries, one per CPU variant,
/// loaded from beside the executable when shipped there, else from the build's own folder;
/// llama.cpp scores each variant against the CPU and keeps the best.
#[cfg(feature = "portable")]
fn load_backend_modules() {
    let beside = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf)).filter(|dir| {
        std::fs::read_dir(dir).is_ok_and(|mut entries| entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libggml-cpu"))))
    });
    match beside {
        Some(dir) => llama_cpp_2::llama_backend::load_backends_from_path(&dir),
        None => llama_cpp_2::llama_backend::load_backends(),
    }
}

#[cfg(not(feature = "portable"))]
fn load_backend_modules() {}

/// The devices llama.cpp sees (CPU, and GPUs when a GPU backend is built in).
pub fn devices() -> Vec<llama_cpp_2::LlamaBackendDevice> {
    if backend().is_err() {
        return Vec::new();
    }
    llama_cpp_2::list_llama_ggml_backend_devices()
}

/// Whether this build of llama.cpp can offload to a GPU.
pub fn gpu_offload_supported() -> bool {
    backend().map(|b| b.supports_gpu_offload()).unwrap_or(false)
}

/// A GGUF model loaded into memory (memory-mapped), shared by any number of engines.
pub struct Model {
    model: LlamaModel,
    path: PathBuf,
    /// Layers offloaded to a GPU (0: the model runs on the CPU).
    gpu_layers: u32,
    /// Qwen tokenizers normalise text to NFC before splitting; llama.cpp ignores normalizers, so
    /// the engine applies it itself (otherwise decomposed accents in a database's values would
    /// tokenise differently from training).
    nfc: bool,
}

impl Model {
    /// Loads a GGUF file.
    pub fn load(path: impl AsRef<Path>, options: &ModelOptions) -> Result<Self, EngineError> {
        let path = path.as_ref();
        if !path.is_file() {
            return Err(EngineError::ModelNotFound(path.to_path_buf()));
        }
        let backend = backend()?;
        if !options.verbose {
            // llama.cpp logs to stderr by default; silence it unless asked.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default().with_logs_enabled(false));
        }
        let mut gpu = backend.supports_gpu_offload();
        let mut chosen = None;
        if let Some(asked) = &options.device {
            let all = devices();
            let found = all.iter().find(|d| d.index.to_string() == asked.trim() || d.name.eq_ignore_ascii_case(asked.trim()));
            let Some(d) = found else {
                let available = all.iter().map(|d| format!("{} {} ({})", d.index, d.name, d.description)).collect::<Vec<_>>().join(", ");
                return Err(EngineError::NoSuchDevice { asked: asked.clone(), available });
            };
            gpu = !matches!(d.device_type, llama_cpp_2::LlamaBackendDeviceType::Cpu);
            chosen = Some(d.index);
        }
        let layers = match options.gpu_layers {
            Some(n) if n > 0 && !gpu && GPU_BACKENDS.is_empty() => return Err(EngineError::NoGpu(n)),
            Some(n) if n > 0 && !gpu => return Err(EngineError::NoGpuDevice { layers: n, backends: GPU_BACKENDS.to_string() }),
            Some(n) => n,
            None if gpu => u32::MAX,
            None => 0,
        };
        let mut params = LlamaModelParams::default().with_n_gpu_layers(layers);
        if let Some(index) = chosen.filter(|_| gpu) {
            params = params.with_devices(&[index]).map_err(|e| EngineError::Load { path: path.to_path_buf(), reason: e.to_string() })?;
        }
        let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| EngineError::Load {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let pre = model.meta_val_str("tokenizer.ggml.pre").unwrap_or_default();
        Ok(Model {
            nfc: matches!(pre.as_str(), "qwen2" | "qwen35"),
            model,
            path: path.to_path_buf(),
            gpu_layers: if gpu { layers } else { 0 },
        })
    }

    /// Whether any layer runs on a GPU.
    pub fn on_gpu(&self) -> bool {
        self.gpu_layers > 0
    }

    /// A llama.cpp context over the model; the error is llama.cpp's reason.
    pub(crate) fn new_context(&self, mut params: LlamaContextParams) -> Result<LlamaContext<'_>, String> {
        let backend = backend().map_err(|e| e.to_string())?;
        if !self.on_gpu() {
            // With every layer on the CPU, llama.cpp would still ship large batches' matrix
            // products to a GPU it sees ("op offload"), copying the weights each time: on Mesa's
            // lavapipe that made prefill 45 times slower (6.6 against 296.6 tokens/s for
            // SmolLM2). `--gpu-layers 0` means the CPU.
            params = params.with_op_offload(false);
        }
        self.model.new_context(backend, params).map_err(|e| e.to_string())
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying llama.cpp model.
    pub fn llama(&self) -> &LlamaModel {
        &self.model
    }

    /// A metadata value from the GGUF header, e.g. `general.architecture`.
    pub fn meta(&self, key: &str) -> Option<String> {
        self.model.meta_val_str(key).ok()
    }

    /// Parameters in the model.
    pub fn n_params(&self) -> u64 {
        self.model.n_params()
    }

    /// Bytes of weights.
    pub fn size(&self) -> u64 {
        self.model.size()
    }

    /// Whether the model keeps recurrent state (fully or in some layers).
    pub fn is_recurrent_or_hybrid(&self) -> bool {
        self.model.is_recurrent() || self.model.is_hybrid()
    }

    /// Tokens of `text`, with special-token markup parsed; `add_bos` adds the model's
    /// beginning-of-sequence token if the model wants one.
    pub fn tokenize(&self, text: &str, add_bos: bool) -> Vec<LlamaToken> {
        let vocab = self.model.vocab();
        let add = add_bos && vocab.should_add_bos();
        if self.nfc && !unicode_normalization::is_nfc(text) {
            let normalized: String = unicode_normalization::UnicodeNormalization::nfc(text).collect();
            return vocab.tokenize(normalized.as_bytes(), add, true);
        }
        vocab.tokenize(text.as_bytes(), add, true)
    }

    /// The text of a token sequence, special tokens rendered.
    pub fn detokenize(&self, tokens: &[LlamaToken]) -> String {
        let vocab = self.model.vocab();
        let mut bytes = Vec::new();
        for &t in tokens {
            vocab.token_to_piece_into(t, &mut bytes, true, None);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Token ids that end generation: the model's end-of-generation tokens plus `<|im_end|>` and
    /// `<|endoftext|>` where the vocabulary has them as single tokens.
    pub(crate) fn stop_tokens(&self) -> Vec<LlamaToken> {
        let mut stops = Vec::new();
        for marker in ["<|im_end|>", "<|endoftext|>"] {
            if let [t] = self.tokenize(marker, false)[..] {
                stops.push(t);
            }
        }
        stops
    }
}

/// The system-turn snapshot reused by every conversation.
pub(crate) struct PrefixCache {
    /// The prefix text it was taken after.
    pub(crate) text: String,
    /// Its tokens.
    pub(crate) tokens: Vec<LlamaToken>,
    /// The sequence state after them.
    pub(crate) state: SeqState,
}

/// One context over a [`Model`]: a conversation as one growing token sequence.
pub struct Engine<'m> {
    model: &'m Model,
    ctx: LlamaContext<'m>,
    options: EngineOptions,
    seq: i32,
    batch: LlamaBatch<'static>,
    tokens: Vec<LlamaToken>,
    prefix: Option<PrefixCache>,
    sampler: LlamaSampler,
    stops: Vec<LlamaToken>,
    /// Index in the last decoded batch of the token whose logits are current.
    logits_index: Option<i32>,
    counters: Counters,
    /// `(start, len)` of each generated span in `tokens`.
    spans: Vec<(usize, usize)>,
}

impl<'m> Engine<'m> {
    /// Creates a context over `model`.
    pub fn new(model: &'m Model, options: EngineOptions) -> Result<Self, EngineError> {
        let n_ctx = NonZeroU32::new(options.ctx).ok_or(EngineError::Context {
            n_ctx: 0,
            reason: "the context size must be positive".into(),
        })?;
        let batch = options.batch.clamp(1, options.ctx);
        let mut params = LlamaContextParams::default()
            .with_n_ctx(Some(n_ctx))
            .with_n_batch(batch)
            .with_n_ubatch(batch)
            .with_n_seq_max(1);
        // llama.cpp's own default is 4 threads whatever the machine; on a 2-core board that
        // oversubscribes and decoding crawls. Default to the cores this process may use.
        let threads = options.threads.unwrap_or_else(default_threads);
        params = params.with_n_threads(threads).with_n_threads_batch(threads);
        let ctx = model.new_context(params).map_err(|reason| EngineError::Context { n_ctx: options.ctx, reason })?;
        let sampler = make_sampler(&options, 0);
        Ok(Engine {
            model,
            ctx,
            seq: 0,
            batch: LlamaBatch::new(batch as usize, 1),
            tokens: Vec::new(),
            prefix: None,
            sampler,
            stops: model.stop_tokens(),
            logits_index: None,
            counters: Counters::default(),
            spans: Vec::new(),
            options,
        })
    }

    /// The model.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The options in force.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The conversation's tokens so far.
    pub fn tokens(&self) -> &[LlamaToken] {
        &self.tokens
    }

    /// Logits of the last decoded token (empty before anything was decoded).
    pub fn logits(&self) -> &[f32] {
        match self.logits_index {
            Some(i) => self.ctx.get_logits_ith(i),
            None => &[],
        }
    }

    /// Empties the sequence (and forgets nothing else: the prefix snapshot stays).
    pub fn clear(&mut self) {
        // Removing a whole sequence always succeeds, recurrent models included.
        let _ = self.ctx.clear_kv_cache_seq(Some(self.seq as u32), None, None);
        self.tokens.clear();
        self.spans.clear();
        self.logits_index = None;
        self.counters = Counters::default();
    }

    /// `(start, len)` of every span of [`Self::tokens`] that was sampled rather than appended.
    pub fn generated_spans(&self) -> &[(usize, usize)] {
        &self.spans
    }

    /// Decodes `tokens` after the current sequence, in batches; keeps the last token's logits.
    pub fn decode(&mut self, tokens: &[LlamaToken]) -> Result<(), GenerateError> {
        if tokens.is_empty() {
            return Ok(());
        }
        let needed = self.tokens.len() + tokens.len();
        let capacity = self.ctx.n_ctx() as usize;
        if needed > capacity {
            return Err(GenerateError::ContextFull { needed, capacity });
        }
        let started = Instant::now();
        let chunk = self.options.batch.clamp(1, self.options.ctx) as usize;
        for (c, part) in tokens.chunks(chunk).enumerate() {
            self.batch.clear();
            let base = self.tokens.len() + c * chunk;
            for (i, &t) in part.iter().enumerate() {
                let last = c * chunk + i + 1 == tokens.len();
                self.batch
                    .add(t, (base + i) as i32, &[self.seq], last)
                    .map_err(|e| GenerateError::Backend(e.to_string()))?;
            }
            self.ctx
                .decode(&mut self.batch)
                .map_err(|e| GenerateError::Backend(format!("decode failed: {e}")))?;
            self.logits_index = Some(part.len() as i32 - 1);
        }
        // A GPU backend returns before the work is done; wait, so that the time counted is the
        // decode's and not the next call's.
        self.ctx.synchronize();
        self.tokens.extend_from_slice(tokens);
        self.counters.decoded_tokens += tokens.len();
        self.counters.context_tokens = self.tokens.len();
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    fn restore_prefix(&mut self, prefix: &str) -> Result<bool, GenerateError> {
        let Some(cache) = &self.prefix else {
            return Ok(false);
        };
        if cache.text != prefix {
            return Ok(false);
        }
        self.ctx
            .state_seq_set(&cache.state, self.seq)
            .map_err(|e| GenerateError::Backend(format!("restoring the prompt snapshot failed: {e}")))?;
        self.tokens = cache.tokens.clone();
        self.counters.reused_tokens = cache.tokens.len();
        self.counters.context_tokens = self.tokens.len();
        // The snapshot holds no logits; the caller appends before sampling.
        self.logits_index = None;
        Ok(true)
    }

    /// Size in bytes of the prefix snapshot, if one was taken.
    pub fn prefix_snapshot_bytes(&self) -> Option<usize> {
        self.prefix.as_ref().map(|p| p.state.byte_len())
    }

    /// Forgets the prefix snapshot, so that the next conversation decodes its prefix again
    /// (for measuring what the cache saves).
    pub fn drop_prefix_cache(&mut self) {
        self.prefix = None;
    }

    fn sample_next(&mut self) -> Result<LlamaToken, GenerateError> {
        let idx = self
            .logits_index
            .ok_or_else(|| GenerateError::Backend("nothing decoded to sample from".into()))?;
        Ok(self.sampler.sample(&self.ctx, idx))
    }
}

/// Threads used when none are asked for: the CPUs this process may run on.
pub fn default_threads() -> i32 {
    std::thread::available_parallelism().map_or(4, |n| n.get() as i32)
}

pub(crate) fn make_sampler(options: &EngineOptions, seed: u32) -> LlamaSampler {
    if options.temperature <= 0.0 {
        return LlamaSampler::greedy();
    }
    LlamaSampler::chain_simple([
        LlamaSampler::top_k(options.top_k),
        LlamaSampler::top_p(options.top_p, 1),
        LlamaSampler::temp(options.temperature),
        LlamaSampler::dist(seed),
    ])
}

impl Generator for Engine<'_> {
    fn begin(&mut self, prefix: &str, seed: u32) -> Result<(), GenerateError> {
        self.clear();
        self.sampler = make_sampler(&self.options, seed);
        if self.restore_prefix(prefix)? {
            return Ok(());
        }
        let tokens = self.model.tokenize(prefix, true);
        self.decode(&tokens)?;
        if !self.options.keep_prefix {
            return Ok(());
        }
        let state = self
            .ctx
            .state_seq_get(self.seq, LlamaStateSeqFlags::empty())
            .map_err(|e| GenerateError::Backend(format!("taking the prompt snapshot failed: {e}")))?;
        self.prefix = Some(PrefixCache {
            text: prefix.to_string(),
            tokens,
            state,
        });
        Ok(())
    }

    fn append(&mut self, text: &str, max_tokens: usize) -> Result<(), GenerateError> {
        let tokens = self.model.tokenize(text, self.tokens.is_empty());
        let needed = self.tokens.len() + tokens.len();
        if needed > max_tokens {
            return Err(GenerateError::OverBudget { needed, limit: max_tokens });
        }
        self.decode(&tokens)
    }

    fn complete(
        &mut self,
        max_tokens: usize,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Completion, GenerateError> {
        let started = Instant::now();
        let start = self.tokens.len();
        let prefill_before = self.counters.prefill_seconds;
        let vocab = self.model.model.vocab();
        let mut bytes: Vec<u8> = Vec::new();
        let mut emitted = 0usize;
        let mut generated = 0usize;
        let mut finish = Finish::Length;
        while generated < max_tokens {
            let token = self.sample_next()?;
            if self.stops.contains(&token) || vocab.is_eog(token) {
                finish = Finish::Stop;
                break;
            }
            vocab.token_to_piece_into(token, &mut bytes, true, None);
            // Emit whole characters only; a token may end inside a multi-byte character.
            let valid = match std::str::from_utf8(&bytes[emitted..]) {
                Ok(s) => s.len(),
                Err(e) if e.error_len().is_some() => bytes.len() - emitted,
                Err(e) => e.valid_up_to(),
            };
            if valid > 0 {
                on_text(&String::from_utf8_lossy(&bytes[emitted..emitted + valid]));
                emitted += valid;
            }
            generated += 1;
            self.counters.generated_tokens += 1;
            self.decode(&[token])?;
        }
        if emitted < bytes.len() {
            on_text(&String::from_utf8_lossy(&bytes[emitted..]));
        }
        // Decoding the sampled tokens counted as prefill above; it belongs to generation.
        self.counters.prefill_seconds = prefill_before;
        self.counters.generate_seconds += started.elapsed().as_secs_f64();
        self.spans.push((start, generated));
        Ok(Completion {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            tokens: generated,
            finish,
        })
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn context_size(&self) -> usize {
        self.ctx.n_ctx() as usize
    }
}
