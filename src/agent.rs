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

use crate::env::{EnvError, Environment, Limits};
use crate::generate::{Counters, Finish, GenerateError, Generator};
use crate::prompt::{self, LimitReason, Prompt, PromptError};
use crate::protocol::{self, Parsed};

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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            prompt: Prompt::default(),
            max_episode_tokens: 12_288,
            tool_turns: prompt::TOOL_TURNS,
            max_failed_queries: prompt::MAX_FAILED_QUERIES_IN_A_ROW,
            seed: 0,
            limits: Limits::default(),
        }
    }
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
}

/// Why an episode could not run at all. Anything the model does is part of the episode instead.
#[derive(Debug, thiserror::Error)]
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
    #[error("the prompt alone needs {needed} tokens, more than the episode budget of {budget} (raise --max-episode-tokens)")]
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
    pub fn run_with(
        &mut self,
        question: &str,
        evidence: Option<&str>,
        db: &Path,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Episode, AgentError> {
        let started = Instant::now();
        let mut env = Environment::with_limits(db, self.settings.limits.clone())?;
        let s = &self.settings;
        let user = s.prompt.user_turn(question, evidence)?;
        let mut episode = Episode {
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
        };
        let budget = s.max_episode_tokens;
        let gen = &mut self.generator;

        gen.begin(&s.prompt.shared_prefix(), s.seed).map_err(AgentError::Generate)?;
        match gen.append(&s.prompt.first_turn(&user), budget) {
            Ok(()) => {}
            Err(GenerateError::OverBudget { needed, .. } | GenerateError::ContextFull { needed, .. }) => {
                return Err(AgentError::PromptTooLong { needed, budget: budget.min(gen.context_size()) })
            }
            Err(e) => return Err(AgentError::Generate(e)),
        }

        let mut last_working: Option<String> = None;
        let mut failed_in_a_row = 0usize;
        let mut exploration_over = false;

        // `Some(reason)` when the loop ends before a final answer; `None` after the final turn.
        let end = loop {
            let turn_start = Instant::now();
            let index = episode.turns.len() + 1;
            on_event(Event::TurnStart {
                index,
                final_turn: exploration_over,
            });
            let used = gen.counters().context_tokens;
            let room = budget.min(gen.context_size()).saturating_sub(used);
            if room == 0 {
                break Some(if budget <= gen.context_size() { EndedBy::TokenBudget } else { EndedBy::ContextFull });
            }
            let completion = gen
                .complete(room, &mut |t| on_event(Event::Text(t)))
                .map_err(AgentError::Generate)?;
            on_event(Event::TurnEnd {
                tokens: completion.tokens,
            });
            let parsed = protocol::parse_completion(&completion.text);
            let mut turn = Turn {
                index,
                final_turn: exploration_over,
                completion: completion.text.clone(),
                tokens: completion.tokens,
                finish: completion.finish,
                calls: Vec::new(),
                seconds: 0.0,
            };

            if exploration_over {
                let answer = protocol::final_answer_sql(&parsed);
                let runs = answer.as_deref().map(|sql| env.check(sql).is_ok());
                let (sql, source, ended) = match (answer, runs, &last_working) {
                    (Some(sql), Some(true), _) => (Some(sql), SqlSource::FinalAnswer, EndedBy::FinalTurn),
                    (_, _, Some(prev)) => (Some(prev.clone()), SqlSource::LastWorkingQuery, EndedBy::FallbackToLastWorkingQuery),
                    (Some(sql), _, None) => (Some(sql), SqlSource::FinalAnswer, EndedBy::FinalAnswerFailed),
                    (None, _, None) => (None, SqlSource::FinalAnswer, EndedBy::NoAnswer),
                };
                episode.sql_source = sql.as_ref().map(|_| source);
                episode.sql = sql;
                episode.ended_by = ended;
                turn.seconds = turn_start.elapsed().as_secs_f64();
                episode.turns.push(turn);
                break None;
            }
            if completion.finish == Finish::Length {
                turn.seconds = turn_start.elapsed().as_secs_f64();
                episode.turns.push(turn);
                break Some(if used + completion.tokens >= budget { EndedBy::TokenBudget } else { EndedBy::ContextFull });
            }

            // A tool turn: run every call in order; submit_sql ends the episode.
            episode.tool_turns += 1;
            let mut results: Vec<(String, String)> = Vec::new();
            let mut submitted = None;
            for item in &parsed.items {
                let record = match item {
                    Parsed::Malformed { text, error } => CallRecord {
                        tool: String::new(),
                        args: Value::String(text.clone()),
                        ok: false,
                        result: format!(
                            "Error: could not read tool call ({error}). Write each call as a JSON object: {{\"tool\": \"<name>\", \"args\": {{...}}}}"
                        ),
                    },
                    Parsed::Call(call) => {
                        let result = env.call(&call.tool, &call.args);
                        CallRecord {
                            tool: call.tool.clone(),
                            args: call.args.clone(),
                            ok: result.ok,
                            result: result.result,
                        }
                    }
                };
                episode.tool_calls += 1;
                on_event(Event::Call(&record));
                let sql = record.args.get("sql").and_then(Value::as_str).map(str::to_string);
                match record.tool.as_str() {
                    "run_query" if record.ok => {
                        failed_in_a_row = 0;
                        last_working = sql;
                    }
                    "run_query" => failed_in_a_row += 1,
                    "submit_sql" if sql.is_some() => submitted = sql,
                    _ => {}
                }
                results.push((call_label(&record), record.result.clone()));
                turn.calls.push(record);
                if submitted.is_some() {
                    break;
                }
            }
            if results.is_empty() {
                let note = CallRecord {
                    tool: String::new(),
                    args: Value::Null,
                    ok: false,
                    result: "Error: no tool call found. After </think>, write one or more tool calls as JSON objects, e.g. {\"tool\": \"list_tables\", \"args\": {}}".to_string(),
                };
                on_event(Event::Call(&note));
                results.push(("none".to_string(), note.result));
            }
            turn.seconds = turn_start.elapsed().as_secs_f64();
            episode.turns.push(turn);
            if let Some(sql) = submitted {
                episode.sql = Some(sql);
                episode.sql_source = Some(SqlSource::Submit);
                break Some(EndedBy::SubmitSql);
            }

            let limit = if failed_in_a_row >= s.max_failed_queries {
                Some(LimitReason::FailedQueries)
            } else if episode.tool_turns >= s.tool_turns {
                Some(LimitReason::TurnsUsed)
            } else {
                None
            };
            let turns_left = s.tool_turns.saturating_sub(episode.tool_turns);
            let text = prompt::tool_result_turn(&results, turns_left, limit);
            // Leave room for at least one generated token after the results.
            match gen.append(&text, budget.saturating_sub(1)) {
                Ok(()) => {}
                Err(GenerateError::OverBudget { .. }) => break Some(EndedBy::TokenBudget),
                Err(GenerateError::ContextFull { .. }) => break Some(EndedBy::ContextFull),
                Err(e) => return Err(AgentError::Generate(e)),
            }
            on_event(Event::Budget {
                turns_left,
                limit,
                context_tokens: gen.counters().context_tokens,
            });
            exploration_over = limit.is_some();
        };

        match end {
            Some(EndedBy::SubmitSql) => episode.ended_by = EndedBy::SubmitSql,
            Some(ended) => {
                // Ran out of room: the best answer is the last query that ran.
                episode.ended_by = ended;
                if let Some(sql) = last_working {
                    episode.sql = Some(sql);
                    episode.sql_source = Some(SqlSource::LastWorkingQuery);
                }
            }
            None => {} // the final turn set the answer and how it ended
        }
        episode.tokens = gen.counters();
        episode.tables_opened = env.opened_tables();
        episode.seconds = started.elapsed().as_secs_f64();
        Ok(episode)
    }
}

/// `describe_table(orders)`: a short label for a call in multi-call results.
fn call_label(record: &CallRecord) -> String {
    if record.tool.is_empty() {
        return "unreadable call".to_string();
    }
    let args: Vec<String> = match &record.args {
        Value::Object(map) => map
            .values()
            .map(|v| match v {
                Value::String(s) => {
                    let s: String = s.chars().take(60).collect();
                    s
                }
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    format!("{}({})", record.tool, args.join(", "))
}
