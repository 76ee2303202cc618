//! Several conversations in one llama.cpp context, decoded in shared batches.
//!
//! [`BatchedEngine::run`] hands jobs (episodes) to worker threads, each bound to one sequence
//! of the context through a [`SequenceGenerator`]. The workers run the agent and its tool calls;
//! the calling thread owns the context and runs the scheduler, so a slow tool call in one
//! episode never holds up the others' decoding.
//!
//! The scheduler loop, top to bottom:
//! 1. take every request the workers have sent (begin, append, complete);
//! 2. decode one token for every sequence that is generating, all in one batch, and sample
//!    each sequence's next token from its own logits with its own seeded sampler;
//! 3. decode the next chunk of one sequence's appended text (round robin), on its own.
//!
//! **Results do not depend on the number of sequences** (on the CPU backend): the context,
//! batching and attention rules are the decode core's (`engine/core.rs`), and what a step does
//! to a sequence is `engine/sequence.rs`, both shared with the lone [`super::Engine`];
//! appended text is decoded alone in the batch, generated tokens one per sequence. What remains
//! is whether llama.cpp's matrix kernels give a row the same bits whatever the other rows are:
//! batches of generated tokens run on llama.cpp's reference kernels, where they do, so a
//! sequence plays the lone episode however many others decode beside it
//! ([`super::kernels_per_batch`], docs/speculative-decoding.md, "Kernels per batch").
//!
//! The system prompt is decoded once, snapshotted, and copied into each sequence as it starts.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use llama_cpp_2::token::LlamaToken;

use super::core::{sample_from, Core, Row, TextStream};
use super::kernels::BatchKind;
use super::sequence::{check_budget, Draft, Sequence};
use super::{EngineError, EngineOptions, Model};
use crate::generate::{Completion, Counters, Finish, GenerateError, Generator, Markup};

/// A request from a worker's [`SequenceGenerator`] to the scheduler.
enum Request {
    Begin { prefix: Markup, seed: u32 },
    Append { tokens: Vec<LlamaToken> },
    Complete { max_tokens: usize, live: Option<Live> },
    // Holds the completions that follow to a grammar (`None`: free again).
    Constrain { grammar: Option<crate::protocol::CallGrammar> },
}

/// What a completion asked with [`SequenceGenerator::set_live`] carries: text is handed on as it
/// is generated, and the completion stops when `cancel` is set.
struct Live {
    cancel: Arc<AtomicBool>,
    /// Text generated and not yet sent to the worker.
    unsent: String,
}

impl Live {
    /// Keeps `piece` (what [`TextStream::push`] completed) for the next send.
    fn keep(live: &mut Option<Live>, piece: Option<String>) {
        if let (Some(l), Some(p)) = (live.as_mut(), piece) {
            l.unsent.push_str(&p);
        }
    }

    /// Sends what is kept, if anything.
    fn flush(live: &mut Option<Live>, reply: &Sender<Reply>) {
        if let Some(l) = live.as_mut().filter(|l| !l.unsent.is_empty()) {
            let _ = reply.send(Reply::Text(std::mem::take(&mut l.unsent)));
        }
    }
}

/// The scheduler's answer to a request.
enum Reply {
    Done(Counters),
    /// Text generated so far and not yet handed on (live completions; for the others, one
    /// empty piece when the first token is sampled).
    Text(String),
    Completed(Completion, Counters),
    Failed(GenerateError),
}

/// What flows to the scheduler: a request from a sequence's worker, or a finished job's result.
enum Message<T> {
    Request(usize, Request),
    Finished(T),
    WorkerExit,
}

/// What a sequence is doing.
enum Work {
    /// Waiting for its worker.
    Idle,
    /// Decoding appended tokens, `done` of them so far.
    Prefill { tokens: Vec<LlamaToken>, done: usize },
    /// Generating: `next` is sampled and waits to be decoded.
    Generate { max: usize, generated: usize, next: LlamaToken, text: TextStream, live: Option<Live> },
}

/// A member of a generate batch.
struct Member {
    /// Its place among the scheduled sequences.
    slot: usize,
    /// Its first row in the batch (the pending token's; the draft's follow).
    first: usize,
    /// Its draft, if it has one.
    draft: Option<Draft>,
}

/// One sequence of the context as the scheduler sees it.
struct Scheduled {
    seq: Sequence<'static>,
    /// Logits after the last decoded token of this sequence.
    logits: Vec<f32>,
    work: Work,
}

/// A context of several sequences over one [`Model`].
pub struct BatchedEngine<'m> {
    core: Core<'m>,
    sequences: usize,
}

impl<'m> BatchedEngine<'m> {
    /// A context of `sequences` sequences, each with `options.ctx` tokens of its own.
    pub fn new(model: &'m Model, options: EngineOptions, sequences: usize) -> Result<Self, EngineError> {
        let sequences = sequences.max(1);
        // The MTP head drafts for a context of one sequence (llama.cpp's drafter serves sequence
        // 0); Core refuses `mtp` and `both` asked of several.
        Ok(BatchedEngine { core: Core::new(model, options, sequences)?, sequences })
    }

    /// Sequences in the context.
    pub fn sequences(&self) -> usize {
        self.sequences
    }

    /// Tokens of context each sequence has.
    pub fn context_per_sequence(&self) -> usize {
        self.core.per_seq()
    }

    /// Runs `work` on every job, up to [`Self::sequences`] at a time, each on a worker thread with a
    /// generator bound to its own sequence; `on_done` receives each result on this thread, in
    /// the order jobs finish.
    ///
    /// `jobs` may block: a service passes a channel's receiving end, and this returns once the
    /// channel is closed and every job taken has finished.
    pub fn run<I, T, W>(&mut self, jobs: I, work: W, on_done: &mut dyn FnMut(T)) -> Result<(), GenerateError>
    where
        I: IntoIterator,
        I::IntoIter: Send,
        I::Item: Send,
        T: Send,
        W: Fn(I::Item, &mut SequenceGenerator<'_>) -> T + Sync,
    {
        let jobs = jobs.into_iter();
        let workers = match jobs.size_hint() {
            (_, Some(n)) => self.sequences.min(n),
            (_, None) => self.sequences,
        };
        let queue = Mutex::new(jobs);
        let (to_scheduler, inbox) = channel::<Message<T>>();
        let model = self.core.model();
        let per_seq = self.core.per_seq();
        std::thread::scope(|scope| {
            let mut replies = Vec::with_capacity(workers);
            for id in 0..workers {
                let (reply_tx, reply_rx) = channel::<Reply>();
                replies.push(reply_tx);
                let to_scheduler = to_scheduler.clone();
                let (queue, work) = (&queue, &work);
                scope.spawn(move || {
                    let send = {
                        let tx = to_scheduler.clone();
                        move |r: Request| tx.send(Message::Request(id, r)).is_ok()
                    };
                    let mut gen = SequenceGenerator {
                        model,
                        send: Box::new(send),
                        replies: reply_rx,
                        counters: Counters::default(),
                        context_size: per_seq,
                        live: None,
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
        let mut scheduled: Vec<Scheduled> = (0..replies.len())
            .map(|id| Scheduled { seq: Sequence::new(&self.core, id), logits: Vec::new(), work: Work::Idle })
            .collect();
        let mut turn = 0usize;
        while workers > 0 {
            let busy = scheduled.iter().any(|s| !matches!(s.work, Work::Idle));
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
                    Message::Request(i, r) => {
                        // A completion whose text comes in one piece at its end still says when
                        // its first token was sampled (an empty piece): time to first token.
                        let starts = matches!(&r, Request::Complete { live: None, .. });
                        match self.accept(&mut scheduled[i], r) {
                            Ok(None) => {
                                if starts {
                                    let _ = replies[i].send(Reply::Text(String::new()));
                                }
                            }
                            Ok(Some(reply)) => {
                                scheduled[i].work = Work::Idle;
                                let _ = replies[i].send(reply);
                            }
                            Err(e) => {
                                scheduled[i].work = Work::Idle;
                                let _ = replies[i].send(Reply::Failed(e));
                            }
                        }
                    }
                }
            }
            self.generate_step(&mut scheduled, &replies)?;
            // One prefill chunk per round, taking turns.
            let n = scheduled.len();
            if let Some(i) = (0..n).map(|k| (turn + k) % n).find(|&i| matches!(scheduled[i].work, Work::Prefill { .. }))
            {
                turn = i + 1;
                if let Err(e) = self.prefill_step(&mut scheduled[i], &replies[i]) {
                    scheduled[i].work = Work::Idle;
                    let _ = replies[i].send(Reply::Failed(e));
                }
            }
        }
        Ok(())
    }

    /// Takes a request; returns the reply at once to those that need no more decoding.
    fn accept(&mut self, sched: &mut Scheduled, request: Request) -> Result<Option<Reply>, GenerateError> {
        match request {
            Request::Begin { prefix, seed } => {
                sched.logits.clear();
                // The first sequence to start decodes the prefix and snapshots it; the others
                // restore the snapshot.
                if let Some(index) = sched.seq.begin(&mut self.core, &prefix, seed, true)? {
                    sched.logits.extend_from_slice(self.core.logits(index));
                }
                Ok(Some(Reply::Done(sched.seq.counters)))
            }
            Request::Constrain { grammar } => {
                sched.seq.grammar = grammar.as_ref().map(|g| self.core.grammar_sampler(g)).transpose()?;
                Ok(Some(Reply::Done(sched.seq.counters)))
            }
            Request::Append { tokens } => {
                let needed = sched.seq.tokens.len() + tokens.len();
                if needed > self.core.per_seq() {
                    return Err(GenerateError::ContextFull { needed, capacity: self.core.per_seq() });
                }
                sched.work = Work::Prefill { tokens, done: 0 };
                Ok(None)
            }
            Request::Complete { max_tokens, live } => {
                if sched.logits.is_empty() {
                    return Err(GenerateError::NothingDecoded);
                }
                sched.work = Work::Generate {
                    max: max_tokens,
                    generated: 0,
                    next: LlamaToken(0),
                    text: TextStream::default(),
                    live,
                };
                // A completion can end on its first sample.
                Ok(self.sample_first(sched).map(|c| Reply::Completed(c, sched.seq.counters)))
            }
        }
    }

    /// Decodes the next chunk of a sequence's appended text; replies when all of it is in.
    fn prefill_step(&mut self, sched: &mut Scheduled, reply: &Sender<Reply>) -> Result<(), GenerateError> {
        let Work::Prefill { tokens, done } = &mut sched.work else { return Ok(()) };
        let (tokens, start) = (std::mem::take(tokens), *done);
        let end = (start + self.core.chunk()).min(tokens.len());
        if let Some(index) = sched.seq.decode(&mut self.core, &tokens[start..end], BatchKind::Appended)? {
            sched.logits.clear();
            sched.logits.extend_from_slice(self.core.logits(index));
        }
        if end == tokens.len() {
            sched.work = Work::Idle;
            let _ = reply.send(Reply::Done(sched.seq.counters));
        } else {
            sched.work = Work::Prefill { tokens, done: end };
        }
        Ok(())
    }

    /// Samples a completion's first token from the sequence's saved logits; finishes the
    /// completion at once on a stop token or a limit of 0.
    fn sample_first(&self, sched: &mut Scheduled) -> Option<Completion> {
        let Work::Generate { max, generated, next, text, live } = &mut sched.work else { return None };
        let finish = if *generated >= *max {
            Some(Finish::Length)
        } else {
            let token = sample_from(&mut sched.seq.sampler, sched.seq.grammar.as_mut(), &sched.logits);
            if self.core.is_stop(token) {
                Some(Finish::Stop)
            } else {
                Live::keep(live, text.push(self.core.llama(), token));
                *next = token;
                *generated += 1;
                None
            }
        };
        finish.map(|finish| Completion { text: text.text(), tokens: *generated, finish, ids: text.ids() })
    }

    /// Decodes the pending token of every generating sequence, with its draft if it has one,
    /// in one batch; then checks each sequence's draft and samples its next token.
    fn generate_step(&mut self, scheduled: &mut [Scheduled], replies: &[Sender<Reply>]) -> Result<(), GenerateError> {
        let (members, rows) = self.verify_batch(scheduled, replies)?;
        if members.is_empty() {
            return Ok(());
        }
        self.core.decode_rows(&rows)?;
        let mut replays = Vec::new();
        for Member { slot: i, first, draft } in members {
            if self.take_rows(&mut scheduled[i], first, &rows, draft, &replies[i])? {
                // Rebuilt after every sequence has read its rows: a replay's batch replaces them.
                replays.push(i);
            }
        }
        for i in replays {
            scheduled[i].seq.replay(&mut self.core)?;
        }
        Ok(())
    }

    /// The rows of one generate step: every generating sequence's pending token and its draft.
    /// Returns each member and the rows; a cancelled or full
    /// sequence is answered and left out.
    fn verify_batch(
        &mut self,
        scheduled: &mut [Scheduled],
        replies: &[Sender<Reply>],
    ) -> Result<(Vec<Member>, Vec<Row>), GenerateError> {
        let capacity = self.core.per_seq();
        let (mut members, mut rows) = (Vec::new(), Vec::new());
        for (i, sched) in scheduled.iter_mut().enumerate() {
            let Work::Generate { max, generated, next, ref live, .. } = sched.work else { continue };
            if live.as_ref().is_some_and(|l| l.cancel.load(Ordering::Relaxed)) {
                // The caller gave up: the sequence is free for its worker's next job.
                sched.work = Work::Idle;
                let _ = replies[i].send(Reply::Failed(GenerateError::Cancelled));
                continue;
            }
            let held = sched.seq.tokens.len();
            if held + 1 > capacity {
                // Only this sequence is full; the others go on.
                sched.work = Work::Idle;
                let _ = replies[i].send(Reply::Failed(GenerateError::ContextFull { needed: held + 1, capacity }));
                continue;
            }
            let room = (max - generated).min(capacity - held - 1);
            let draft = sched.seq.propose(&mut self.core, next, room)?;
            let first = rows.len();
            rows.extend(sched.seq.rows(next, draft.as_ref().map_or(&[][..], |d| &d.tokens[..])));
            members.push(Member { slot: i, first, draft });
        }
        Ok((members, rows))
    }

    /// After the generate batch of `rows`: checks one sequence's rows from `first` on, hands its
    /// new text on, and answers its worker when the completion ends. Returns whether the sequence
    /// must be replayed.
    fn take_rows(
        &mut self,
        sched: &mut Scheduled,
        first: usize,
        rows: &[Row],
        draft: Option<Draft>,
        reply: &Sender<Reply>,
    ) -> Result<bool, GenerateError> {
        let Work::Generate { max, generated, .. } = sched.work else { return Ok(false) };
        let own = &rows[first..first + 1 + draft.as_ref().map_or(0, |d| d.tokens.len())];
        let settled = sched.seq.settle(&mut self.core, first, own, draft.as_ref(), max - generated, None)?;
        let checked = settled.checked;
        sched.seq.counters.generated_tokens += 1 + checked.accepted;
        let stop = checked.next.is_some_and(|t| self.core.is_stop(t));
        let kept = &sched.seq.tokens[sched.seq.tokens.len() - checked.accepted..];
        let Work::Generate { generated, next, text, live, .. } = &mut sched.work else { return Ok(settled.replay) };
        for &t in kept {
            Live::keep(live, text.push(self.core.llama(), t));
        }
        *generated += checked.accepted;
        let finish = match checked.next {
            None => Some(Finish::Length),
            Some(_) if stop => Some(Finish::Stop),
            Some(t) => {
                Live::keep(live, text.push(self.core.llama(), t));
                *next = t;
                *generated += 1;
                None
            }
        };
        if finish.is_some() {
            Live::keep(live, text.rest());
        }
        Live::flush(live, reply);
        if let Some(finish) = finish {
            let done = Completion { text: text.text(), tokens: *generated, finish, ids: text.ids() };
            // Kept for a completion asked without appending first (as a lone engine would).
            sched.logits.clear();
            sched.logits.extend_from_slice(self.core.logits(settled.last_row));
            sched.work = Work::Idle;
            let _ = reply.send(Reply::Completed(done, sched.seq.counters));
        }
        Ok(settled.replay)
    }
}

/// A worker's view of its sequence: a [`Generator`] whose decoding happens in the scheduler's
/// shared batches. Generated text reaches `on_text` in one piece when the completion ends,
/// after an empty piece when its first token is sampled (so a caller timing the first text
/// sees when generation began).
pub struct SequenceGenerator<'m> {
    model: &'m Model,
    send: Box<dyn Fn(Request) -> bool + Send + 'm>,
    replies: Receiver<Reply>,
    counters: Counters,
    context_size: usize,
    /// Set by [`Self::set_live`]: text streams, and the flag cancels.
    live: Option<Arc<AtomicBool>>,
}

impl SequenceGenerator<'_> {
    /// Makes this sequence's completions live, until called again with `None`: `on_text`
    /// receives text as it is generated (not in one piece at the end), and once `cancel` is set
    /// every call fails with [`GenerateError::Cancelled`] and a completion under way stops at
    /// the next step, freeing the sequence.
    pub fn set_live(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.live = cancel;
    }

    fn cancelled(&self) -> Result<(), GenerateError> {
        crate::generate::check_cancel(self.live.as_deref())
    }

    fn ask(&mut self, request: Request) -> Result<Reply, GenerateError> {
        if !(self.send)(request) {
            return Err(GenerateError::SchedulerStopped);
        }
        self.next_reply()
    }

    fn next_reply(&mut self) -> Result<Reply, GenerateError> {
        match self.replies.recv() {
            Ok(Reply::Failed(e)) => Err(e),
            Ok(r) => Ok(r),
            Err(_) => Err(GenerateError::SchedulerStopped),
        }
    }

    fn keep(&mut self, counters: Counters) {
        let (prefill, generate) = (self.counters.prefill_seconds, self.counters.generate_seconds);
        self.counters = Counters { prefill_seconds: prefill, generate_seconds: generate, ..counters };
    }
}

impl Generator for SequenceGenerator<'_> {
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError> {
        self.cancelled()?;
        self.counters = Counters::default();
        let started = Instant::now();
        if let Reply::Done(c) = self.ask(Request::Begin { prefix: prefix.clone(), seed })? {
            self.keep(c);
        }
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        self.cancelled()?;
        let tokens = self.model.tokenize_markup(text, self.counters.context_tokens == 0);
        check_budget(self.counters.context_tokens, tokens.len(), max_tokens)?;
        let started = Instant::now();
        if let Reply::Done(c) = self.ask(Request::Append { tokens })? {
            self.keep(c);
        }
        self.counters.prefill_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        self.cancelled()?;
        let started = Instant::now();
        let live = self.live.clone().map(|cancel| Live { cancel, unsent: String::new() });
        let streamed = live.is_some();
        let mut reply = self.ask(Request::Complete { max_tokens, live })?;
        // A live completion's text comes in pieces before it ends.
        while let Reply::Text(piece) = reply {
            on_text(&piece);
            reply = self.next_reply()?;
        }
        self.counters.generate_seconds += started.elapsed().as_secs_f64();
        match reply {
            Reply::Completed(c, counters) => {
                self.keep(counters);
                if !streamed {
                    on_text(&c.text);
                }
                Ok(c)
            }
            _ => Err(GenerateError::UnexpectedReply),
        }
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn context_size(&self) -> usize {
        self.context_size
    }

    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        self.cancelled()?;
        self.ask(Request::Constrain { grammar: grammar.cloned() })?;
        Ok(())
    }
}
