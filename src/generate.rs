//! The generation trait the agent drives: a growing token sequence that text is appended to and
//! completions are sampled from.
//!
//! The llama.cpp engine implements it; so does the scripted test double
//! ([`ScriptedGenerator`]), and so does the remote backend ([`crate::remote`]). The trait speaks text so that its users
//! need no tokenizer; implementations keep the sequence as tokens and never re-tokenize what was
//! sampled.

use crate::speculate::SpecCounts;

/// Why a completion stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The model produced an end-of-turn or end-of-text token (not part of the text).
    Stop,
    /// The token limit given to [`Generator::complete`] was reached.
    Length,
}

/// One sampled completion.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The generated text, without the stop token.
    pub text: String,
    /// Tokens generated, without the stop token.
    pub tokens: usize,
    /// Why generation stopped.
    pub finish: Finish,
    /// The generated token ids, in order (empty where a generator has no vocabulary: the
    /// scripted double). What teacher-forced measures replay ([`crate::divergence`]).
    pub ids: Vec<u32>,
}

/// Where a conversation's shared prefix (the system turn) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrefixSource {
    /// Decoded for this conversation.
    Decoded,
    /// Restored from the snapshot this process took when it first decoded it.
    Memory,
    /// Restored from the prompt cache on disk, written by an earlier process.
    Disk,
}

/// Token and time counts of one conversation, for traces and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Tokens in the sequence now (the context length of the conversation).
    pub context_tokens: usize,
    /// Tokens run through the model in this conversation (prompt reuse excluded).
    pub decoded_tokens: usize,
    /// Tokens that came from a reused prefix instead of being decoded.
    pub reused_tokens: usize,
    /// Where the shared prefix came from (left out by generators that do not say: a server,
    /// the scripted double).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_source: Option<PrefixSource>,
    /// Tokens sampled.
    pub generated_tokens: usize,
    /// Seconds spent decoding appended text (prefill).
    pub prefill_seconds: f64,
    /// Seconds spent sampling and decoding generated tokens.
    pub generate_seconds: f64,
    /// What speculative decoding drafted and kept (left out when nothing was drafted).
    #[serde(default, skip_serializing_if = "SpecCounts::is_empty")]
    pub speculation: SpecCounts,
}

/// What a server's prefix cache did for one completion request (a remote generator's own
/// counters; the in-process engine decodes each token once and reports none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TurnCache {
    /// Tokens in the request's prompt (the whole conversation so far).
    pub prompt: usize,
    /// Of them, taken from the server's cache (llama-server `cache_n`, vLLM `cached_tokens`),
    /// when the server says.
    pub cached: Option<usize>,
    /// Of them, decoded for this request (llama-server `prompt_n`), when the server says.
    pub decoded: Option<usize>,
}

/// One stretch of [`Markup`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Span {
    /// Trusted text whose special-token strings (`<|im_start|>`, `<|im_end|>`) are read as the
    /// special tokens they name: the chat template's markers, and the operator's own prompt
    /// (the system prompt and the user template).
    Parsed(String),
    /// Text read as plain text whatever it holds: a `<|im_end|>` in it is ten characters, never
    /// the end of a turn. Everything from outside: the question, the evidence, tool results,
    /// the budget line.
    Plain(String),
}

/// A piece of [`Markup`] as a tokenizer takes it ([`Markup::fragments`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragment<'a> {
    /// Text to tokenize with special-token parsing off.
    Text(String),
    /// One special token found in parsed text, to tokenize with parsing on.
    Special(&'a str),
}

impl Span {
    /// The span's text.
    pub fn text(&self) -> &str {
        match self {
            Span::Parsed(t) | Span::Plain(t) => t,
        }
    }
}

/// Text for a generator, with the template's special-token markers told apart from the text
/// between them, so that a question or a database cell holding `<|im_end|>` cannot close a turn
/// and forge the next one.
///
/// A generator cuts the markup into [`Markup::fragments`]: the special tokens found in parsed
/// text, and the text between them, plain and parsed alike, tokenized with special-token
/// parsing off, as llama.cpp's own chat code does. llama.cpp tokenizes a whole text with parsing
/// on the same way (cut at its special tokens, each piece between alone), so for ordinary text
/// (no special-token strings in the plain spans) the tokens are exactly the whole text's.
///
/// Serialised as its list of spans; a plain string reads as one [`Span::Parsed`] (how text was
/// recorded before spans were told apart, and what it meant then).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Markup {
    spans: Vec<Span>,
}

impl Markup {
    /// Empty markup.
    pub fn new() -> Self {
        Markup::default()
    }

    /// `text` with special-token parsing on, whole: for trusted text only (a benchmark's filler,
    /// a test's literal turn).
    pub fn parsed(text: impl Into<String>) -> Self {
        Markup::new().special(text)
    }

    /// Appends a template marker (or any trusted text) with special-token parsing on.
    pub fn special(mut self, marker: impl Into<String>) -> Self {
        self.push(Span::Parsed(marker.into()));
        self
    }

    /// Appends text read as plain text, joined to plain text just before it.
    pub fn plain(mut self, text: impl AsRef<str>) -> Self {
        self.push(Span::Plain(text.as_ref().to_string()));
        self
    }

    /// Appends `other`'s spans.
    pub fn then(mut self, other: Markup) -> Self {
        for span in other.spans {
            self.push(span);
        }
        self
    }

    fn push(&mut self, span: Span) {
        if span.text().is_empty() {
            return;
        }
        match (self.spans.last_mut(), span) {
            (Some(Span::Plain(last)), Span::Plain(more)) => last.push_str(&more),
            (Some(Span::Parsed(last)), Span::Parsed(more)) => last.push_str(&more),
            (_, span) => self.spans.push(span),
        }
    }

    /// The spans, in order.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The whole text, as the model reads it.
    pub fn render(&self) -> String {
        self.spans.iter().map(Span::text).collect()
    }

    /// Whether there is no text.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The markup cut for a tokenizer: `find_special(text)` gives the byte range of the first
    /// special token in `text`, if any. Parsed spans are cut at their special tokens; all other
    /// text, across span boundaries, is joined into [`Fragment::Text`] pieces between them.
    pub fn fragments<'a>(&'a self, find_special: &dyn Fn(&str) -> Option<(usize, usize)>) -> Vec<Fragment<'a>> {
        let mut out = Vec::new();
        let mut text = String::new();
        for span in &self.spans {
            match span {
                Span::Plain(t) => text.push_str(t),
                Span::Parsed(t) => {
                    let mut rest = t.as_str();
                    while let Some((start, end)) = find_special(rest).filter(|&(s, e)| s < e && e <= rest.len()) {
                        text.push_str(&rest[..start]);
                        if !text.is_empty() {
                            out.push(Fragment::Text(std::mem::take(&mut text)));
                        }
                        out.push(Fragment::Special(&rest[start..end]));
                        rest = &rest[end..];
                    }
                    text.push_str(rest);
                }
            }
        }
        if !text.is_empty() {
            out.push(Fragment::Text(text));
        }
        out
    }

    /// SHA-256 (hex) of the spans and their kinds: two markups with the same digest tokenize
    /// alike (the same text with a marker read as plain text does not).
    pub fn digest(&self) -> String {
        let mut bytes = Vec::new();
        for span in &self.spans {
            bytes.push(matches!(span, Span::Parsed(_)) as u8);
            bytes.extend_from_slice(&(span.text().len() as u64).to_le_bytes());
            bytes.extend_from_slice(span.text().as_bytes());
        }
        crate::hash::sha256_hex(bytes)
    }
}

/// The byte range of the first of `tokens` in `text` (the longest where two start together):
/// how a tokenizer that knows its special tokens' texts finds them for [`Markup::fragments`].
pub fn find_first_of(text: &str, tokens: &[String]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for t in tokens.iter().filter(|t| !t.is_empty()) {
        if let Some(i) = text.find(t.as_str()) {
            let better = match best {
                None => true,
                Some((s, e)) => i < s || (i == s && i + t.len() > e),
            };
            if better {
                best = Some((i, i + t.len()));
            }
        }
    }
    best
}

impl<'de> serde::Deserialize<'de> for Markup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Whole(String),
            Spans(Vec<Span>),
        }
        Ok(match Repr::deserialize(d)? {
            Repr::Whole(text) => Markup::parsed(text),
            Repr::Spans(spans) => spans.into_iter().fold(Markup::new(), |mut m, s| {
                m.push(s);
                m
            }),
        })
    }
}

impl std::fmt::Display for Markup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.spans.iter().try_for_each(|s| f.write_str(s.text()))
    }
}

/// Errors from a generator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// Appending would overflow the context window.
    #[error("context full: {needed} tokens needed, {capacity} available")]
    ContextFull {
        /// Tokens the sequence would hold.
        needed: usize,
        /// The context size.
        capacity: usize,
    },
    /// Appending would exceed the caller's token budget; nothing was appended.
    #[error("over budget: {needed} tokens needed, {limit} allowed")]
    OverBudget {
        /// Tokens the sequence would hold.
        needed: usize,
        /// The limit given.
        limit: usize,
    },
    /// The caller cancelled the episode (a client went away, a time limit passed).
    #[error("cancelled")]
    Cancelled,
    /// A completion was asked before anything was decoded: there are no logits to sample from.
    #[error("nothing decoded to sample from: begin and append text before completing")]
    NothingDecoded,
    /// The batched engine's scheduler has stopped (an earlier failure ended it): no sequence of
    /// its context can go on.
    #[error("the scheduler stopped")]
    SchedulerStopped,
    /// The batched engine's scheduler answered a request with a reply of another kind (a bug).
    #[error("the scheduler answered a completion with another reply")]
    UnexpectedReply,
    /// The prompt snapshot to restore was taken on a context of another kind (a bug).
    #[error("the prompt snapshot was taken on another context")]
    SnapshotOnAnotherContext,
    /// A decode failed because a test asked for it (`SQALE_FAIL_DECODE_AFTER`).
    #[error("decode failed: injected after {batches} batches (SQALE_FAIL_DECODE_AFTER)")]
    InjectedDecodeFailure {
        /// The batches decoded before the failure.
        batches: usize,
    },
    /// Teacher forcing was given a mark for each of `marks` tokens, but `tokens` tokens.
    #[error("decode_scored: {marks} marks for {tokens} tokens")]
    ScoredMarks {
        /// Marks given.
        marks: usize,
        /// Tokens given.
        tokens: usize,
    },
    /// A scripted generator was asked for more completions than its script holds.
    #[error("the scripted generator ran out of completions")]
    ScriptExhausted,
    /// Constrained calls were asked of a generator that can't hold a completion to a grammar.
    #[error("{0} can't hold a completion to a grammar; run the episode with free calls, or on a backend that takes a grammar (llama.cpp, in process or as llama-server)")]
    NoGrammar(String),
    /// An operation of the backend's library failed.
    #[error("{what} failed: {source}")]
    Failed {
        /// What was being done, e.g. `decode`.
        what: &'static str,
        /// The library's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl GenerateError {
    /// Whether the engine under the generator failed (llama.cpp, a server, or the scheduler that
    /// drives them), rather than the caller's request: a service restarts its engine on these.
    pub fn is_engine_failure(&self) -> bool {
        matches!(
            self,
            GenerateError::Failed { .. }
                | GenerateError::SchedulerStopped
                | GenerateError::UnexpectedReply
                | GenerateError::SnapshotOnAnotherContext
                | GenerateError::InjectedDecodeFailure { .. }
        )
    }
}

/// [`GenerateError::Cancelled`] once the flag `cancel` is set (never without a flag): how every
/// cancellable generator reads its flag.
pub fn check_cancel(cancel: Option<&std::sync::atomic::AtomicBool>) -> Result<(), GenerateError> {
    match cancel {
        Some(c) if c.load(std::sync::atomic::Ordering::Relaxed) => Err(GenerateError::Cancelled),
        _ => Ok(()),
    }
}

/// A conversation as one growing token sequence.
pub trait Generator {
    /// Starts a new conversation whose text begins with `prefix`. The same prefix is passed to
    /// every conversation, so implementations may decode it once and reuse it. Its special-token markers are read as special tokens, the rest as plain text
    /// ([`Markup`]).
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError>;

    /// Appends text, its special-token markers read as special tokens and the rest as plain text
    /// ([`Markup`]), unless the sequence would then hold more than `max_tokens` tokens: then
    /// nothing is appended and the error is [`GenerateError::OverBudget`].
    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError>;

    /// [`Generator::begin_markup`] with trusted text: every special-token string in `prefix`
    /// is read as a special token. Never for text that holds a question, a database's values
    /// or anything else from outside.
    fn begin(&mut self, prefix: &str, seed: u32) -> Result<(), GenerateError> {
        self.begin_markup(&Markup::parsed(prefix), seed)
    }

    /// [`Generator::append_markup`] with trusted text: every special-token string in `text` is
    /// read as a special token. Never for text that holds a question, a database's values or
    /// anything else from outside.
    fn append(&mut self, text: &str, max_tokens: usize) -> Result<(), GenerateError> {
        self.append_markup(&Markup::parsed(text), max_tokens)
    }

    /// Samples until an end-of-generation token or `max_tokens` tokens; the sampled tokens
    /// become part of the sequence, the stop token does not. `on_text` receives the text as it
    /// is generated (whole UTF-8 characters only).
    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError>;

    /// The conversation's counters so far.
    fn counters(&self) -> Counters;

    /// The context window, in tokens.
    fn context_size(&self) -> usize;

    /// What a server's cache did for the last completion; `None` for generators without one.
    fn last_cache(&self) -> Option<TurnCache> {
        None
    }

    /// Holds the completions that follow to `grammar` (`None`: free again). A generator that
    /// can't refuses with [`GenerateError::NoGrammar`] (a `None` is always taken).
    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        match grammar {
            None => Ok(()),
            Some(_) => Err(GenerateError::NoGrammar("this generator".into())),
        }
    }
}

/// A test double: replays given completions in order, whatever was appended.
///
/// Tokens are counted as whitespace-separated words, so budgets behave like the real thing in
/// proportion. Used to drive the agent's state machine through every path without a model.
#[derive(Debug, Clone)]
pub struct ScriptedGenerator {
    script: std::collections::VecDeque<String>,
    transcript: String,
    /// The conversation as appended (`false`) and generated (`true`) pieces.
    segments: Vec<(String, bool)>,
    counters: Counters,
    context_size: usize,
}

impl ScriptedGenerator {
    /// A generator that answers with `completions`, one per [`Generator::complete`] call.
    pub fn new<S: Into<String>>(completions: impl IntoIterator<Item = S>) -> Self {
        ScriptedGenerator {
            script: completions.into_iter().map(Into::into).collect(),
            transcript: String::new(),
            segments: Vec::new(),
            counters: Counters::default(),
            context_size: crate::defaults::CONTEXT_TOKENS as usize,
        }
    }

    /// Sets the context window (in words).
    pub fn with_context_size(mut self, n: usize) -> Self {
        self.context_size = n;
        self
    }

    /// Everything appended and generated so far, as one string.
    pub fn transcript(&self) -> &str {
        &self.transcript
    }

    /// The conversation as `(text, generated)` pieces, in order.
    pub fn segments(&self) -> &[(String, bool)] {
        &self.segments
    }

    /// Completions not yet replayed.
    pub fn remaining(&self) -> usize {
        self.script.len()
    }

    fn push(&mut self, text: &str, limit: usize) -> Result<(), GenerateError> {
        let n = words(text);
        let needed = self.counters.context_tokens + n;
        if needed > limit {
            return Err(GenerateError::OverBudget { needed, limit });
        }
        if needed > self.context_size {
            return Err(GenerateError::ContextFull { needed, capacity: self.context_size });
        }
        self.transcript.push_str(text);
        self.segments.push((text.to_string(), false));
        self.counters.context_tokens = needed;
        self.counters.decoded_tokens += n;
        Ok(())
    }
}

impl Generator for ScriptedGenerator {
    fn begin_markup(&mut self, prefix: &Markup, _seed: u32) -> Result<(), GenerateError> {
        self.transcript.clear();
        self.segments.clear();
        self.counters = Counters::default();
        self.push(&prefix.render(), usize::MAX)
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        self.push(&text.render(), max_tokens)
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        let text = self.script.pop_front().ok_or(GenerateError::ScriptExhausted)?;
        let pieces: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
        let (text, finish) = if pieces.len() > max_tokens {
            (pieces[..max_tokens].concat(), Finish::Length)
        } else {
            (text.clone(), Finish::Stop)
        };
        let tokens = words(&text);
        on_text(&text);
        self.transcript.push_str(&text);
        self.segments.push((text.clone(), true));
        self.counters.context_tokens += tokens;
        self.counters.generated_tokens += tokens;
        Ok(Completion { text, tokens, finish, ids: Vec::new() })
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn context_size(&self) -> usize {
        self.context_size
    }
}

/// The scripted generator's token count: whitespace-separated words.
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// A borrowed generator is a generator: an agent can drive one it does not own.
impl<G: Generator + ?Sized> Generator for &mut G {
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError> {
        (**self).begin_markup(prefix, seed)
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        (**self).append_markup(text, max_tokens)
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        (**self).complete(max_tokens, on_text)
    }

    fn counters(&self) -> Counters {
        (**self).counters()
    }

    fn context_size(&self) -> usize {
        (**self).context_size()
    }

    fn last_cache(&self) -> Option<TurnCache> {
        (**self).last_cache()
    }

    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        (**self).constrain(grammar)
    }
}
