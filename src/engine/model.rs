//! A GGUF model loaded into memory, and the llama.cpp backend and devices it runs on.

use sqale_convert::gguf;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use super::EngineError;

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
    /// Leave the multi-token-prediction head unloaded even when the file has one (it is only
    /// used for speculative decoding).
    pub skip_mtp: bool,
    /// Load the vocabulary only, no weights: for tokenising (`sqale imatrix` decodes through
    /// its own handle of the file), not for decoding.
    pub vocab_only: bool,
    /// Repack weights for llama.cpp's CPU GEMM/GEMV kernels ([`repack_policy`] when `None`).
    pub repack: Option<bool>,
}

/// Which files' weights are repacked for llama.cpp's CPU kernels when [`ModelOptions::repack`]
/// is unset ([`repack_policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepackPolicy {
    /// Every file (ARM, x86 without AVX-512 VNNI, or [`REPACK_VAR`]`=1`).
    All,
    /// No file ([`REPACK_VAR`]`=0`).
    None,
    /// Files without weights of the tiled K-quant kernel's types (K-quants, most IQ types): x86
    /// with AVX-512 VNNI, where that kernel prefills them faster than their repacked GEMM. Of the
    /// rest, llama.cpp repacks Q4_0 and IQ4_NL there; it has no x86 repacked kernel for Q8_0.
    WithoutKQuants,
}

impl RepackPolicy {
    /// Whether a file with (`tiled_weights`) or without weights of the tiled kernel's types is
    /// repacked.
    pub fn repacks(self, tiled_weights: bool) -> bool {
        match self {
            RepackPolicy::All => true,
            RepackPolicy::None => false,
            RepackPolicy::WithoutKQuants => !tiled_weights,
        }
    }
}

/// The environment variable that overrides [`repack_policy`]: `0` keeps weights as the file
/// has them, `1` repacks them (llama-bench's `--repack 0|1`).
pub const REPACK_VAR: &str = "SQALE_REPACK";

/// Which files' weights are repacked when [`ModelOptions::repack`] is unset: as [`REPACK_VAR`]
/// says when set; else [`default_repack_policy`] for this CPU and build. Only the types and CPUs
/// llama.cpp has repacked kernels for are repacked: on x86 Q4_0, IQ4_NL and the K-quants (not
/// Q8_0), on ARM only with the dot product ([`super::repacked_kernels_here`]).
pub fn repack_policy() -> RepackPolicy {
    match std::env::var(REPACK_VAR) {
        Ok(v) if v.trim() == "0" => RepackPolicy::None,
        Ok(_) => RepackPolicy::All,
        Err(_) => default_repack_policy(super::kernels::tiled_kernel_vnni()),
    }
}

/// The policy without [`REPACK_VAR`]: files without K-quant weights where llama.cpp's tiled
/// K-quant kernel runs its AVX-512 VNNI path (`tiled_vnni`), which prefills K-quants faster than
/// their repacked GEMM; every file elsewhere: on ARM the repacked dot-product kernels are much of
/// llama.cpp's speed, and on AVX2 the repacked K-quant GEMM beats the tiled kernel (the numbers:
/// docs/measurements.md, "Kernels per batch").
pub fn default_repack_policy(tiled_vnni: bool) -> RepackPolicy {
    if tiled_vnni {
        RepackPolicy::WithoutKQuants
    } else {
        RepackPolicy::All
    }
}

/// The GPU backends this build was compiled with (`vulkan`, `cuda`, `metal`), comma-separated.
pub const GPU_BACKENDS: &str = env!("SQALE_GPU_BACKENDS");

/// llama.cpp's backend, initialised once per process.
pub(crate) fn backend() -> Result<&'static LlamaBackend, EngineError> {
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
        std::fs::read_dir(dir).is_ok_and(|mut entries| {
            entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libggml-cpu")))
        })
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

/// Threads used when none are asked for: the CPUs this process may run on.
pub fn default_threads() -> i32 {
    std::thread::available_parallelism().map_or(4, |n| n.get() as i32)
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
    /// The texts of the vocabulary's control (and unknown) tokens: what llama.cpp reads as
    /// special only with special-token parsing on. Listed on first use (a walk over the whole
    /// vocabulary that commands tokenizing no markup never pay).
    controls: std::sync::OnceLock<Vec<String>>,
    /// Whether the multi-token-prediction head was loaded.
    mtp: bool,
    /// Whether any matrix is of a type llama.cpp's tiled K-quant kernel takes.
    tiled_weights: bool,
    /// Whether weights were allowed into llama.cpp's repacked CPU buffers.
    repack: bool,
}

impl Model {
    /// Loads a GGUF file.
    pub fn load(path: impl AsRef<Path>, options: &ModelOptions) -> Result<Self, EngineError> {
        let path = path.as_ref();
        match std::fs::metadata(path) {
            Err(_) => return Err(EngineError::ModelNotFound(path.to_path_buf())),
            Ok(m) if !m.is_file() => {
                let kind = crate::regular_file::kind_of(&m);
                return Err(EngineError::ModelNotAFile { path: path.to_path_buf(), kind });
            }
            Ok(_) => {}
        }
        // Checked in Rust first: llama.cpp aborts the process on some malformed files, and its
        // errors do not say which byte is wrong.
        let header = sqale_convert::gguf::read_header(path).map_err(EngineError::NotGguf)?;
        let backend = backend()?;
        if !options.verbose {
            // llama.cpp logs to stderr by default; silence it unless asked.
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default().with_logs_enabled(false));
        }
        let (gpu, chosen) = match &options.device {
            None => (backend.supports_gpu_offload(), None),
            Some(asked) => {
                let d = find_device(asked)?;
                (!matches!(d.device_type, llama_cpp_2::LlamaBackendDeviceType::Cpu), Some(d.index))
            }
        };
        let layers = match options.gpu_layers {
            Some(n) if n > 0 && !gpu && GPU_BACKENDS.is_empty() => return Err(EngineError::NoGpu(n)),
            Some(n) if n > 0 && !gpu => {
                return Err(EngineError::NoGpuDevice { layers: n, backends: GPU_BACKENDS.to_string() })
            }
            Some(n) => n,
            None if gpu => u32::MAX,
            None => 0,
        };
        let mut params = LlamaModelParams::default().with_n_gpu_layers(layers);
        if let Some(index) = chosen.filter(|_| gpu) {
            params = params.with_devices(&[index]).map_err(|source| EngineError::Device { index, source })?;
        }
        let arch = header.architecture().unwrap_or_default();
        let heads = header.get(&format!("{arch}.nextn_predict_layers")).and_then(gguf::Value::as_u64).unwrap_or(0);
        let mtp = heads > 0 && !options.skip_mtp;
        let tiled_weights = header.tensors.iter().any(|t| super::kernels::tiled_type(t.type_name()));
        let repack = options.repack.unwrap_or_else(|| repack_policy().repacks(tiled_weights));
        // Without repacking, no weight may go to the CPU backend's extra buffer types, where
        // llama.cpp repacks (llama-bench's `--repack 0`); the weights stay in the mapped file.
        params = params.with_load_mtp(mtp).with_vocab_only(options.vocab_only).with_use_extra_bufts(repack || gpu);
        let params = std::pin::pin!(params);
        let model = LlamaModel::load_from_file(backend, path, &params)
            .map_err(|source| EngineError::Load { path: path.to_path_buf(), source })?;
        let pre = model.meta_val_str("tokenizer.ggml.pre").unwrap_or_default();
        Ok(Model {
            controls: std::sync::OnceLock::new(),
            tiled_weights,
            nfc: matches!(pre.as_str(), "qwen2" | "qwen35"),
            model,
            path: path.to_path_buf(),
            gpu_layers: if gpu { layers } else { 0 },
            mtp,
            repack: repack && !gpu,
        })
    }

    /// Whether weights of the types llama.cpp repacks were allowed into its repacked CPU buffers
    /// ([`ModelOptions::repack`]).
    pub fn repacked(&self) -> bool {
        self.repack
    }

    /// Whether the file's multi-token-prediction head is loaded (for speculative decoding).
    pub fn has_mtp_head(&self) -> bool {
        self.mtp
    }

    /// Whether some of its matrices are of a type (Q2_K…Q6_K, IQ) that llama.cpp's tiled
    /// K-quant kernel takes in batches of [`super::TILED_MIN_ROWS`] rows or more.
    pub fn has_tiled_weights(&self) -> bool {
        self.tiled_weights
    }

    /// Layers offloaded to a GPU (0: the model runs on the CPU).
    pub fn gpu_layers(&self) -> u32 {
        self.gpu_layers
    }

    /// Whether any layer runs on a GPU.
    pub fn on_gpu(&self) -> bool {
        self.gpu_layers > 0
    }

    /// A llama.cpp context over the model.
    pub(crate) fn new_context(&self, mut params: LlamaContextParams) -> Result<LlamaContext<'_>, EngineError> {
        let backend = backend()?;
        let n_ctx = params.n_ctx().map_or(0, |n| n.get());
        if !self.on_gpu() {
            // With every layer on the CPU, llama.cpp would still ship large batches' matrix
            // products to a GPU it sees ("op offload"), copying the weights each time: on Mesa's
            // lavapipe that made prefill many times slower. No GPU layers means the CPU
            // (docs/backends.md, "GPU placement").
            params = params.with_op_offload(false);
        }
        self.model.new_context(backend, params).map_err(|source| EngineError::Context { n_ctx, source })
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
        self.tokenize_span(text, add_bos, true)
    }

    /// Tokens of `markup` ([`crate::generate::Markup::fragments`]): the control tokens of its
    /// parsed text as such, all other text with special-token parsing off (a `<|im_end|>` in a
    /// plain span is plain characters); `add_bos` as for [`Model::tokenize`].
    pub fn tokenize_markup(&self, markup: &crate::generate::Markup, add_bos: bool) -> Vec<LlamaToken> {
        use crate::generate::Fragment;
        let controls = self.controls.get_or_init(|| control_texts(&self.model));
        let find = |t: &str| crate::generate::find_first_of(t, controls);
        let mut tokens = Vec::new();
        for (i, fragment) in markup.fragments(&find).iter().enumerate() {
            let bos = add_bos && i == 0;
            match fragment {
                Fragment::Text(t) => tokens.extend(self.tokenize_span(t, bos, false)),
                Fragment::Special(t) => tokens.extend(self.tokenize_span(t, bos, true)),
            }
        }
        if tokens.is_empty() && add_bos {
            tokens = self.tokenize_span("", true, true);
        }
        tokens
    }

    fn tokenize_span(&self, text: &str, add_bos: bool, parse_special: bool) -> Vec<LlamaToken> {
        let vocab = self.model.vocab();
        let add = add_bos && vocab.should_add_bos();
        if self.nfc && !unicode_normalization::is_nfc(text) {
            let normalized: String = unicode_normalization::UnicodeNormalization::nfc(text).collect();
            return vocab.tokenize(normalized.as_bytes(), add, parse_special);
        }
        vocab.tokenize(text.as_bytes(), add, parse_special)
    }

    /// The bytes of one token's text, special tokens rendered (a piece may end inside a UTF-8
    /// character).
    pub fn piece(&self, token: LlamaToken) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.model.vocab().token_to_piece_into(token, &mut bytes, true, None);
        bytes
    }

    /// Tokens in the vocabulary.
    pub fn n_vocab(&self) -> usize {
        self.model.n_vocab().max(0) as usize
    }

    /// SHA-256 over the vocabulary: its size and every token's text, in id order. Two models
    /// with the same fingerprint tokenize alike and number their logits alike.
    pub fn vocab_fingerprint(&self) -> String {
        let mut bytes = (self.n_vocab() as u64).to_le_bytes().to_vec();
        for id in 0..self.n_vocab() {
            let piece = self.piece(LlamaToken(id as i32));
            bytes.extend_from_slice(&(piece.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&piece);
        }
        crate::hash::sha256_hex(bytes)
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

/// The texts of `model`'s control and unknown tokens, longest first.
fn control_texts(model: &LlamaModel) -> Vec<String> {
    use llama_cpp_2::token_type::LlamaTokenAttr;
    let vocab = model.vocab();
    let mut out: Vec<String> = (0..vocab.n_tokens())
        .map(LlamaToken)
        .filter(|&t| {
            let a = vocab.attr(t);
            a.contains(LlamaTokenAttr::Control) || a.contains(LlamaTokenAttr::Unknown)
        })
        .filter_map(|t| {
            let mut bytes = Vec::new();
            vocab.token_to_piece_into(t, &mut bytes, true, None);
            String::from_utf8(bytes).ok().filter(|s| !s.is_empty())
        })
        .collect();
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// The device `asked` names, by index or name (case-insensitive).
fn find_device(asked: &str) -> Result<llama_cpp_2::LlamaBackendDevice, EngineError> {
    let mut all = devices();
    let asked = asked.trim();
    let found = all.iter().position(|d| d.index.to_string() == asked || d.name.eq_ignore_ascii_case(asked));
    match found {
        Some(i) => Ok(all.swap_remove(i)),
        None => Err(EngineError::NoSuchDevice {
            asked: asked.to_string(),
            available: all
                .iter()
                .map(|d| format!("{} {} ({})", d.index, d.name, d.description))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}
