//! The agent: runs one episode of the SQaLe protocol over a [`Generator`] and an
//! [`Environment`].
//!
//! An episode is one growing conversation. The agent appends the system and user turns, samples
//! a completion, runs every tool call in it in order, appends the results as the next user turn
//! with the remaining budget, and repeats until `submit_sql`, or until the exploration limit
//! (six tool turns, or four failed `run_query` calls in a row) has been announced and the next
//! answer taken as final. A final answer that is empty or does not run falls back to the last
//! query that ran without error. See `PROTOCOL.md`.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::defaults;
use crate::env::{EnvError, Environment, Limits};
use crate::generate::{Counters, Finish, GenerateError, Generator, TurnCache};
use crate::prompt::{self, LimitReason, Prompt, PromptError};
use crate::protocol::{self, Calls, Parsed};
use crate::tools::Tool;

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// The model called `submit_sql` during exploration.
    SubmitSql,
    /// The answer after the exploration limit held SQL that ran.
    FinalTurn,
    /// The final answer was empty or did not run; the last query that ran was used.
    FallbackToLastWorkingQuery,
    /// The final answer's SQL did not run and no earlier query had run: it is kept as the answer.
    FinalAnswerFailed,
    /// No SQL in the final answer and none that ever ran.
    NoAnswer,
    /// The episode's token budget ran out; the answer is the last query that ran, if any.
    TokenBudget,
    /// The context window would have overflowed; the answer is the last query that ran, if any.
    ContextFull,
}

impl EndedBy {
    /// The snake_case name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            EndedBy::SubmitSql => "submit_sql",
            EndedBy::FinalTurn => "final_turn",
            EndedBy::FallbackToLastWorkingQuery => "fallback_to_last_working_query",
            EndedBy::FinalAnswerFailed => "final_answer_failed",
            EndedBy::NoAnswer => "no_answer",
            EndedBy::TokenBudget => "token_budget",
            EndedBy::ContextFull => "context_full",
        }
    }
}

impl std::fmt::Display for EndedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an agent runs with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// System prompt and user template.
    pub prompt: Prompt,
    /// Tokens the whole conversation may hold, system prompt included.
    pub max_episode_tokens: usize,
    /// Tool turns before the final answer.
    pub tool_turns: usize,
    /// Consecutive failed `run_query` calls that end exploration.
    pub max_failed_queries: usize,
    /// Sampling seed of the episode (the same seed replays the same episode).
    pub seed: u32,
    /// Bounds on each tool call.
    pub limits: Limits,
    /// How tool calls are written: free, as in training, or held to the catalogue's grammar
    /// (docs/constrained-calls.md).
    pub calls: Calls,
    /// Characters of thought a turn held by the whole-turn grammar may hold before it must
    /// close the thought and call.
    pub thought_chars: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            prompt: Prompt::default(),
            max_episode_tokens: defaults::MAX_EPISODE_TOKENS,
            tool_turns: defaults::TOOL_TURNS,
            max_failed_queries: defaults::MAX_FAILED_QUERIES_IN_A_ROW,
            seed: 0,
            limits: Limits::default(),
            calls: Calls::Free,
            thought_chars: defaults::THOUGHT_CHARS,
        }
    }
}

/// The prompt episodes run with: the reference loop `given` (its `SYSTEM_PROMPT` and
/// `USER_TEMPLATE`), else the reference loop that came with a pulled model (it carries the
/// training prompt), else the built-in prompt.
pub fn choose_prompt(given: Option<&Path>, pulled: Option<&Path>) -> Result<Prompt, PromptError> {
    match given.or(pulled) {
        Some(p) => Prompt::from_python_file(p),
        None => Ok(Prompt::default()),
    }
}

/// A sampling seed for an episode that was given none: drawn from the clock and the process's
/// random hash keys, so that two calls differ.
pub fn random_seed() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    h.write_u128(now);
    h.finish() as u32
}

/// One tool call and what it returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The tool named (empty for a call that could not be parsed).
    pub tool: String,
    /// The arguments as written.
    pub args: Value,
    /// Whether the call succeeded.
    pub ok: bool,
    /// What the model was shown.
    pub result: String,
}

/// One assistant turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// 1-based turn number.
    pub index: usize,
    /// True for the answer taken after the exploration limit.
    pub final_turn: bool,
    /// The completion as generated.
    pub completion: String,
    /// Tokens generated.
    pub tokens: usize,
    /// Why generation stopped.
    pub finish: Finish,
    /// The calls run, in order.
    pub calls: Vec<CallRecord>,
    /// Wall-clock seconds for generating and running the turn.
    pub seconds: f64,
    /// What the inference server's cache did for this turn's request (remote generators only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cache: Option<TurnCache>,
}

/// Where an episode's answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SqlSource {
    /// A `submit_sql` call.
    Submit,
    /// The final answer.
    FinalAnswer,
    /// The last `run_query` that ran without error.
    LastWorkingQuery,
}

/// A finished episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// The question.
    pub question: String,
    /// Evidence given with the question, if any.
    pub evidence: Option<String>,
    /// The database file.
    pub db: String,
    /// The answer, if there is one.
    pub sql: Option<String>,
    /// Where the answer came from.
    pub sql_source: Option<SqlSource>,
    /// How the episode ended.
    pub ended_by: EndedBy,
    /// Tool turns taken (the final answer is not a tool turn).
    pub tool_turns: usize,
    /// Tool calls run.
    pub tool_calls: usize,
    /// Tables the model opened: named by a tool call that succeeded, or read by a query that ran.
    pub tables_opened: Vec<String>,
    /// Every assistant turn.
    pub turns: Vec<Turn>,
    /// Token and time counters of the conversation.
    pub tokens: Counters,
    /// The sampling seed.
    pub seed: u32,
    /// SHA-256 of the prompt pair.
    pub prompt_hash: String,
    /// Where the prompt came from (`builtin` or a file).
    pub prompt_source: String,
    /// Wall-clock seconds of the whole episode.
    pub seconds: f64,
    /// Seconds from the episode's start (the prompt not yet decoded) to its first generated
    /// text: time to first token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_seconds: Option<f64>,
    /// Tokens of the prompt (system turn, tools, schema and question) when the first turn
    /// began: they count against the episode's token budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<usize>,
}

/// Why an episode could not run at all. Anything the model does is part of the episode instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The database could not be opened.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// The prompt could not be rendered.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The generator failed (not a full context, which ends the episode cleanly).
    #[error(transparent)]
    Generate(GenerateError),
    /// The system prompt and question alone do not fit the budget.
    #[error("the prompt alone needs {needed} tokens, more than the episode budget of {budget}")]
    PromptTooLong {
        /// Tokens needed.
        needed: usize,
        /// The budget.
        budget: usize,
    },
}

/// Something that happened during an episode, for live traces.
#[derive(Debug)]
pub enum Event<'a> {
    /// A turn begins.
    TurnStart {
        /// 1-based turn number.
        index: usize,
        /// True for the final answer.
        final_turn: bool,
    },
    /// Generated text, as it arrives.
    Text(&'a str),
    /// A completion ended.
    TurnEnd {
        /// Tokens generated.
        tokens: usize,
    },
    /// A tool call ran.
    Call(&'a CallRecord),
    /// The results went back with this many tool turns left.
    Budget {
        /// Tool turns left.
        turns_left: usize,
        /// Set when exploration just ended.
        limit: Option<LimitReason>,
        /// Tokens in the conversation.
        context_tokens: usize,
    },
}

/// An agent: a generator plus settings. One agent runs many episodes, one after another.
pub struct Agent<G: Generator> {
    generator: G,
    settings: Settings,
}

impl<G: Generator> Agent<G> {
    /// An agent over `generator` (an engine, or a test double).
    pub fn new(generator: G, settings: Settings) -> Self {
        Agent { generator, settings }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Mutable settings (e.g. a new seed per episode).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// The generator.
    pub fn generator(&self) -> &G {
        &self.generator
    }

    /// Mutable access to the generator.
    pub fn generator_mut(&mut self) -> &mut G {
        &mut self.generator
    }

    /// Answers `question` over the database at `db`.
    pub fn run(&mut self, question: &str, db: impl AsRef<Path>) -> Result<Episode, AgentError> {
        self.run_with(question, None, db.as_ref(), &mut |_| {})
    }

    /// Answers `question` (with optional `evidence`) over `db`, reporting events as they happen.
    ///
    /// The loop, top to bottom: [`Self::start`] opens the database and decodes the prompt; then
    /// each turn checks the budget, generates a completion, and is either the final answer
    /// ([`Self::final_answer`]) or a tool turn ([`Self::tool_turn`]), whose results go back to
    /// the model ([`Self::send_results`]); [`Self::finish`] settles the answer.
    pub fn run_with(
        &mut self,
        question: &str,
        evidence: Option<&str>,
        db: &Path,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Episode, AgentError> {
        let mut state = self.start(question, evidence, db)?;
        let ended = loop {
            let final_turn = state.exploration_over;
            on_event(Event::TurnStart { index: state.episode.turns.len() + 1, final_turn });
            let Some(room) = self.room() else { break self.out_of_room() };
            let turn_start = Instant::now();
            if self.settings.calls.constrained() {
                let grammar = self.settings.calls.grammar(final_turn, self.settings.thought_chars);
                self.generator.constrain(grammar.as_ref()).map_err(AgentError::Generate)?;
            }
            let used = self.generator.counters().context_tokens;
            let (started, first) = (state.started, &mut state.episode.first_token_seconds);
            let completion = match self.generator.complete(room, &mut |t| {
                first.get_or_insert_with(|| started.elapsed().as_secs_f64());
                on_event(Event::Text(t))
            }) {
                Ok(c) => c,
                // A server whose context is smaller than it said refuses the request.
                Err(GenerateError::ContextFull { .. }) => break Some(EndedBy::ContextFull),
                Err(e) => return Err(AgentError::Generate(e)),
            };
            on_event(Event::TurnEnd { tokens: completion.tokens });
            let turn = Turn {
                index: state.episode.turns.len() + 1,
                final_turn,
                completion: completion.text,
                tokens: completion.tokens,
                finish: completion.finish,
                calls: Vec::new(),
                seconds: 0.0,
                server_cache: self.generator.last_cache(),
            };
            if final_turn {
                state.final_answer(turn, turn_start);
                break None;
            }
            if turn.finish == Finish::Length {
                let budget_spent = used + turn.tokens >= self.settings.max_episode_tokens;
                state.push(turn, turn_start);
                break Some(if budget_spent { EndedBy::TokenBudget } else { EndedBy::ContextFull });
            }
            let results = state.tool_turn(turn, turn_start, on_event);
            if let Some(sql) = state.submitted.take() {
                state.episode.sql = Some(sql);
                state.episode.sql_source = Some(SqlSource::Submit);
                break Some(EndedBy::SubmitSql);
            }
            if let Some(ended) = self.send_results(&mut state, &results, on_event)? {
                break Some(ended);
            }
        };
        Ok(self.finish(state, ended))
    }

    /// Opens the database, renders the prompt and decodes it (the system turn from the
    /// generator's snapshot where it has one).
    fn start(&mut self, question: &str, evidence: Option<&str>, db: &Path) -> Result<EpisodeState, AgentError> {
        let started = Instant::now();
        let s = &self.settings;
        let env = Environment::with_limits(db, s.limits.clone())?;
        let user = s.prompt.user_turn(question, evidence)?;
        let budget = s.max_episode_tokens;
        let gen = &mut self.generator;
        gen.begin_markup(&s.prompt.shared_prefix(), s.seed).map_err(AgentError::Generate)?;
        match gen.append_markup(&s.prompt.first_turn(&user), budget) {
            Ok(()) => {}
            Err(GenerateError::OverBudget { needed, .. } | GenerateError::ContextFull { needed, .. }) => {
                return Err(AgentError::PromptTooLong { needed, budget: budget.min(gen.context_size()) })
            }
            Err(e) => return Err(AgentError::Generate(e)),
        }
        Ok(EpisodeState {
            episode: Episode {
                question: question.to_string(),
                evidence: evidence.map(str::to_string),
                db: db.display().to_string(),
                sql: None,
                sql_source: None,
                ended_by: EndedBy::NoAnswer,
                tool_turns: 0,
                tool_calls: 0,
                tables_opened: Vec::new(),
                turns: Vec::new(),
                tokens: Counters::default(),
                seed: s.seed,
                prompt_hash: s.prompt.hash(),
                prompt_source: s.prompt.source.clone(),
                seconds: 0.0,
                first_token_seconds: None,
                prompt_tokens: Some(gen.counters().context_tokens),
            },
            env,
            started,
            last_working: None,
            failed_in_a_row: 0,
            exploration_over: false,
            submitted: None,
        })
    }

    /// Tokens the next completion may take: what is left of the episode budget and of the
    /// context, `None` when nothing is.
    fn room(&self) -> Option<usize> {
        let limit = self.settings.max_episode_tokens.min(self.generator.context_size());
        Some(limit.saturating_sub(self.generator.counters().context_tokens)).filter(|&n| n > 0)
    }

    /// How an episode with no room left ended: by its budget, or by the context if that is
    /// the smaller.
    fn out_of_room(&self) -> Option<EndedBy> {
        Some(if self.settings.max_episode_tokens <= self.generator.context_size() {
            EndedBy::TokenBudget
        } else {
            EndedBy::ContextFull
        })
    }

    /// Sends a tool turn's results back with the budget left, or the exploration-limit message
    /// when this turn used the last tool turn or failed one query too many; returns how the
    /// episode ended if the results do not fit.
    fn send_results(
        &mut self,
        state: &mut EpisodeState,
        results: &[(String, String)],
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Option<EndedBy>, AgentError> {
        let s = &self.settings;
        let limit = if state.failed_in_a_row >= s.max_failed_queries {
            Some(LimitReason::FailedQueries(s.max_failed_queries))
        } else if state.episode.tool_turns >= s.tool_turns {
            Some(LimitReason::TurnsUsed)
        } else {
            None
        };
        let turns_left = s.tool_turns.saturating_sub(state.episode.tool_turns);
        let text = prompt::tool_result_turn(results, turns_left, limit);
        // Leave room for at least one generated token after the results.
        match self.generator.append_markup(&text, s.max_episode_tokens.saturating_sub(1)) {
            Ok(()) => {}
            Err(GenerateError::OverBudget { .. }) => return Ok(Some(EndedBy::TokenBudget)),
            Err(GenerateError::ContextFull { .. }) => return Ok(Some(EndedBy::ContextFull)),
            Err(e) => return Err(AgentError::Generate(e)),
        }
        on_event(Event::Budget { turns_left, limit, context_tokens: self.generator.counters().context_tokens });
        state.exploration_over = limit.is_some();
        Ok(None)
    }

    /// Settles how the episode ended: `None` after a final answer (which set it); out of room,
    /// the answer is the last query that ran.
    fn finish(&self, state: EpisodeState, ended: Option<EndedBy>) -> Episode {
        let EpisodeState { mut episode, env, started, last_working, .. } = state;
        if let Some(ended) = ended {
            episode.ended_by = ended;
            if ended != EndedBy::SubmitSql {
                if let Some(sql) = last_working {
                    episode.sql = Some(sql);
                    episode.sql_source = Some(SqlSource::LastWorkingQuery);
                }
            }
        }
        episode.tokens = self.generator.counters();
        episode.tables_opened = env.opened_tables();
        episode.seconds = started.elapsed().as_secs_f64();
        episode
    }
}

/// What crosses the turns of one episode.
struct EpisodeState {
    /// The record being built.
    episode: Episode,
    /// The database, open for this episode.
    env: Environment,
    /// When the episode started.
    started: Instant,
    /// The last `run_query` SQL that ran without error: the fallback answer.
    last_working: Option<String>,
    /// `run_query` calls failed since the last that ran.
    failed_in_a_row: usize,
    /// Set once the exploration-limit message went out: the next answer is final.
    exploration_over: bool,
    /// The SQL of a `submit_sql` call in the last tool turn.
    submitted: Option<String>,
}

impl EpisodeState {
    /// Records a finished turn.
    fn push(&mut self, mut turn: Turn, started: Instant) {
        turn.seconds = started.elapsed().as_secs_f64();
        self.episode.turns.push(turn);
    }

    /// The answer after the exploration limit: its SQL if it runs, else the last query that
    /// ran, else its SQL as it is, else none.
    fn final_answer(&mut self, turn: Turn, started: Instant) {
        let parsed = protocol::parse_completion(&turn.completion);
        let answer = protocol::final_answer_sql(&parsed);
        let runs = answer.as_deref().map(|sql| self.env.check(sql).is_ok());
        let (sql, source, ended) = match (answer, runs, &self.last_working) {
            (Some(sql), Some(true), _) => (Some(sql), SqlSource::FinalAnswer, EndedBy::FinalTurn),
            (_, _, Some(prev)) => {
                (Some(prev.clone()), SqlSource::LastWorkingQuery, EndedBy::FallbackToLastWorkingQuery)
            }
            (Some(sql), _, None) => (Some(sql), SqlSource::FinalAnswer, EndedBy::FinalAnswerFailed),
            (None, _, None) => (None, SqlSource::FinalAnswer, EndedBy::NoAnswer),
        };
        self.episode.sql_source = sql.as_ref().map(|_| source);
        self.episode.sql = sql;
        self.episode.ended_by = ended;
        self.push(turn, started);
    }

    /// Runs every call of a tool turn in order (a `submit_sql` ends the turn) and returns the
    /// results to send back, labelled by call.
    fn tool_turn(
        &mut self,
        mut turn: Turn,
        started: Instant,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Vec<(String, String)> {
        self.episode.tool_turns += 1;
        let parsed = protocol::parse_completion(&turn.completion);
        let mut results = Vec::new();
        for item in &parsed.items {
            let record = self.call(item);
            on_event(Event::Call(&record));
            results.push((prompt::call_label(&record.tool, &record.args), record.result.clone()));
            turn.calls.push(record);
            if self.submitted.is_some() {
                break;
            }
        }
        if results.is_empty() {
            let note = CallRecord { tool: String::new(), args: Value::Null, ok: false, result: prompt::no_tool_call() };
            on_event(Event::Call(&note));
            results.push(("none".to_string(), note.result));
        }
        self.push(turn, started);
        results
    }

    /// Runs one call (or records why it could not be read), keeping count of failed queries,
    /// the last query that ran and a submitted answer.
    fn call(&mut self, item: &Parsed) -> CallRecord {
        self.episode.tool_calls += 1;
        let record = match item {
            Parsed::Malformed { text, error } => CallRecord {
                tool: String::new(),
                args: Value::String(text.clone()),
                ok: false,
                result: prompt::unreadable_call(error),
            },
            Parsed::Call(call) => {
                let result = self.env.call(&call.tool, &call.args);
                CallRecord { tool: call.tool.clone(), args: call.args.clone(), ok: result.ok, result: result.result }
            }
        };
        let sql = record.args.get("sql").and_then(Value::as_str).map(str::to_string);
        match Tool::from_name(&record.tool) {
            Some(Tool::RunQuery) if record.ok => {
                self.failed_in_a_row = 0;
                self.last_working = sql;
            }
            Some(Tool::RunQuery) => self.failed_in_a_row += 1,
            Some(Tool::SubmitSql) if sql.is_some() => self.submitted = sql,
            _ => {}
        }
        record
    }
}
