//! Several conversations in one llama.cpp context, decoded in shared batches.
//!
//! [`BatchedEngine::run`] hands jobs (episodes) to worker threads, each bound to one sequence
//! of the context through a [`SlotGenerator`]. The workers run the agent and its tool calls;
//! the calling thread owns the context and runs the scheduler, so a slow tool call in one
//! episode never holds up the others' decoding.
//!
//! The scheduler loop, top to bottom:
//! 1. take every request the workers have sent (begin, append, complete);
//! 2. decode one token for every sequence that is generating, all in one batch, and sample
//!    each sequence's next token from its own logits with its own seeded sampler;
//! 3. decode the next chunk of one sequence's appended text (round robin), on its own.
//!
//! **Results do not depend on the number of sequences** (on the CPU backend). Each sequence
//! keeps its own KV stream (llama.cpp's non-unified cache), appended text is decoded alone in
//! the same chunks as by a lone sequence, generated tokens are decoded one per sequence, and
//! attention takes the plain path, whose rounding of a row does not depend on the batch (CPU
//! flash attention switches kernels with the batch's shape). What remains is whether
//! llama.cpp's matrix kernels give a column the same bits whatever the other columns are:
//! measured true for Q8_0 and Q4_1 weights; not for weights that llama.cpp's CPU backend
//! repacks (Q4_0, Q4_K, IQ4_NL on AVX2), whose kernel changes at four or more rows.
//!
//! The system prompt is decoded once, snapshotted, and copied into each sequence as it starts.

use std::collections::VecDeque;
use std::num::NonZeroU32;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use crate::engine::{self, EngineError, EngineOptions, Model, PrefixCache};
use crate::generate::{Completion, Counters, Finish, GenerateError, Generator};

/// A request from a worker's [`SlotGenerator`] to the scheduler.
enum Request {
    Begin { prefix: String, seed: u32 },
    Append { tokens: Vec<LlamaToken> },
    Complete { max_tokens: usize },
}

/// The scheduler's answer to a request.
enum Reply {
    Done(Counters),
    Completed(Completion, Counters),
    Failed(GenerateError),
}

/// What flows to the scheduler: a request from a slot, or a finished job's result.
enum Message<T> {
    Request(usize, Request),
    Finished(T),
    WorkerExit,
}

/// What a slot is doing.
enum Work {
    /// Waiting for its worker.
    Idle,
    /// Decoding appended tokens, `done` of them so far.
    Prefill { tokens: Vec<LlamaToken>, done: usize },
    /// Generating: `next` is sampled and waits to be decoded.
    Generate { max: usize, generated: usize, next: LlamaToken, bytes: Vec<u8> },
}

/// One sequence of the context.
struct Slot {
    tokens: Vec<LlamaToken>,
    sampler: LlamaSampler,
    /// Logits after the last decoded token of this sequence.
    logits: Vec<f32>,
    counters: Counters,
    work: Work,
}

/// A context of several sequences over one [`Model`].
pub struct BatchedEngine<'m> {
    model: &'m Model,
    ctx: LlamaContext<'m>,
    options: EngineOptions,
    slots: usize,
    per_slot: usize,
    chunk: usize,
    batch: LlamaBatch<'static>,
    prefix: Option<PrefixCache>,
    stops: Vec<LlamaToken>,
}

impl<'m> BatchedEngine<'m> {
    /// A context of `slots` sequences, each with `options.ctx` tokens of its own.
    pub fn new(model: &'m Model, options: EngineOptions, slots: usize) -> Result<Self, EngineError> {
        let slots = slots.max(1);
        let total = (options.ctx as usize).saturating_mul(slots);
        let n_ctx = u32::try_from(total).ok().and_then(NonZeroU32::new).ok_or(EngineError::Context {
            n_ctx: options.ctx,
            reason: format!("{slots} sequences of {} tokens do not fit one context", options.ctx),
        })?;
        let chunk = options.batch.clamp(1, options.ctx);
        let threads = options.threads.unwrap_or_else(engine::default_threads);
        let mut params = LlamaContextParams::default()
            .with_n_ctx(Some(n_ctx))
            .with_n_batch(chunk.max(slots as u32))
            .with_n_ubatch(chunk.max(slots as u32))
            .with_n_seq_max(slots as u32)
            // One KV stream per sequence: a sequence's attention then sees the same cache
            // layout as it would alone.
            .with_kv_unified(false)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        if !model.on_gpu() {
            // llama.cpp's CPU flash attention picks its kernel by batch shape: a lone query
            // over 512+ cached tokens is split across threads and reduced, other shapes are
            // not, so a sequence's rounding would depend on what it shares a batch with. The
            // plain attention path rounds a row the same way whatever the batch (and is no
            // slower on CPU at these lengths: see README).
            params = params.with_flash_attention_policy(llama_cpp_sys_2::LLAMA_FLASH_ATTN_TYPE_DISABLED);
        }
        let ctx = model.new_context(params).map_err(|reason| EngineError::Context { n_ctx: n_ctx.get(), reason })?;
        let per_slot = ctx.n_ctx() as usize / slots;
        Ok(BatchedEngine {
            model,
            ctx,
            stops: model.stop_tokens(),
            slots,
            per_slot,
            chunk: chunk as usize,
            batch: LlamaBatch::new(chunk.max(slots as u32) as usize, 1),
            prefix: None,
            options,
        })
    }

    /// Sequences in the context.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Runs `work` on every job, up to [`Self::slots`] at a time, each on a worker thread with a
    /// generator bound to its own sequence; `on_done` receives each result on this thread, in
    /// the order jobs finish.
    pub fn run<J, T, W>(&mut self, jobs: Vec<J>, work: W, on_done: &mut dyn FnMut(T)) -> Result<(), GenerateError>
    where
        J: Send,
        T: Send,
        W: Fn(J, &mut SlotGenerator<'_>) -> T + Sync,
    {
        let workers = self.slots.min(jobs.len());
        let queue = Mutex::new(jobs.into_iter());
        let (to_scheduler, inbox) = channel::<Message<T>>();
        let model = self.model;
        let per_slot = self.per_slot;
        std::thread::scope(|scope| {
            let mut replies = Vec::with_capacity(workers);
            for slot in 0..workers {
                let (reply_tx, reply_rx) = channel::<Reply>();
                replies.push(reply_tx);
                let to_scheduler = to_scheduler.clone();
                let (queue, work) = (&queue, &work);
                scope.spawn(move || {
                    let send = {
                        let tx = to_scheduler.clone();
                        move |r: Request| tx.send(Message::Request(slot, r)).is_ok()
                    };
                    let mut gen = SlotGenerator {
                        model,
                        send: Box::new(send),
                        replies: reply_rx,
                        counters: Counters::default(),
                        context_size: per_slot,
                    };
                    loop {
                        // The lock is held only to take the next job.
                        let job = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        let Some(job) = job else { break };
                        let result = work(job, &mut gen);
                        if to_scheduler.send(Message::Finished(result)).is_err() {
                            break;
                        }
                    }
                    let _ = to_scheduler.send(Message::WorkerExit);
                });
            }
            drop(to_scheduler);
            self.schedule(inbox, replies, workers, on_done)
        })
    }

    fn schedule<T>(
        &mut self,
        inbox: Receiver<Message<T>>,
        replies: Vec<Sender<Reply>>,
        mut workers: usize,
        on_done: &mut dyn FnMut(T),
    ) -> Result<(), GenerateError> {
        let mut slots: Vec<Slot> = (0..replies.len())
            .map(|_| Slot {
                tokens: Vec::new(),
                sampler: LlamaSampler::greedy(),
                logits: Vec::new(),
                counters: Counters::default(),
                work: Work::Idle,
            })
            .collect();
        let mut turn = 0usize;
        while workers > 0 {
            let busy = slots.iter().any(|s| !matches!(s.work, Work::Idle));
            // Block for news only when nothing can be decoded.
            let mut news: VecDeque<Message<T>> = VecDeque::new();
            if !busy {
                match inbox.recv() {
                    Ok(m) => news.push_back(m),
                    Err(_) => break,
                }
            }
            news.extend(inbox.try_iter());
            for m in news {
                match m {
                    Message::Finished(t) => on_done(t),
                    Message::WorkerExit => workers -= 1,
                    Message::Request(i, r) => match self.accept(&mut slots[i], i, r) {
                        Ok(None) => {}
                        Ok(Some(reply)) => {
                            slots[i].work = Work::Idle;
                            let _ = replies[i].send(reply);
                        }
                        Err(e) => {
                            slots[i].work = Work::Idle;
                            let _ = replies[i].send(Reply::Failed(e));
                        }
                    },
                }
            }
            self.generate_step(&mut slots, &replies)?;
            // One prefill chunk per round, taking turns.
            let n = slots.len();
            if let Some(i) = (0..n).map(|k| (turn + k) % n).find(|&i| matches!(slots[i].work, Work::Prefill { .. })) {
                turn = i + 1;
                if let Err(e) = self.prefill_step(&mut slots[i], i, &replies[i]) {
                    slots[i].work = Work::Idle;
                    let _ = replies[i].send(Reply::Failed(e));
                }
            }
        }
        Ok(())
    }

    /// Takes a request; returns the reply at once to those that need no more decoding.
    fn accept(&mut self, slot: &mut Slot, i: usize, request: Request) -> Result<Option<Reply>, GenerateError> {
        match request {
            Request::Begin { prefix, seed } => {
                let _ = self.ctx.clear_kv_cache_seq(Some(i as u32), None, None);
                slot.tokens.clear();
                slot.logits.clear();
                slot.counters = Counters::default();
                slot.sampler = engine::make_sampler(&self.options, seed);
                self.restore_prefix(slot, i, &prefix)?;
                Ok(Some(Reply::Done(slot.counters)))
            }
            Request::Append { tokens } => {
                let needed = slot.tokens.len() + tokens.len();
                if needed > self.per_slot {
                    return Err(GenerateError::ContextFull { needed, capacity: self.per_slot });
                }
                slot.work = Work::Prefill { tokens, done: 0 };
                Ok(None)
            }
            Request::Complete { max_tokens } => {
                if slot.logits.is_empty() {
                    return Err(GenerateError::Backend("nothing decoded to sample from".into()));
                }
                slot.work = Work::Generate { max: max_tokens, generated: 0, next: LlamaToken(0), bytes: Vec::new() };
                // A completion can end on its first sample.
                Ok(self.sample(slot, None).map(|c| Reply::Completed(c, slot.counters)))
            }
        }
    }

    /// Puts the system-turn snapshot into sequence `i`, decoding and snapshotting it first if
    /// this is the first sequence to start with `prefix`.
    fn restore_prefix(&mut self, slot: &mut Slot, i: usize, prefix: &str) -> Result<(), GenerateError> {
        if self.prefix.as_ref().is_none_or(|p| p.text != prefix) {
            let tokens = self.model.tokenize(prefix, true);
            if tokens.len() > self.per_slot {
                return Err(GenerateError::ContextFull { needed: tokens.len(), capacity: self.per_slot });
            }
            for part in tokens.chunks(self.chunk) {
                let base = slot.tokens.len();
                self.decode_alone(i, base, part)?;
                slot.tokens.extend_from_slice(part);
            }
            slot.counters.decoded_tokens += tokens.len();
            let state = self
                .ctx
                .state_seq_get(i as i32, LlamaStateSeqFlags::empty())
                .map_err(|e| GenerateError::Backend(format!("taking the prompt snapshot failed: {e}")))?;
            self.prefix = Some(PrefixCache { text: prefix.to_string(), tokens, state });
        } else if let Some(p) = &self.prefix {
            self.ctx
                .state_seq_set(&p.state, i as i32)
                .map_err(|e| GenerateError::Backend(format!("restoring the prompt snapshot failed: {e}")))?;
            slot.tokens = p.tokens.clone();
            slot.counters.reused_tokens = p.tokens.len();
        }
        slot.counters.context_tokens = slot.tokens.len();
        Ok(())
    }

    /// Decodes `part` of sequence `i` at positions from `base`, alone in the batch; the last
    /// token's logits become current.
    fn decode_alone(&mut self, i: usize, base: usize, part: &[LlamaToken]) -> Result<(), GenerateError> {
        self.batch.clear();
        for (k, &t) in part.iter().enumerate() {
            self.batch
                .add(t, (base + k) as i32, &[i as i32], k + 1 == part.len())
                .map_err(|e| GenerateError::Backend(e.to_string()))?;
        }
        self.ctx.decode(&mut self.batch).map_err(|e| GenerateError::Backend(format!("decode failed: {e}")))
    }

    /// Decodes the next chunk of a slot's appended text; replies when all of it is in.
    fn prefill_step(&mut self, slot: &mut Slot, i: usize, reply: &Sender<Reply>) -> Result<(), GenerateError> {
        let Work::Prefill { tokens, done } = &mut slot.work else { return Ok(()) };
        let (tokens, start) = (std::mem::take(tokens), *done);
        let end = (start + self.chunk).min(tokens.len());
        if end > start {
            let part = &tokens[start..end];
            self.decode_alone(i, slot.tokens.len(), part)?;
            slot.tokens.extend_from_slice(part);
            slot.logits.clear();
            slot.logits.extend_from_slice(self.ctx.get_logits_ith(part.len() as i32 - 1));
            slot.counters.decoded_tokens += part.len();
            slot.counters.context_tokens = slot.tokens.len();
        }
        if end == tokens.len() {
            slot.work = Work::Idle;
            let _ = reply.send(Reply::Done(slot.counters));
        } else {
            slot.work = Work::Prefill { tokens, done: end };
        }
        Ok(())
    }

    /// Samples a generating slot's next token, from output `index` of the last batch or else
    /// from the slot's saved logits; finishes the completion on a stop token or at its limit.
    fn sample(&self, slot: &mut Slot, index: Option<i32>) -> Option<Completion> {
        let Work::Generate { max, generated, next, bytes, .. } = &mut slot.work else { return None };
        let finish = if *generated >= *max {
            Some(Finish::Length)
        } else {
            let token = match index {
                Some(i) => slot.sampler.sample(&self.ctx, i),
                None => sample_from(&mut slot.sampler, &slot.logits),
            };
            let vocab = self.model.llama().vocab();
            if self.stops.contains(&token) || vocab.is_eog(token) {
                Some(Finish::Stop)
            } else {
                vocab.token_to_piece_into(token, bytes, true, None);
                *next = token;
                *generated += 1;
                None
            }
        };
        finish.map(|finish| Completion { text: String::from_utf8_lossy(bytes).into_owned(), tokens: *generated, finish })
    }

    /// Decodes the pending token of every generating slot in one batch, then samples each one's
    /// next token.
    fn generate_step(&mut self, slots: &mut [Slot], replies: &[Sender<Reply>]) -> Result<(), GenerateError> {
        let mut members: Vec<usize> = Vec::new();
        for (i, slot) in slots.iter_mut().enumerate() {
            if !matches!(slot.work, Work::Generate { .. }) {
                continue;
            }
            if slot.tokens.len() + 1 > self.per_slot {
                // Only this sequence is full; the others go on.
                slot.work = Work::Idle;
                let _ = replies[i].send(Reply::Failed(GenerateError::ContextFull { needed: slot.tokens.len() + 1, capacity: self.per_slot }));
                continue;
            }
            members.push(i);
        }
        if members.is_empty() {
            return Ok(());
        }
        self.batch.clear();
        for &i in &members {
            let slot = &slots[i];
            let Work::Generate { next, .. } = slot.work else { continue };
            self.batch
                .add(next, slot.tokens.len() as i32, &[i as i32], true)
                .map_err(|e| GenerateError::Backend(e.to_string()))?;
        }
        self.ctx.decode(&mut self.batch).map_err(|e| GenerateError::Backend(format!("decode failed: {e}")))?;
        for (k, &i) in members.iter().enumerate() {
            let slot = &mut slots[i];
            let Work::Generate { next, .. } = slot.work else { continue };
            slot.tokens.push(next);
            slot.counters.decoded_tokens += 1;
            slot.counters.generated_tokens += 1;
            slot.counters.context_tokens = slot.tokens.len();
            if let Some(done) = self.sample(slot, Some(k as i32)) {
                // Kept for a completion asked without appending first (as a lone engine would).
                slot.logits.clear();
                slot.logits.extend_from_slice(self.ctx.get_logits_ith(k as i32));
                slot.work = Work::Idle;
                let _ = replies[i].send(Reply::Completed(done, slot.counters));
            }
        }
        Ok(())
    }
}

/// Samples from saved `logits` exactly as llama.cpp's `llama_sampler_sample` does from a
/// context (every token as a candidate, in id order), and records the choice in the sampler.
fn sample_from(sampler: &mut LlamaSampler, logits: &[f32]) -> LlamaToken {
    let mut candidates =
        LlamaTokenDataArray::from_iter(logits.iter().enumerate().map(|(id, &l)| LlamaTokenData::new(LlamaToken(id as i32), l, 0.0)), false);
    candidates.apply_sampler(sampler);
    let token = candidates.selected_token().unwrap_or(LlamaToken(0));
    sampler.accept(token);
    token
}

/// A worker's view of its sequence: a [`Generator`] whose decoding happens in the scheduler's
/// shared batches. Generated text reaches `on_text` in one piece when the completion ends.
pub struct SlotGenerator<'m> {
    model: &'m Model,
    send: Box<dyn Fn(Request) -> bool + Send + 'm>,
    replies: Receiver<Reply>,
    counters: Counters,
    context_size: usize,
}

impl SlotGenerator<'_> {
    fn ask(&mut self, request: Request) -> Result<Reply, GenerateError> {
        if !(self.send)(request) {
            return Err(GenerateError::Backend("the scheduler stopped".into()));
        }
        match self.replies.recv() {
            Ok(Reply::Failed(e)) => Err(e),
            Ok(r) => Ok(r),
            Err(_) => Err(GenerateError::Backend("the scheduler stopped".into())),
        }
    }

    fn keep(&mut self, counters: Counters) {
        let (prefill, generate) = (self.counters.prefill_seconds, self.counters.generate_seconds);
        self.counters = Counters { prefill_seconds: prefill, generate_seconds: generate, ..counters };
    }
}

impl Generator for SlotGenerator<'_> {
    fn begin(&mut self, prefix: &str, seed: u32) -> Result<(), GenerateError> {
        self.counters = Counters::default();
        let started = Instant::now();
        if let Reply::Done(c) = self.ask(Request::Begin { prefix: prefix.to_string(), seed })? {
            self.keep(c);
        }
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    fn append(&mut self, text: &str, max_tokens: usize) -> Result<(), GenerateError> {
        let tokens = self.model.tokenize(text, self.counters.context_tokens == 0);
        let needed = self.counters.context_tokens + tokens.len();
        if needed > max_tokens {
            return Err(GenerateError::OverBudget { needed, limit: max_tokens });
        }
        let started = Instant::now();
        if let Reply::Done(c) = self.ask(Request::Append { tokens })? {
            self.keep(c);
        }
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        let started = Instant::now();
        let reply = self.ask(Request::Complete { max_tokens })?;
        self.counters.generate_seconds += started.elapsed().as_secs_f64();
        match reply {
            Reply::Completed(c, counters) => {
                self.keep(counters);
                on_text(&c.text);
                Ok(c)
            }
            _ => Err(GenerateError::Backend("unexpected reply to a completion".into())),
        }
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn context_size(&self) -> usize {
        self.context_size
    }
}
