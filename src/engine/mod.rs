//! The llama.cpp engine: one loaded [`Model`], one context, one growing token sequence per
//! conversation. It knows nothing of SQL or tools.
//!
//! The decode loop, top to bottom:
//! 1. [`Engine::begin`](Generator::begin) restores the shared prefix (the system turn) from a
//!    state snapshot taken the first time it was decoded; snapshots work for hybrid recurrent
//!    models (`qwen35`), whose state cannot be truncated back to a prefix, as well as for plain
//!    transformers.
//! 2. [`Engine::append`](Generator::append) tokenizes only the new text and decodes it in
//!    batches, keeping the logits of the last token.
//! 3. [`Engine::complete`](Generator::complete) samples from those logits, decodes each sampled
//!    token once, and stops on an end-of-generation token, which is not decoded: the caller's
//!    next append starts with the turn's closing marker. Within a conversation no token is
//!    decoded twice.
//!
//! The modules, one job each:
//! - `core`: the llama.cpp context, batching, the prompt snapshot and stop tokens, the verifier;
//! - `sequence`: one conversation on the core, and what a decode or verify step does to it;
//! - `draft`: one sequence's drafters and their counts;
//! - `batched`: several conversations in one context ([`BatchedEngine`]), decoded in shared
//!   batches by a scheduler;
//! - `scored`: teacher forcing, the logits along known text ([`Engine::decode_scored`]);
//! - [`prompt_cache`]: the system turn's state on disk, restored by later processes;
//! - `replay`: known text decoded as if generated, and outside drafts (what benchmarks measure
//!   speculation with);
//! - `kv_cache`: the KV cache's element type (f16, or f32 on asking);
//! - `model`, `kernels`, `threads`: loading a GGUF file, which CPU kernels run, thread defaults.

mod batched;
mod core;
mod draft;
mod kernels;
mod kv_cache;
mod model;
pub mod prompt_cache;
mod replay;
mod scored;
mod sequence;
mod threads;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use llama_cpp_2::token::LlamaToken;

pub use self::core::FAIL_DECODE_AFTER_VAR;
pub use batched::{BatchedEngine, SequenceGenerator};
pub use kernels::{
    batch_invariant, batch_variance, cpu_kernels, exactness, kernel_choice, kernels_per_batch, make_exact,
    repacked_kernels_here, tiled_kernel_on, tiled_kernel_vnni, Exactness, KernelChoice, TILED_MIN_ROWS, TILED_MM_VAR,
};
pub use kv_cache::KvType;
pub use model::{
    default_repack_policy, default_threads, devices, gpu_offload_supported, repack_policy, Model, ModelOptions,
    RepackPolicy, GPU_BACKENDS, REPACK_VAR,
};
pub use threads::{apply_defaults as apply_thread_defaults, threading, Threading, GOMP_SPINCOUNT_DEFAULT};

use self::core::{Checked, Core, Segment, TextStream};
pub use self::draft::DraftSource;
use self::kernels::BatchKind;
pub use self::replay::Verified;
pub use self::scored::MAX_SCORED_ROWS;
use self::sequence::{check_budget, Sequence};
use crate::defaults;
use crate::generate::{Completion, Counters, Finish, GenerateError, Generator, Markup};
use crate::speculate::Speculate;

/// Errors from loading a model or creating a context.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No file at the path.
    #[error("model file not found: {0}")]
    ModelNotFound(PathBuf),
    /// The path names a directory, FIFO or device rather than a model file.
    #[error("{path} is {kind}, not a model file: pass the path of a GGUF file")]
    ModelNotAFile {
        /// The path.
        path: PathBuf,
        /// What it is (`a directory`, `a named pipe (FIFO)`, ...).
        kind: &'static str,
    },
    /// The file is not a GGUF file llama.cpp can read: damaged, truncated, or something else.
    #[error("{0}; pass a complete GGUF model file (re-download or re-convert it)")]
    NotGguf(#[source] sqale_convert::gguf::ReadError),
    /// llama.cpp could not load the file.
    #[error("llama.cpp could not load {path} as a GGUF model ({source}); check that the file is complete and of an architecture this llama.cpp knows")]
    Load {
        /// The file.
        path: PathBuf,
        /// llama.cpp's reason.
        #[source]
        source: llama_cpp_2::LlamaModelLoadError,
    },
    /// The chosen device could not be set for the model.
    #[error("llama.cpp could not use device {index}: {source}")]
    Device {
        /// The device's index.
        index: usize,
        /// llama.cpp's reason.
        #[source]
        source: llama_cpp_2::LlamaCppError,
    },
    /// The llama.cpp backend failed to initialise.
    #[error("llama.cpp backend failed to initialise: {0}")]
    Backend(String),
    /// GPU offload was asked of a build without a GPU backend.
    #[error("{0} GPU layers asked for, but this build of sqale has no GPU backend (rebuild with the cargo feature `vulkan` or `cuda`) or ask for none")]
    NoGpu(u32),
    /// GPU offload was asked, the build has a GPU backend, but llama.cpp sees no GPU.
    #[error("{layers} GPU layers asked for and this build has the {backends} backend, but llama.cpp sees no GPU device (check the driver: `vulkaninfo --summary` or `nvidia-smi`; for Mesa's CPU Vulkan driver lavapipe set GGML_VK_VISIBLE_DEVICES=0) or ask for none")]
    NoGpuDevice {
        /// Layers asked for.
        layers: u32,
        /// The GPU backends built in.
        backends: String,
    },
    /// A device was named that llama.cpp does not see.
    #[error("no device {asked:?}; llama.cpp sees: {available}")]
    NoSuchDevice {
        /// What was asked for.
        asked: String,
        /// The devices there are.
        available: String,
    },
    /// The context could not be created (usually not enough memory).
    #[error("llama.cpp could not create a context of {n_ctx} tokens ({source}); a smaller context needs less memory")]
    Context {
        /// Context size asked for.
        n_ctx: u32,
        /// llama.cpp's reason.
        #[source]
        source: llama_cpp_2::LlamaContextLoadError,
    },
    /// MTP drafting was asked of a file without a multi-token-prediction head.
    #[error("{0} has no multi-token-prediction head (nextn layers), so the MTP head can't draft; draft with prompt lookup alone, or convert the checkpoint with its head (or with the head of its base model)")]
    NoMtpHead(PathBuf),
    /// MTP drafting was asked of a context of several sequences.
    #[error("the MTP head drafts for one sequence only (llama.cpp's drafter serves sequence 0), and {0} were asked for; draft with prompt lookup alone for several sequences, or run one episode at a time")]
    MtpOneSequence(usize),
    /// llama.cpp could not set up MTP drafting.
    #[error("llama.cpp could not set up drafting with the MTP head: {0}")]
    Mtp(#[source] llama_cpp_2::speculative::MtpSpeculativeError),
    /// The sequences asked for do not fit one context's token count.
    #[error("{seqs} sequences of {ctx} tokens each do not fit one context (at most 2^32 - 1 tokens, and at least 1)")]
    ContextSize {
        /// Sequences asked for.
        seqs: usize,
        /// Tokens per sequence.
        ctx: u32,
    },
    /// Exact decoding was asked for on a build whose kernels round a batch differently from one
    /// token, or that has a GPU backend.
    #[error("this build can't decode exactly: {0}")]
    NotExact(String),
}

/// How to run a context.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Context window in tokens (per sequence, for a batched engine).
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
    /// Which drafters propose tokens for speculative decoding ([`crate::speculate`]).
    pub speculate: Speculate,
    /// Longest draft one verify step checks; `None`: [`defaults::MAX_DRAFT_TOKENS`], or
    /// [`defaults::MAX_RECURRENT_DRAFT_TOKENS`] on a model with recurrent state, whose
    /// snapshots for rollback take memory per draft token. An engine's options
    /// ([`Engine::options`]) have it resolved.
    pub max_draft: Option<usize>,
    /// The folder of the prompt cache on disk ([`prompt_cache`]): the system turn's state is
    /// restored from a file there instead of decoded, and saved there after it was decoded;
    /// `None` for no cache on disk. With the MTP head drafting, the head's part is saved too.
    pub prompt_cache: Option<PathBuf>,
    /// The KV cache's element type ([`KvType`]: f16 by default; f32 doubles its memory).
    pub kv_type: KvType,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            ctx: defaults::CONTEXT_TOKENS,
            threads: None,
            batch: defaults::BATCH_TOKENS,
            temperature: defaults::TEMPERATURE,
            top_p: defaults::TOP_P,
            top_k: defaults::TOP_K,
            keep_prefix: true,
            speculate: Speculate::Auto,
            max_draft: None,
            prompt_cache: None,
            kv_type: KvType::Auto,
        }
    }
}

impl EngineOptions {
    /// These options as they apply to `model`: where llama.cpp's tiled K-quant kernel could
    /// take a verify batch (it runs, the model has weights it takes, and generated tokens have
    /// no kernels of their own: [`kernels_per_batch`]), drafts stop short of a verify batch of
    /// [`TILED_MIN_ROWS`] rows, which that kernel would round differently from one-token
    /// decoding ([`tiled_kernel_on`]).
    ///
    /// An unset `max_draft` is resolved here, by whether the model keeps recurrent state.
    pub(crate) fn for_model(self, model: &Model) -> Self {
        let default = if model.is_recurrent_or_hybrid() {
            defaults::MAX_RECURRENT_DRAFT_TOKENS
        } else {
            defaults::MAX_DRAFT_TOKENS
        };
        let max_draft = self.max_draft.unwrap_or(default);
        let max_draft = if tiled_kernel_on() && !kernels_per_batch() && model.has_tiled_weights() {
            max_draft.min(TILED_MIN_ROWS - 2)
        } else {
            max_draft
        };
        EngineOptions { max_draft: Some(max_draft), ..self }
    }

    /// The longest draft, as [`EngineOptions::for_model`] resolved it (the default for a model
    /// without recurrent state where it was not).
    pub(crate) fn draft_limit(&self) -> usize {
        self.max_draft.unwrap_or(defaults::MAX_DRAFT_TOKENS)
    }

    /// The drafting mode in force when generating. `auto` drafts (the MTP head when the file
    /// has one, plus prompt lookup) only where that cannot change an answer: when this build's
    /// kernels are batch-invariant ([`batch_invariant`]), so every verify row's logits equal
    /// one-token decoding's. Elsewhere llama.cpp rounds a token decoded in a batch with others
    /// differently from the same token decoded alone, a verify batch can change a greedy or
    /// sampled token, and with the planner's timing-driven draft lengths even a rerun can
    /// differ (docs/speculative-decoding.md), so `auto` decodes plainly. An explicit mode is
    /// kept, and a replay of known text (`sqale bench`), where drafts change nothing, maps
    /// `auto` itself.
    pub fn speculation(&self) -> Speculate {
        match self.speculate {
            Speculate::Auto if batch_invariant() => Speculate::Auto,
            Speculate::Auto => Speculate::Off,
            mode => mode,
        }
    }
}

/// A conversation and its cache at one moment ([`Engine::mark`]).
pub struct Mark {
    tokens: Vec<LlamaToken>,
    segments: Vec<Segment>,
    state: llama_cpp_2::context::session::SeqState,
}

impl Mark {
    /// Tokens of the conversation it holds.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether it holds no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// The sequence a lone engine uses.
const SEQ: usize = 0;

/// One context over a [`Model`]: a conversation as one growing token sequence.
pub struct Engine<'m> {
    core: Core<'m>,
    seq: Sequence<'m>,
    /// Output index in the last decoded batch of the token whose logits are current.
    logits_index: Option<i32>,
    /// `(start, len)` of each generated span of the sequence's tokens.
    spans: Vec<(usize, usize)>,
    /// Set by [`Engine::set_cancel`]: once it is true, calls fail with `Cancelled`.
    cancel: Option<Arc<AtomicBool>>,
}

impl<'m> Engine<'m> {
    /// Creates a context over `model`.
    pub fn new(model: &'m Model, options: EngineOptions) -> Result<Self, EngineError> {
        let core = Core::new(model, options, 1)?;
        Ok(Engine { seq: Sequence::new(&core, SEQ), core, logits_index: None, spans: Vec::new(), cancel: None })
    }

    /// Makes the conversation cancellable, until called again with `None`: while `cancel` is
    /// true, every [`Generator`] call fails with [`GenerateError::Cancelled`], and a completion
    /// under way stops before its next decode step (the tokens it kept stay in the sequence;
    /// the next [`Generator::begin`] starts afresh).
    pub fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    fn cancelled(&self) -> Result<(), GenerateError> {
        crate::generate::check_cancel(self.cancel.as_deref())
    }

    /// The model.
    pub fn model(&self) -> &'m Model {
        self.core.model()
    }

    /// The options in force.
    pub fn options(&self) -> &EngineOptions {
        self.core.options()
    }

    /// The conversation's tokens so far.
    pub fn tokens(&self) -> &[LlamaToken] {
        &self.seq.tokens
    }

    /// Logits of the last decoded token (empty before anything was decoded).
    pub fn logits(&self) -> &[f32] {
        match self.logits_index {
            Some(i) => self.core.logits(i),
            None => &[],
        }
    }

    /// Empties the sequence (and forgets nothing else: the prefix snapshot stays).
    pub fn clear(&mut self) {
        self.core.clear(SEQ);
        self.seq.reset();
        self.spans.clear();
        self.logits_index = None;
    }

    /// `(start, len)` of every span of [`Self::tokens`] that was sampled rather than appended.
    pub fn generated_spans(&self) -> &[(usize, usize)] {
        &self.spans
    }

    /// Decodes `tokens` after the current sequence as appended text, in batches; keeps the last
    /// token's logits.
    pub fn decode(&mut self, tokens: &[LlamaToken]) -> Result<(), GenerateError> {
        self.decode_kind(tokens, BatchKind::Appended)
    }

    /// Decodes `tokens` after the current sequence as generated tokens are decoded: on the
    /// kernels of generated tokens, llama.cpp's reference kernels, which give a row the same
    /// bits whatever its batch (one token at a time is plain decoding, what `sqale bench` times
    /// as generation); keeps the last token's logits.
    pub fn decode_sampled(&mut self, tokens: &[LlamaToken]) -> Result<(), GenerateError> {
        self.decode_kind(tokens, BatchKind::Generated)
    }

    /// [`Self::decode`] on the kernels for `kind`.
    fn decode_kind(&mut self, tokens: &[LlamaToken], kind: BatchKind) -> Result<(), GenerateError> {
        if let Some(i) = self.seq.decode(&mut self.core, tokens, kind)? {
            self.logits_index = Some(i);
        }
        Ok(())
    }

    /// A copy of the conversation and its cache as they are now, to come back to with
    /// [`Engine::rewind`]; `None` where the cache can't be copied (with the MTP head drafting).
    /// The benchmarks measure at a depth this way without decoding it again.
    pub fn mark(&self) -> Result<Option<Mark>, GenerateError> {
        let state = self.core.save_seq(SEQ)?;
        Ok(state.map(|state| Mark { tokens: self.seq.tokens.clone(), segments: self.seq.segments.clone(), state }))
    }

    /// Makes the conversation what it was at `mark`: its tokens and cache. Counters, drafting
    /// history and the current logits start afresh (the next decode gives logits again).
    pub fn rewind(&mut self, mark: &Mark) -> Result<(), GenerateError> {
        self.clear();
        self.core.restore_seq(SEQ, &mark.state)?;
        self.seq.tokens = mark.tokens.clone();
        self.seq.segments = mark.segments.clone();
        self.seq.counters.context_tokens = self.seq.tokens.len();
        Ok(())
    }

    /// Size in bytes of the prefix snapshot, if one was taken.
    pub fn prefix_snapshot_bytes(&self) -> Option<usize> {
        self.core.prefix_snapshot_bytes()
    }

    /// What the prompt cache on disk could not do since the last call (a file refused, or not
    /// written); each time the prompt was decoded instead.
    pub fn take_prompt_cache_notes(&mut self) -> Vec<prompt_cache::PromptCacheError> {
        self.core.take_prompt_cache_notes()
    }

    /// Decodes the pending `token` (sampled, not decoded yet): alone, or followed by a draft of
    /// at most `propose_room` tokens in one verify batch whose rows are checked against the
    /// sampler, or against the `known` continuation, taking at most `check_room` tokens. Returns
    /// the drafts kept and the token chosen after them (`next`: `None` when none was chosen).
    /// The one step of both [`Generator::complete`] and [`Engine::decode_generated`].
    fn advance(
        &mut self,
        token: LlamaToken,
        propose_room: usize,
        check_room: usize,
        known: Option<&[LlamaToken]>,
    ) -> Result<Checked, GenerateError> {
        match self.seq.propose(&mut self.core, token, propose_room)? {
            None => {
                let step = Instant::now();
                self.decode_kind(&[token], BatchKind::Generated)?;
                self.core.record_step(step.elapsed().as_secs_f64());
                Ok(Checked { accepted: 0, next: None })
            }
            Some(draft) => self.verify_step(token, draft, check_room, known),
        }
    }

    /// One verify step: decodes `token` and the `draft` in one batch, keeps the drafts chosen
    /// after them (sampled, or the `known` continuation), at most `room` tokens, and drops the
    /// rest from the cache, rebuilding the sequence where the cache can't.
    fn verify_step(
        &mut self,
        token: LlamaToken,
        draft: sequence::Draft,
        room: usize,
        known: Option<&[LlamaToken]>,
    ) -> Result<Checked, GenerateError> {
        let rows: Vec<_> = self.seq.rows(token, &draft.tokens).collect();
        self.core.decode_rows(&rows)?;
        let settled = self.seq.settle(&mut self.core, 0, &rows, Some(&draft), room, known)?;
        self.logits_index = Some(settled.last_row);
        if settled.replay {
            // Beyond the cache's rollback depth: rebuilt (the logits of its last token are the
            // verify row's).
            self.logits_index = self.seq.replay(&mut self.core)?;
        }
        Ok(settled.checked)
    }

    fn sample_next(&mut self) -> Result<LlamaToken, GenerateError> {
        let index = self.logits_index.ok_or(GenerateError::NothingDecoded)?;
        Ok(self.core.sample(&mut self.seq.sampler, self.seq.grammar.as_mut(), index))
    }
}

impl Generator for Engine<'_> {
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError> {
        self.cancelled()?;
        self.clear();
        let keep = self.core.options().keep_prefix;
        // A restored snapshot holds no logits; the caller appends before sampling.
        self.logits_index = self.seq.begin(&mut self.core, prefix, seed, keep)?;
        Ok(())
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        self.cancelled()?;
        let tokens = self.model().tokenize_markup(text, self.seq.tokens.is_empty());
        check_budget(self.seq.tokens.len(), tokens.len(), max_tokens)?;
        self.decode(&tokens)
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        let started = Instant::now();
        let start = self.seq.tokens.len();
        let prefill_before = self.seq.counters.prefill_seconds;
        let mut text = TextStream::default();
        let mut generated = 0usize;
        let mut finish = Finish::Length;
        // A token already sampled from a verify batch, to be taken before sampling again.
        let mut next: Option<LlamaToken> = None;
        while generated < max_tokens {
            self.cancelled()?;
            let token = match next.take() {
                Some(t) => t,
                None => self.sample_next()?,
            };
            if self.core.is_stop(token) {
                finish = Finish::Stop;
                break;
            }
            if let Some(piece) = text.push(self.core.llama(), token) {
                on_text(&piece);
            }
            generated += 1;
            // Decode it: alone, or with a draft of the tokens after it.
            let room = (max_tokens - generated).min(self.core.per_seq().saturating_sub(self.seq.tokens.len() + 1));
            let checked = self.advance(token, room, max_tokens - generated, None)?;
            let kept = &self.seq.tokens[self.seq.tokens.len() - checked.accepted..];
            for &t in kept {
                if let Some(piece) = text.push(self.core.llama(), t) {
                    on_text(&piece);
                }
            }
            generated += checked.accepted;
            next = checked.next;
        }
        if let Some(piece) = text.rest() {
            on_text(&piece);
        }
        let counters = &mut self.seq.counters;
        counters.generated_tokens += generated;
        // Decoding the sampled tokens counted as prefill above; it belongs to generation.
        counters.prefill_seconds = prefill_before;
        counters.generate_seconds += started.elapsed().as_secs_f64();
        counters.speculation = self.seq.drafting.counts;
        self.spans.push((start, generated));
        Ok(Completion { text: text.text(), tokens: generated, finish, ids: text.ids() })
    }

    fn counters(&self) -> Counters {
        self.seq.counters
    }

    fn context_size(&self) -> usize {
        self.core.per_seq()
    }

    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        self.seq.grammar = grammar.map(|g| self.core.grammar_sampler(g)).transpose()?;
        Ok(())
    }
}
