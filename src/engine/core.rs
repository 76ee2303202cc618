//! The decode core both engines share: a llama.cpp context of one or more sequences, decoded in
//! batches, with the system-turn snapshot and the stop tokens.
//!
//! [`super::Engine`] runs one conversation on it; [`crate::engine::BatchedEngine`] runs several,
//! one per sequence. Everything that decides what a sequence's logits are lives here, so the two
//! cannot drift apart:
//! - each sequence has `ctx` tokens of KV cache of its own (llama.cpp's non-unified cache), so its
//!   attention sees the same cache layout whether it is alone or not;
//! - appended text is decoded alone in the batch, in chunks of `batch` tokens, on llama.cpp's
//!   fastest CPU kernels: a plain and a drafting run decode exactly the same such batches;
//! - batches that hold generated tokens (one-token decoding, verify batches, several
//!   sequences' tokens) run on llama.cpp's reference kernels, whose result for a row does not
//!   depend on its batch ([`BatchKind`], [`super::kernels`]);
//! - on the CPU backend attention is flash attention: prompt text takes llama.cpp's tiled kernel,
//!   and batches of generated tokens its reference kernel as sqale's patch makes it (llama.cpp's
//!   own picks its path by batch shape and splits a lone query's cache by thread count): each
//!   query row over fixed chunks of 256 cached positions, the chunks' partial results combined in
//!   order, so a row rounds the same in any batch and a lone token still spreads over every
//!   thread (docs/speculative-decoding.md, "Kernels per batch");
//! - the KV cache is f16 by default: on the reference kernels, attention over f16 K and V rounds
//!   a generated row the same in any batch (llamafile's f16 path, which a batch of four or more
//!   rows took on prompt-text kernels and which changed a logit by up to 0.76 on SmolLM2, serves
//!   prompt text only; `examples/verify_probe.rs`), and it halves what attention reads deep in
//!   a context.

use std::num::NonZeroU32;
use std::time::Instant;

use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams, LlamaContextType};
use llama_cpp_2::context::session::{LlamaStateSeqFlags, SeqState};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::speculative::{MtpSpeculative, MtpSpeculativeParams};
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use super::draft::SHORT_DRAFT_TOKENS;
use super::kernels::{use_reference_kernels, BatchKind};
use super::prompt_cache::{DiskCache, Parts, PromptCacheError, Refusal};
use super::{default_threads, EngineError, EngineOptions, Model};
use crate::generate::{GenerateError, Markup, PrefixSource};
use crate::protocol::CallGrammar;
use crate::speculate::adapt::CostCurve;
use crate::speculate::Speculate;

/// A row of a batch: one token of sequence `seq` at position `pos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    /// The sequence (a conversation's id in the context).
    pub(crate) seq: usize,
    /// Its position in the sequence.
    pub(crate) pos: usize,
    /// The token.
    pub(crate) token: LlamaToken,
}

/// The system-turn snapshot reused by every conversation.
struct PrefixSnapshot {
    /// The prefix it was taken after.
    text: Markup,
    /// Its tokens.
    tokens: Vec<LlamaToken>,
    /// The sequence state after them.
    state: SeqState,
    /// The MTP head's part, when it drafts: its draft context's state and its carried row.
    head: Option<(SeqState, Vec<u8>)>,
}

/// A run of a sequence's tokens decoded the same way: appended text in the batches it was
/// decoded in (a replay must decode it in the same ones), or generated tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Position of its first token.
    pub(crate) start: usize,
    /// Its tokens.
    pub(crate) len: usize,
    /// What it holds, which chose its kernels.
    pub(crate) kind: BatchKind,
}

impl Segment {
    /// Adds a segment after `segments`: generated tokens join generated tokens before them
    /// (their kernels round a row the same way in any batch); appended text keeps its own
    /// segment, whose batches a replay repeats.
    pub(crate) fn push(segments: &mut Vec<Segment>, start: usize, len: usize, kind: BatchKind) {
        if len == 0 {
            return;
        }
        if let Some(last) = segments.last_mut() {
            if kind == BatchKind::Generated && last.kind == kind && last.start + last.len == start {
                last.len += len;
                return;
            }
        }
        segments.push(Segment { start, len, kind });
    }
}

/// How a sequence's prefix came to be in the cache.
pub(crate) struct Prefix {
    /// The prefix's tokens.
    pub(crate) tokens: Vec<LlamaToken>,
    /// Decoded, or restored from the snapshot or the prompt cache on disk.
    pub(crate) source: PrefixSource,
    /// Index of the last token's logits in the last batch, when decoded (a snapshot holds no
    /// logits).
    pub(crate) logits: Option<i32>,
}

/// What [`Core::check`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Drafts kept.
    pub(crate) accepted: usize,
    /// The token sampled after them (it may be a stop token); `None` when `room` ran out.
    pub(crate) next: Option<LlamaToken>,
}

/// The target context, alone or with the MTP head's draft context (llama.cpp's MTP drafter
/// owns both).
enum Context<'m> {
    Plain(LlamaContext<'m>),
    Mtp(Box<MtpSpeculative<'m>>),
}

impl<'m> Context<'m> {
    fn get(&self) -> &LlamaContext<'m> {
        match self {
            Context::Plain(c) => c,
            Context::Mtp(m) => m.target_context(),
        }
    }

    fn get_mut(&mut self) -> &mut LlamaContext<'m> {
        match self {
            Context::Plain(c) => c,
            Context::Mtp(m) => m.target_context_mut(),
        }
    }
}

/// A llama.cpp context of `seqs` sequences over one [`Model`].
pub(crate) struct Core<'m> {
    model: &'m Model,
    ctx: Context<'m>,
    options: EngineOptions,
    batch: LlamaBatch<'static>,
    /// Tokens decoded per batch of appended text.
    chunk: usize,
    /// KV cells each sequence may use.
    per_seq: usize,
    prefix: Option<PrefixSnapshot>,
    /// The prompt cache on disk.
    disk: Option<DiskCache>,
    stops: Vec<LlamaToken>,
    /// Seconds per decode step by rows, for sizing drafts.
    cost: CostCurve,
    /// Batches decoded so far, and after how many every later decode fails
    /// ([`FAIL_DECODE_AFTER_VAR`]).
    decodes: usize,
    fail_decode_after: Option<usize>,
}

/// Fault injection for tests of what runs above the engine (a service, a supervisor): when set
/// to `N`, every llama.cpp decode after the first `N` batches of a context fails, as a decode
/// that runs out of device memory would.
pub const FAIL_DECODE_AFTER_VAR: &str = "SQALE_FAIL_DECODE_AFTER";

impl<'m> Core<'m> {
    /// A context of `seqs` sequences of `options.ctx` tokens each.
    pub(crate) fn new(model: &'m Model, options: EngineOptions, seqs: usize) -> Result<Self, EngineError> {
        let options = options.for_model(model);
        let seqs = seqs.max(1);
        let total = (options.ctx as usize).saturating_mul(seqs);
        let n_ctx = u32::try_from(total)
            .ok()
            .and_then(NonZeroU32::new)
            .ok_or(EngineError::ContextSize { seqs, ctx: options.ctx })?;
        let chunk = options.batch.clamp(1, options.ctx.max(1));
        // One batch holds a chunk of appended text, or the verify rows of every sequence: its
        // pending token and its draft (one token each when speculation is off).
        let speculate = options.speculation();
        let draft = if speculate.any() { options.draft_limit() } else { 0 };
        let rows = seqs.saturating_mul(1 + draft);
        let batch = chunk.max(u32::try_from(rows).map_err(|_| EngineError::ContextSize { seqs, ctx: options.ctx })?);
        // llama.cpp's own default is 4 threads whatever the machine; on a 2-core board that
        // oversubscribes and decoding crawls. Default to the cores this process may use.
        let threads = options.threads.unwrap_or_else(default_threads);
        let mut params = LlamaContextParams::default()
            .with_n_ctx(Some(n_ctx))
            .with_n_batch(batch)
            .with_n_ubatch(batch)
            .with_n_seq_max(seqs as u32)
            .with_kv_unified(false)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        let kv_type = options.kv_type.resolve();
        let kv = match kv_type {
            "f32" => KvCacheType::F32,
            _ => KvCacheType::F16,
        };
        if !model.on_gpu() {
            // Flash attention on: prompt text takes llama.cpp's tiled kernel, generated tokens the
            // reference kernels' fixed-chunk one, which rounds a row alike in any batch.
            params = params.with_flash_attention_policy(llama_cpp_sys_2::LLAMA_FLASH_ATTN_TYPE_ENABLED);
        }
        params = params.with_type_k(kv).with_type_v(kv);
        // A hybrid model's recurrent state cannot be cut back to a position; llama.cpp keeps a
        // snapshot per token for the last `n_rs_seq` tokens so that a rejected draft can be
        // dropped (docs/speculative-decoding.md).
        let snapshots = if draft > 0 && model.is_recurrent_or_hybrid() { draft as u32 } else { 0 };
        if snapshots > 0 {
            params = params.with_n_rs_seq(snapshots);
        }
        let wants_mtp = speculate.mtp(model.has_mtp_head());
        if wants_mtp && !model.has_mtp_head() {
            return Err(EngineError::NoMtpHead(model.path().to_path_buf()));
        }
        // llama.cpp's MTP drafter (through llama-cpp-2) serves sequence 0 only.
        let explicit = matches!(speculate, Speculate::Mtp | Speculate::Both);
        if wants_mtp && seqs > 1 && explicit {
            return Err(EngineError::MtpOneSequence(seqs));
        }
        let mtp = wants_mtp && seqs == 1 && options.draft_limit() > 0;
        let draft_params = params.clone().with_context_type(LlamaContextType::Mtp);
        let target = model.new_context(params)?;
        let per_seq = target.n_ctx() as usize / seqs;
        let disk = options
            .prompt_cache
            .clone()
            .and_then(|d| DiskCache::new(d, model, options.ctx, chunk, snapshots, threads as u32, kv_type, mtp));
        let ctx = if mtp {
            let draft = model.new_context(draft_params)?;
            let head_draft = options.draft_limit().min(SHORT_DRAFT_TOKENS) as i32;
            let p = MtpSpeculativeParams { n_max: head_draft, n_min: 0, p_min: 0.0 };
            Context::Mtp(Box::new(MtpSpeculative::new(target, draft, p).map_err(EngineError::Mtp)?))
        } else {
            Context::Plain(target)
        };
        Ok(Core {
            model,
            ctx,
            batch: LlamaBatch::new(batch as usize, 1),
            chunk: chunk as usize,
            per_seq,
            prefix: None,
            disk,
            stops: model.stop_tokens(),
            cost: CostCurve::new(rows.max(1)),
            options,
            decodes: 0,
            fail_decode_after: std::env::var(FAIL_DECODE_AFTER_VAR).ok().and_then(|v| v.trim().parse().ok()),
        })
    }

    /// The model.
    pub(crate) fn model(&self) -> &'m Model {
        self.model
    }

    /// The llama.cpp model (its vocabulary).
    pub(crate) fn llama(&self) -> &'m LlamaModel {
        self.model.llama()
    }

    /// The options the context was made with.
    pub(crate) fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Tokens of KV cache each sequence has.
    pub(crate) fn per_seq(&self) -> usize {
        self.per_seq
    }

    /// Tokens decoded per batch of appended text.
    pub(crate) fn chunk(&self) -> usize {
        self.chunk
    }

    /// A fresh sampler for one conversation: top-k, top-p, temperature, then a draw seeded by
    /// `seed`; greedy at temperature 0.
    pub(crate) fn sampler(&self, seed: u32) -> LlamaSampler {
        let o = &self.options;
        if o.temperature <= 0.0 {
            return LlamaSampler::greedy();
        }
        LlamaSampler::chain_simple([
            LlamaSampler::top_k(o.top_k),
            LlamaSampler::top_p(o.top_p, 1),
            LlamaSampler::temp(o.temperature),
            LlamaSampler::dist(seed),
        ])
    }

    /// Whether `token` ends a completion (it is then not decoded).
    pub(crate) fn is_stop(&self, token: LlamaToken) -> bool {
        self.stops.contains(&token) || self.llama().vocab().is_eog(token)
    }

    /// Empties sequence `seq` (removing a whole sequence always succeeds, recurrent models
    /// included).
    pub(crate) fn clear(&mut self, seq: usize) {
        let _ = self.ctx.get_mut().clear_kv_cache_seq(Some(seq as u32), None, None);
        if let Context::Mtp(m) = &mut self.ctx {
            // The head's cache follows the target's: a sequence decoded again from position 0
            // must find it empty there too (llama.cpp refuses positions that go backwards). Its
            // drafter's carried row goes back to a fresh drafter's zeros, or the first token
            // decoded next would pair with the last batch's row.
            let _ = m.draft_context_mut().clear_kv_cache_seq(None, None, None);
            if let Ok(carried) = m.carried_state() {
                let _ = m.set_carried_state(&vec![0; carried.len()]);
            }
        }
    }

    /// Decodes the batch as it stands, on the kernels for `kind`.
    fn decode_batch(&mut self, kind: BatchKind) -> Result<(), GenerateError> {
        self.decodes += 1;
        if self.fail_decode_after.is_some_and(|n| self.decodes > n) {
            return Err(GenerateError::InjectedDecodeFailure { batches: self.decodes - 1 });
        }
        use_reference_kernels(kind);
        self.ctx.get_mut().decode(&mut self.batch).map_err(|e| failed("decode", e))
    }

    /// Decodes `tokens` (at most [`Self::chunk`]) of sequence `seq` from position `pos`, alone in
    /// one batch of `kind`; returns the index of the last token's logits.
    fn decode_chunk(
        &mut self,
        seq: usize,
        pos: usize,
        tokens: &[LlamaToken],
        kind: BatchKind,
    ) -> Result<i32, GenerateError> {
        self.batch.clear();
        for (k, &t) in tokens.iter().enumerate() {
            self.batch
                .add(t, (pos + k) as i32, &[seq as i32], k + 1 == tokens.len())
                .map_err(|e| failed("adding to a batch", e))?;
        }
        self.decode_batch(kind)?;
        self.mtp_process()?;
        Ok(tokens.len() as i32 - 1)
    }

    /// Decodes `tokens` (at most [`Self::chunk`]) of sequence `seq` from position `pos` in one
    /// batch, with logits for each token whose `marks` entry is set ([`Self::logits`] of the
    /// token's index in `tokens`). Known text: the fast kernels.
    pub(crate) fn decode_marked(
        &mut self,
        seq: usize,
        pos: usize,
        tokens: &[LlamaToken],
        marks: &[bool],
    ) -> Result<(), GenerateError> {
        self.batch.clear();
        for (k, (&t, &m)) in tokens.iter().zip(marks).enumerate() {
            self.batch.add(t, (pos + k) as i32, &[seq as i32], m).map_err(|e| failed("adding to a batch", e))?;
        }
        self.decode_batch(BatchKind::Appended)?;
        self.ctx.get_mut().synchronize();
        Ok(())
    }

    /// Decodes `tokens` of sequence `seq` from position `pos` in chunks of `kind` and waits for
    /// the device; returns the index of the last token's logits in the last batch (`None` for
    /// no tokens).
    pub(crate) fn decode_run(
        &mut self,
        seq: usize,
        pos: usize,
        tokens: &[LlamaToken],
        kind: BatchKind,
    ) -> Result<Option<i32>, GenerateError> {
        let needed = pos + tokens.len();
        if needed > self.per_seq {
            return Err(GenerateError::ContextFull { needed, capacity: self.per_seq });
        }
        let mut last = None;
        for (c, part) in tokens.chunks(self.chunk).enumerate() {
            last = Some(self.decode_chunk(seq, pos + c * self.chunk, part, kind)?);
        }
        // A GPU backend returns before the work is done; wait, so that the time counted is the
        // decode's and not the next call's.
        self.ctx.get_mut().synchronize();
        Ok(last)
    }

    /// Decodes `rows` in one batch, every row with its logits (row `k`'s are output `k`): one generated token of each of several sequences, or a pending token and
    /// its draft. The time it took goes into the cost curve. Generated tokens: the reference
    /// kernels.
    pub(crate) fn decode_rows(&mut self, rows: &[Row]) -> Result<(), GenerateError> {
        let started = Instant::now();
        self.batch.clear();
        for &Row { seq, pos, token } in rows {
            self.batch.add(token, pos as i32, &[seq as i32], true).map_err(|e| failed("adding to a batch", e))?;
        }
        self.decode_batch(BatchKind::Generated)?;
        self.ctx.get_mut().synchronize();
        self.cost.record_step(rows.len(), started.elapsed().as_secs_f64());
        Ok(())
    }

    /// Whether the MTP head drafts on this context.
    pub(crate) fn has_mtp(&self) -> bool {
        matches!(self.ctx, Context::Mtp(_))
    }

    /// Hands the batch just decoded to the MTP head (it builds its own cache from the target's
    /// hidden states of those rows). A no-op without a head.
    fn mtp_process(&mut self) -> Result<(), GenerateError> {
        if let Context::Mtp(m) = &mut self.ctx {
            m.process(&self.batch).map_err(|e| failed("the MTP head's update", e))?;
        }
        Ok(())
    }

    /// Up to `max` tokens the MTP head proposes after `last` (pending at position `n_past`,
    /// the conversation being `context`). Its scratch positions are dropped again, so that the
    /// verify batch is the only thing that advances it.
    pub(crate) fn mtp_draft(
        &mut self,
        n_past: usize,
        last: LlamaToken,
        context: &[LlamaToken],
        max: usize,
    ) -> Result<Vec<LlamaToken>, GenerateError> {
        let Context::Mtp(m) = &mut self.ctx else { return Ok(Vec::new()) };
        let mut draft = m.draft(n_past as i32, last, context).map_err(|e| failed("the MTP head's draft", e))?;
        let _ = m.draft_context_mut().clear_kv_cache_seq(Some(0), Some(n_past as u32), None);
        draft.truncate(max.max(1));
        Ok(draft)
    }

    /// After a verify batch of `rows` was checked: the MTP head learns the `kept` rows (and, when
    /// it drafted, how many of its tokens were accepted).
    pub(crate) fn mtp_settle(&mut self, rows: &[Row], kept: usize, drafted_by_mtp: bool) -> Result<(), GenerateError> {
        let Context::Mtp(m) = &mut self.ctx else { return Ok(()) };
        self.batch.clear();
        for &Row { seq, pos, token } in &rows[..kept] {
            self.batch.add(token, pos as i32, &[seq as i32], true).map_err(|e| failed("adding to a batch", e))?;
        }
        m.process(&self.batch).map_err(|e| failed("the MTP head's update", e))?;
        if drafted_by_mtp {
            m.accept(u16::try_from(kept - 1).unwrap_or(u16::MAX)).map_err(|e| failed("the MTP head's accept", e))?;
        }
        Ok(())
    }

    /// Records that a plain decode step of one row took `seconds`.
    pub(crate) fn record_step(&mut self, seconds: f64) {
        self.cost.record_step(1, seconds);
    }

    /// The measured cost of decode steps by rows.
    pub(crate) fn cost(&self) -> &CostCurve {
        &self.cost
    }

    /// Samples the verify rows of one sequence in order: row `first` (after the pending token)
    /// and one row after each draft token. Keeps drafts while they equal the token sampled
    /// before them, then samples the row after the last kept one; at most `room` tokens are
    /// taken, drafts included. The sampler is called once per token taken, in the order plain
    /// decoding would call it, and a stop token is never kept as a draft.
    /// With a `grammar` sampler, every row is sampled through it first and it accepts each token
    /// taken, so it advances exactly as in plain decoding (a rejected draft was never sampled).
    pub(crate) fn check(
        &self,
        sampler: &mut LlamaSampler,
        mut grammar: Option<&mut LlamaSampler>,
        first: i32,
        drafts: &[LlamaToken],
        room: usize,
    ) -> Checked {
        self.check_with(|row| self.sample(sampler, grammar.as_deref_mut(), first + row as i32), drafts, room)
    }

    /// [`Self::check`] with the token after the `row`-th kept token chosen by `pick` (the
    /// sampler, or a known continuation when replaying text as if it were generated).
    pub(crate) fn check_with(
        &self,
        mut pick: impl FnMut(usize) -> LlamaToken,
        drafts: &[LlamaToken],
        room: usize,
    ) -> Checked {
        let mut accepted = 0;
        while accepted < room {
            let token = pick(accepted);
            match drafts.get(accepted) {
                Some(&d) if d == token && !self.is_stop(token) => accepted += 1,
                _ => return Checked { accepted, next: Some(token) },
            }
        }
        Checked { accepted, next: None }
    }

    /// Drops positions `keep..` of sequence `seq` (rejected drafts); false when the cache can't
    /// (a hybrid model's recurrent state rolled back further than its snapshots reach).
    pub(crate) fn rollback(&mut self, seq: usize, keep: usize) -> bool {
        matches!(self.ctx.get_mut().clear_kv_cache_seq(Some(seq as u32), Some(keep as u32), None), Ok(true))
    }

    /// Rebuilds sequence `seq` as exactly `tokens`, decoded as its `segments` first were (each
    /// run of appended text in the same batches, on the same kernels): from the prefix snapshot
    /// when `tokens` starts with it and it ends where a segment does, else from nothing;
    /// returns the index of the last token's logits (`None` when nothing was decoded). The way
    /// out when [`Self::rollback`] can't.
    pub(crate) fn replay(
        &mut self,
        seq: usize,
        tokens: &[LlamaToken],
        segments: &[Segment],
    ) -> Result<Option<i32>, GenerateError> {
        self.clear(seq);
        let mut from = 0;
        if let Context::Mtp(m) = &mut self.ctx {
            // The head relearns the whole sequence from the replay's batches.
            let _ = m.draft_context_mut().clear_kv_cache_seq(None, None, None);
        } else if let Some(snap) = self.prefix.as_ref().filter(|p| {
            tokens.starts_with(&p.tokens)
                && p.tokens.len() < tokens.len()
                && segments.iter().any(|s| s.start + s.len == p.tokens.len())
        }) {
            self.ctx
                .get_mut()
                .state_seq_set(&snap.state, seq as i32)
                .map_err(|e| failed("restoring the prompt snapshot", e))?;
            from = snap.tokens.len();
        }
        let mut last = None;
        for s in segments {
            let end = (s.start + s.len).min(tokens.len());
            if end <= from {
                continue;
            }
            let start = s.start.max(from);
            last = self.decode_run(seq, start, &tokens[start..end], s.kind)?.or(last);
        }
        Ok(last)
    }

    /// A copy of sequence `seq`'s state in the cache, or `None` with the MTP head (its own cache
    /// and carried hidden state are not in it).
    pub(crate) fn save_seq(&self, seq: usize) -> Result<Option<SeqState>, GenerateError> {
        if self.has_mtp() {
            return Ok(None);
        }
        let state = self
            .ctx
            .get()
            .state_seq_get(seq as i32, LlamaStateSeqFlags::empty())
            .map_err(|e| failed("copying a sequence's state", e))?;
        Ok(Some(state))
    }

    /// Makes sequence `seq`, cleared by the caller, hold exactly `state` again ([`Self::save_seq`]).
    pub(crate) fn restore_seq(&mut self, seq: usize, state: &SeqState) -> Result<(), GenerateError> {
        self.ctx.get_mut().state_seq_set(state, seq as i32).map_err(|e| failed("restoring a sequence's state", e))
    }

    /// Logits of output `index` of the last batch.
    pub(crate) fn logits(&self, index: i32) -> &[f32] {
        self.ctx.get().get_logits_ith(index)
    }

    /// Samples from output `index` of the last batch; through `grammar` first when there is one.
    pub(crate) fn sample(
        &self,
        sampler: &mut LlamaSampler,
        grammar: Option<&mut LlamaSampler>,
        index: i32,
    ) -> LlamaToken {
        match grammar {
            None => sampler.sample(self.ctx.get(), index),
            Some(g) => sample_from(sampler, Some(g), self.logits(index)),
        }
    }

    /// llama.cpp's grammar sampler for `grammar` over this model's vocabulary: lazy (from its
    /// trigger on) when it has triggers.
    pub(crate) fn grammar_sampler(&self, grammar: &CallGrammar) -> Result<LlamaSampler, GenerateError> {
        let made = if grammar.lazy() {
            LlamaSampler::grammar_lazy_patterns(self.llama(), &grammar.gbnf, "root", &grammar.triggers, &[])
        } else {
            LlamaSampler::grammar(self.llama(), &grammar.gbnf, "root")
        };
        made.map_err(|e| failed("building the call grammar", e))
    }

    /// Puts the prefix into sequence `seq` (emptied first): restored from the snapshot when one
    /// was taken after the same text, else from the prompt cache on disk, else decoded (and
    /// written to the disk cache); snapshotted when `keep` is set. With the MTP head drafting,
    /// the head's part (its draft context's state and carried row) is restored, saved and
    /// snapshotted with the target's.
    pub(crate) fn begin(&mut self, seq: usize, text: &Markup, keep: bool) -> Result<Prefix, GenerateError> {
        self.clear(seq);
        if let Some(snap) = self.prefix.as_ref().filter(|p| &p.text == text) {
            let tokens = snap.tokens.clone();
            match (&mut self.ctx, &snap.head) {
                (Context::Plain(c), None) => {
                    c.state_seq_set(&snap.state, seq as i32).map_err(|e| failed("restoring the prompt snapshot", e))?
                }
                (Context::Mtp(m), Some((head, carry))) => {
                    m.target_context_mut()
                        .state_seq_set(&snap.state, seq as i32)
                        .map_err(|e| failed("restoring the prompt snapshot", e))?;
                    m.draft_context_mut()
                        .state_seq_set(head, seq as i32)
                        .map_err(|e| failed("restoring the MTP head's prompt snapshot", e))?;
                    m.set_carried_state(carry).map_err(|e| failed("restoring the MTP head's carried state", e))?;
                    m.begin(&tokens).map_err(|e| failed("starting the MTP head", e))?;
                }
                _ => return Err(GenerateError::SnapshotOnAnotherContext),
            }
            return Ok(Prefix { tokens, source: PrefixSource::Memory, logits: None });
        }
        let tokens = self.model.tokenize_markup(text, true);
        let (source, logits) = if self.restore_from_disk(seq, text, &tokens) {
            (PrefixSource::Disk, None)
        } else {
            let logits = self.decode_run(seq, 0, &tokens, BatchKind::Appended)?;
            self.save_to_disk(seq, text, &tokens);
            (PrefixSource::Decoded, logits)
        };
        if let Context::Mtp(m) = &mut self.ctx {
            m.begin(&tokens).map_err(|e| failed("starting the MTP head", e))?;
        }
        if keep {
            let state = self
                .ctx
                .get()
                .state_seq_get(seq as i32, LlamaStateSeqFlags::empty())
                .map_err(|e| failed("taking the prompt snapshot", e))?;
            let head = match &mut self.ctx {
                Context::Plain(_) => None,
                Context::Mtp(m) => {
                    let head = m
                        .draft_context_mut()
                        .state_seq_get(seq as i32, LlamaStateSeqFlags::empty())
                        .map_err(|e| failed("taking the MTP head's prompt snapshot", e))?;
                    let carry = m.carried_state().map_err(|e| failed("taking the MTP head's carried state", e))?;
                    Some((head, carry))
                }
            };
            self.prefix = Some(PrefixSnapshot { text: text.clone(), tokens: tokens.clone(), state, head });
        }
        Ok(Prefix { tokens, source, logits })
    }

    /// Restores sequence `seq` (empty) to the state saved on disk after `text` (`tokens`), with
    /// the MTP head's part where it drafts; false when there is no such file, or it was refused
    /// (noted, and the sequence left empty). A head part of the wrong size is refused before
    /// anything reaches llama.cpp.
    fn restore_from_disk(&mut self, seq: usize, text: &Markup, tokens: &[LlamaToken]) -> bool {
        let Some(disk) = self.disk.as_mut() else { return false };
        let ids: Vec<i32> = tokens.iter().map(|t| t.0).collect();
        let Some(loaded) = disk.load(text, &ids) else { return false };
        if let Context::Mtp(m) = &mut self.ctx {
            let carried = m.carried_state().map(|c| c.len()).unwrap_or(0);
            if carried == 0 || loaded.head_carry().len() != carried {
                disk.refused(loaded.path, Refusal::Damaged);
                return false;
            }
        }
        // SAFETY (each `set_data_ext`): the bytes are states llama.cpp handed out
        // (`save_to_disk`) for this model file, these context settings and this build (the
        // key), unchanged since (the checksum); llama.cpp's reader also checks every read
        // against the buffer's length.
        let ok = match &mut self.ctx {
            Context::Plain(c) => unsafe {
                c.state_seq_set_data_ext(loaded.state(), seq as i32, LlamaStateSeqFlags::empty())
            },
            Context::Mtp(m) => {
                let flags = LlamaStateSeqFlags::empty();
                let target =
                    unsafe { m.target_context_mut().state_seq_set_data_ext(loaded.state(), seq as i32, flags) };
                let head = target
                    && unsafe { m.draft_context_mut().state_seq_set_data_ext(loaded.head_state(), seq as i32, flags) };
                head && m.set_carried_state(loaded.head_carry()).is_ok()
            }
        };
        if !ok {
            disk.rejected(loaded.path);
            self.clear(seq);
        }
        ok
    }

    /// Writes sequence `seq`'s state, just after decoding `text` (`tokens`), to the disk cache,
    /// with the MTP head's part where it drafts (a failure is noted).
    fn save_to_disk(&mut self, seq: usize, text: &Markup, tokens: &[LlamaToken]) {
        if self.disk.is_none() {
            return;
        }
        let taken = match &mut self.ctx {
            Context::Plain(c) => seq_state_bytes(c, seq).map(|s| (s, Vec::new(), Vec::new())),
            Context::Mtp(m) => seq_state_bytes(m.target_context(), seq).and_then(|state| {
                let head = seq_state_bytes(m.draft_context_mut(), seq)?;
                let carry = m.carried_state().map_err(|e| format!("the MTP head's carried state: {e}"))?;
                Ok((state, head, carry))
            }),
        };
        let ids: Vec<i32> = tokens.iter().map(|t| t.0).collect();
        if let Some(disk) = self.disk.as_mut() {
            match taken {
                Ok((state, head_state, head_carry)) => {
                    disk.save(text, &ids, Parts { state: &state, head_state: &head_state, head_carry: &head_carry })
                }
                Err(why) => disk.unsaved(text, why),
            }
        }
    }

    /// What the prompt cache on disk could not do since the last call.
    pub(crate) fn take_prompt_cache_notes(&mut self) -> Vec<PromptCacheError> {
        self.disk.as_mut().map(DiskCache::take_notes).unwrap_or_default()
    }

    /// Size in bytes of the prefix snapshot, if one was taken.
    pub(crate) fn prefix_snapshot_bytes(&self) -> Option<usize> {
        self.prefix.as_ref().map(|p| p.state.byte_len())
    }
}

/// Sequence `seq`'s state in `ctx` as bytes, or why llama.cpp did not hand it over.
fn seq_state_bytes(ctx: &LlamaContext<'_>, seq: usize) -> Result<Vec<u8>, String> {
    let flags = LlamaStateSeqFlags::empty();
    let size = ctx.state_seq_get_size_ext(seq as i32, flags);
    let mut state = vec![0u8; size];
    // SAFETY: `state` has the room llama.cpp just said the sequence's state takes, and nothing
    // runs on the context in between.
    let n = unsafe { ctx.state_seq_get_data_ext(state.as_mut_ptr(), seq as i32, flags) };
    if n == size {
        Ok(state)
    } else {
        Err(format!("llama.cpp handed over {n} bytes of a {size}-byte state"))
    }
}

/// A failed llama.cpp call as a generation error, its error kept as the source.
fn failed(what: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> GenerateError {
    GenerateError::Failed { what, source: Box::new(e) }
}

/// Samples from saved `logits` exactly as llama.cpp's `llama_sampler_sample` does from a
/// context (every token as a candidate, in id order), and records the choice in the sampler.
///
/// With a `grammar` sampler, in the order of llama.cpp's common sampler (`common_sampler_sample`,
/// grammar not first): the chain samples from every candidate; if the grammar accepts that token
/// it is taken, else the candidates are masked by the grammar and the chain samples again. The
/// grammar then accepts the choice. A grammar pass over the whole vocabulary is paid only on a
/// token the grammar refuses, not on every token.
pub(crate) fn sample_from(
    sampler: &mut LlamaSampler,
    grammar: Option<&mut LlamaSampler>,
    logits: &[f32],
) -> LlamaToken {
    let all = || {
        LlamaTokenDataArray::from_iter(
            logits.iter().enumerate().map(|(id, &l)| LlamaTokenData::new(LlamaToken(id as i32), l, 0.0)),
            false,
        )
    };
    let mut candidates = all();
    candidates.apply_sampler(sampler);
    let mut token = candidates.selected_token().unwrap_or(LlamaToken(0));
    if let Some(g) = grammar {
        if !grammar_accepts(g, token) {
            let mut masked = all();
            masked.apply_sampler(g);
            masked.apply_sampler(sampler);
            token = masked.selected_token().unwrap_or(LlamaToken(0));
        }
        g.accept(token);
    }
    sampler.accept(token);
    token
}

/// Whether `grammar` allows `token` next: the grammar applied to that one candidate leaves its
/// logit finite (llama.cpp's own check in `common_sampler_sample`).
fn grammar_accepts(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
    one.apply_sampler(grammar);
    one.data.first().is_some_and(|d| d.logit().is_finite())
}

/// The text of sampled tokens, handed on in whole UTF-8 characters (a token may end inside a
/// multi-byte character).
#[derive(Default)]
pub(crate) struct TextStream {
    bytes: Vec<u8>,
    emitted: usize,
    ids: Vec<u32>,
}

impl TextStream {
    /// Adds `token`'s text; returns what is now complete and not yet handed on.
    pub(crate) fn push(&mut self, model: &LlamaModel, token: LlamaToken) -> Option<String> {
        model.vocab().token_to_piece_into(token, &mut self.bytes, true, None);
        self.ids.push(token.0 as u32);
        let valid = match std::str::from_utf8(&self.bytes[self.emitted..]) {
            Ok(s) => s.len(),
            // An invalid byte (not a cut character) is handed on as a replacement character.
            Err(e) if e.error_len().is_some() => self.bytes.len() - self.emitted,
            Err(e) => e.valid_up_to(),
        };
        if valid == 0 {
            return None;
        }
        let out = String::from_utf8_lossy(&self.bytes[self.emitted..self.emitted + valid]).into_owned();
        self.emitted += valid;
        Some(out)
    }

    /// What was not handed on yet (an incomplete character at the end).
    pub(crate) fn rest(&mut self) -> Option<String> {
        if self.emitted == self.bytes.len() {
            return None;
        }
        let out = String::from_utf8_lossy(&self.bytes[self.emitted..]).into_owned();
        self.emitted = self.bytes.len();
        Some(out)
    }

    /// The whole text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The ids of the tokens pushed, in order.
    pub(crate) fn ids(&self) -> Vec<u32> {
        self.ids.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ModelOptions;
    use crate::prompt::Prompt;

    /// The head's draft context state of sequence 0 (its KV cells).
    fn head_state(core: &mut Core<'_>) -> Vec<u8> {
        let Context::Mtp(m) = &mut core.ctx else { panic!("the MTP head drafts on this context") };
        seq_state_bytes(m.draft_context_mut(), 0).expect("the head's state")
    }

    /// The carried hidden row and the head's draft context state, and the head's first draft
    /// after the prompt (the one that reads that row).
    fn head_after_prompt(core: &mut Core<'_>, prompt: &[LlamaToken]) -> (Vec<u8>, Vec<u8>, Vec<LlamaToken>) {
        let Context::Mtp(m) = &mut core.ctx else { panic!("the MTP head drafts on this context") };
        let carry = m.carried_state().expect("the drafter's carried row");
        let head = head_state(core);
        let draft = core.mtp_draft(prompt.len(), prompt[1], prompt, 4).expect("a draft");
        (carry, head, draft)
    }

    /// The head's update of a batch with no output row (the drafter's `process`, which llama.cpp
    /// builds as a K/V-only graph under patch 0005) stores the K and V rows that the head's whole
    /// graph stores for the same input: a token processed after the prompt leaves the head's
    /// cache byte for byte as drafting from that token does (which runs the whole layer and the
    /// LM head), both under the reference kernels as in an episode.
    #[test]
    fn the_heads_kv_only_update_stores_what_its_whole_graph_stores() {
        let gguf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf");
        let model = Model::load(&gguf, &ModelOptions::default()).expect("the stand-in loads");
        let options =
            EngineOptions { ctx: 2048, threads: Some(2), speculate: Speculate::Mtp, ..EngineOptions::default() };
        let prompt = Prompt::default().shared_prefix();

        let mut processed = Core::new(&model, options.clone(), 1).expect("a context with the head");
        let p = processed.begin(0, &prompt, false).expect("the prompt decoded");
        let (n, next) = (p.tokens.len(), p.tokens[1]);
        let after_prompt = head_state(&mut processed);
        processed.decode_chunk(0, n, &[next], BatchKind::Generated).expect("one generated token");
        let processed = head_state(&mut processed);
        assert!(processed.len() > after_prompt.len(), "the update stored the token's row");

        let mut drafted = Core::new(&model, options, 1).expect("a context with the head");
        drafted.begin(0, &prompt, false).expect("the prompt decoded");
        use_reference_kernels(BatchKind::Generated);
        let Context::Mtp(m) = &mut drafted.ctx else { panic!("the MTP head drafts on this context") };
        let draft = m.draft(n as i32, next, &p.tokens).expect("a draft");
        assert!(!draft.is_empty(), "the head drafted");
        // The draft's first row is the same input at the same position; its later rows go.
        m.draft_context_mut().clear_kv_cache_seq(Some(0), Some(n as u32 + 1), None).expect("the later rows dropped");
        let drafted = head_state(&mut drafted);
        assert_eq!(processed.len(), drafted.len());
        let first = processed.iter().zip(&drafted).position(|(a, b)| a != b);
        assert!(first.is_none(), "the head's cache differs from byte {first:?} of {}", drafted.len());
    }

    /// A prompt restored from disk or from the in-memory snapshot with the MTP head drafting (the
    /// stand-in's trained head) leaves the head exactly as decoding it does: the same carried
    /// hidden row (not the drafter's fresh zeros), the same draft context state, and so the same
    /// first draft; and so does decoding it again on a used context.
    #[test]
    fn a_restored_prompt_gives_the_head_the_decoded_prompts_row_and_state() {
        let gguf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf");
        let model = Model::load(&gguf, &ModelOptions::default()).expect("the stand-in loads");
        assert!(model.has_mtp_head());
        let dir = tempfile::tempdir().expect("a temporary folder");
        let options = EngineOptions {
            ctx: 2048,
            threads: Some(2),
            speculate: Speculate::Mtp,
            prompt_cache: Some(dir.path().to_path_buf()),
            ..EngineOptions::default()
        };
        let prompt = Prompt::default().shared_prefix();

        let mut decoded = Core::new(&model, options.clone(), 1).expect("a context with the head");
        let p = decoded.begin(0, &prompt, false).expect("the prompt decoded");
        assert_eq!(p.source, PrefixSource::Decoded);
        let after_decoding = head_after_prompt(&mut decoded, &p.tokens);
        assert!(after_decoding.0.iter().any(|&b| b != 0), "the row is the target's, not zeros");
        assert!(!after_decoding.2.is_empty(), "the head drafted");
        drop(decoded);

        let mut restored = Core::new(&model, options, 1).expect("a context with the head");
        let p = restored.begin(0, &prompt, false).expect("the prompt restored");
        assert_eq!(p.source, PrefixSource::Disk, "{:?}", restored.take_prompt_cache_notes());
        assert!(head_after_prompt(&mut restored, &p.tokens) == after_decoding, "the head differs after a restore");

        // The in-memory snapshot (`serve`, a terminal session) holds the head's part too.
        let p = restored.begin(0, &prompt, true).expect("the prompt restored and snapshotted");
        assert_eq!(p.source, PrefixSource::Disk, "{:?}", restored.take_prompt_cache_notes());
        let p = restored.begin(0, &prompt, true).expect("the prompt from the snapshot");
        assert_eq!(p.source, PrefixSource::Memory);
        assert!(head_after_prompt(&mut restored, &p.tokens) == after_decoding, "the head differs after the snapshot");

        // Decoded again on a used context: the head starts as a fresh one (its carried row back
        // to zeros), not from the last batch's row.
        let uncached = EngineOptions { prompt_cache: None, ..restored.options().clone() };
        drop(restored);
        let mut used = Core::new(&model, uncached, 1).expect("a context with the head");
        for _ in 0..2 {
            let p = used.begin(0, &prompt, false).expect("the prompt decoded");
            assert_eq!(p.source, PrefixSource::Decoded);
            assert!(head_after_prompt(&mut used, &p.tokens) == after_decoding, "the head differs after decoding again");
        }
    }
}
