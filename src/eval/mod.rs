//! Evaluation: run the agent over a benchmark, score each answer by execution, and summarise.
//!
//! Results are one JSON line per episode (with the full trace), appended as episodes finish, so
//! a run that is stopped resumes where it was: finished episodes are skipped. Each episode's
//! seed is derived from the run's seed and the question id, so results do not depend on order.
//!
//! The modules, leaves first: [`question`] (a benchmark question), [`source`] (reading
//! benchmarks: JSONL, BIRD, EHRSQL, and SQaLe's parquet pair, [`parquet_pair`], with [`hub`] as
//! the only network path), [`subset`] (schema-size copies), [`score`] (execution match), this
//! module (a [`Plan`] of episodes into records) with its [`Sink`] (where the records go), [`remote`]
//! (the same on inference servers), [`predictions`] (scoring SQL made elsewhere), [`report`]
//! (summaries), [`html`] (the report page), [`results`] (the results folder's files), and
//! [`study`] (the whole protocol of `sqale eval`: models, a reference, servers, from one
//! [`RunSpec`]).

pub mod compare;
pub mod html;
pub mod hub;
pub(crate) mod jsonl;
pub mod load;
pub mod parquet_pair;
pub mod predictions;
pub mod question;
pub mod remote;
pub mod report;
pub mod results;
pub mod score;
mod sink;
pub mod source;
pub mod study;
pub mod subset;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::agent::{Agent, AgentError, CallRecord, EndedBy, Episode, Settings};
use crate::divergence::{Recorder, Transcript};
use crate::engine::{BatchedEngine, SequenceGenerator};
use crate::env::{Environment, Limits, Rows};
use crate::generate::{GenerateError, Generator};
use crate::tools::Tool;
pub use question::{normalize_id, Question, SourceError};
pub use sink::Sink;
pub use study::{RunSpec, Study};

/// One evaluated question, as written to `episodes.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// Which model (its label).
    pub model: String,
    /// Question id.
    pub id: String,
    /// Difficulty, if the benchmark has one.
    pub difficulty: Option<String>,
    /// The question asked (absent in results written before it was recorded).
    #[serde(default)]
    pub question: Option<String>,
    /// The gold SQL (absent in results written before it was recorded).
    #[serde(default)]
    pub gold_sql: Option<String>,
    /// Whether the gold query ran; questions whose gold fails are reported apart.
    pub gold_ok: bool,
    /// The gold query's error.
    pub gold_error: Option<String>,
    /// The predicted SQL.
    pub sql: Option<String>,
    /// How the episode ended (`None` without an episode).
    pub ended_by: Option<EndedBy>,
    /// Execution match.
    pub correct: bool,
    /// The prediction ran.
    pub executed: bool,
    /// Multiset F1.
    pub f1: f64,
    /// Training reward tier.
    pub reward: f64,
    /// Tool calls in the episode.
    pub tool_calls: usize,
    /// Assistant turns.
    pub turns: usize,
    /// Tokens run through the model.
    pub decoded_tokens: usize,
    /// Tokens sampled.
    pub generated_tokens: usize,
    /// Seconds for the episode.
    pub seconds: f64,
    /// Tables the gold query reads.
    #[serde(default)]
    pub gold_tables: Vec<String>,
    /// Whether the episode opened every gold table.
    #[serde(default)]
    pub opened_all_gold_tables: bool,
    /// String literals of the gold query.
    #[serde(default)]
    pub gold_literals: usize,
    /// How many of them appeared in tool output before the answer.
    #[serde(default)]
    pub gold_literals_seen: usize,
    /// The episode's seed.
    pub seed: u32,
    /// The whole episode (absent for scored-only predictions and failed gold queries).
    pub episode: Option<Episode>,
    /// Why the episode could not be run to its end (an inference server that failed): such a
    /// record is not scored, and a resumed run plays the question again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The vote this record's answer won (`eval --vote K`): its episode is the winner's, its
    /// token counts those of all K episodes, its seconds the longest episode's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote: Option<VoteRecord>,
}

/// How a vote went, as a record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteRecord {
    /// Episodes in the winning group.
    pub agree: usize,
    /// Episodes voting.
    pub of: usize,
    /// The winning episode (0-based, in seed order: episode 0 is the lone episode).
    pub winner: usize,
    /// Each episode's answer, in seed order.
    pub answers: Vec<Option<String>>,
}

impl Record {
    /// What the model did, turn by turn: each completion with its tool calls (absent without an
    /// episode). Two runs of a question took the same path when these are equal.
    pub fn turn_signature(&self) -> Option<Vec<(&str, &[CallRecord])>> {
        self.episode.as_ref().map(|e| e.turns.iter().map(|t| (t.completion.as_str(), t.calls.as_slice())).collect())
    }
}

/// The KV cache each sequence of an evaluation needs: room for one episode of
/// `max_episode_tokens`, no more than the context window `ctx`.
pub fn sequence_context(ctx: u32, max_episode_tokens: usize) -> u32 {
    ctx.min(u32::try_from(max_episode_tokens).unwrap_or(u32::MAX))
}

/// The seed of question `id` in a run seeded `seed`.
pub fn episode_seed(seed: u32, id: &str) -> u32 {
    let d = Sha256::digest(format!("{seed}:{id}").as_bytes());
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

/// Ids already in a results file for `model` (records of failed episodes don't count: a
/// resumed run plays them again).
pub fn done_ids(results: &Path, model: &str) -> HashSet<String> {
    jsonl::read::<Record>(results).filter(|r| r.model == model && r.error.is_none()).map(|r| r.id).collect()
}

/// All records of a results file (lines that do not parse, e.g. one cut by a kill, are skipped).
pub fn read_records(results: &Path) -> Vec<Record> {
    jsonl::read(results).collect()
}

/// Each (model, question) once: its first played record, else (every try failed on a server)
/// its first failed one; in the order they first appear. A resumed run appends the question's
/// new record after the failed one, which this drops.
pub fn settle(records: Vec<Record>) -> Vec<Record> {
    let played: HashSet<(String, String)> =
        records.iter().filter(|r| r.error.is_none()).map(|r| (r.model.clone(), r.id.clone())).collect();
    let mut seen = HashSet::new();
    records
        .into_iter()
        .filter(|r| {
            let key = (r.model.clone(), r.id.clone());
            (r.error.is_none() || !played.contains(&key)) && seen.insert(key)
        })
        .collect()
}

/// [`settle`], and the (model, question) pairs that had more than one played record (the first
/// kept).
pub fn settle_counted(records: Vec<Record>) -> (Vec<Record>, Vec<(String, String)>) {
    let mut played: HashMap<(String, String), usize> = HashMap::new();
    for r in records.iter().filter(|r| r.error.is_none()) {
        *played.entry((r.model.clone(), r.id.clone())).or_default() += 1;
    }
    let mut duplicates: Vec<(String, String)> = played.into_iter().filter(|(_, n)| *n > 1).map(|(k, _)| k).collect();
    duplicates.sort();
    (settle(records), duplicates)
}

/// `record` scored again against `q`'s gold result as it is now (the benchmark's gold SQL
/// changed since it was played): its answer and episode kept, its score and gold fields new.
pub fn rescore(record: &Record, q: &Question, gold: &Gold, limits: &Limits) -> Record {
    let mut r = score_record(&record.model, q, record.sql.as_deref(), gold, limits);
    let scored = (r.gold_ok, r.gold_error.take(), r.correct, r.executed, r.f1, r.reward);
    let (gold_sql, gold_tables) = (r.gold_sql.take(), std::mem::take(&mut r.gold_tables));
    let mut new = record.clone();
    (new.gold_ok, new.gold_error, new.correct, new.executed, new.f1, new.reward) = scored;
    new.gold_sql = gold_sql;
    new.gold_tables = gold_tables;
    let literals = string_literals(&q.gold_sql);
    new.gold_literals = literals.len();
    if let Some(ep) = &record.episode {
        new.opened_all_gold_tables =
            new.gold_tables.iter().all(|t| ep.tables_opened.iter().any(|o| o.eq_ignore_ascii_case(t)));
        let seen = tool_output(ep);
        new.gold_literals_seen = literals.iter().filter(|l| seen.contains(&l.to_lowercase())).count();
    }
    new
}

/// What the tools showed the model before its answer, lower-cased.
fn tool_output(ep: &Episode) -> String {
    ep.turns
        .iter()
        .filter(|t| !t.final_turn)
        .flat_map(|t| t.calls.iter().filter(|c| c.tool != Tool::SubmitSql.name()))
        .map(|c| c.result.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What failed underneath a [`GoldError`].
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a gold query gave no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GoldError {
    /// Its database could not be opened.
    #[error("{0}")]
    Open(#[source] Cause),
    /// The query failed (SQLite's message).
    #[error("{0}")]
    Query(#[source] Cause),
}

/// A gold query's result and the tables it reads.
pub struct Gold {
    /// Its rows, or why it could not run.
    pub rows: Result<Rows, GoldError>,
    /// The tables it reads (base tables behind views included).
    pub tables: Vec<String>,
}

/// Gold results, computed once per question and shared by every model.
pub struct GoldCache {
    limits: Limits,
    gold: HashMap<String, Gold>,
}

impl GoldCache {
    /// An empty cache; gold queries run under `limits`.
    pub fn new(limits: Limits) -> Self {
        GoldCache { limits, gold: HashMap::new() }
    }

    /// The gold result of `q`, computed on first use.
    pub fn get(&mut self, q: &Question) -> &Gold {
        let limits = self.limits.clone();
        self.gold.entry(q.id.clone()).or_insert_with(|| match Environment::with_limits(&q.db, limits) {
            Ok(mut env) => Gold {
                tables: env.tables_read(&q.gold_sql).unwrap_or_default(),
                rows: env.execute(&q.gold_sql).map_err(|e| GoldError::Query(e.into())),
            },
            Err(e) => Gold { rows: Err(GoldError::Open(e.into())), tables: Vec::new() },
        })
    }

    /// The gold result of question `id`, if computed.
    pub fn computed(&self, id: &str) -> Option<&Gold> {
        self.gold.get(id)
    }
}

/// Scores `sql` for `q` against its gold result into a record (no episode).
pub fn score_record(model: &str, q: &Question, sql: Option<&str>, gold: &Gold, limits: &Limits) -> Record {
    let mut r = Record {
        model: model.to_string(),
        id: q.id.clone(),
        difficulty: q.difficulty.clone(),
        question: Some(q.question.clone()),
        gold_sql: Some(q.gold_sql.clone()),
        gold_ok: true,
        gold_error: None,
        sql: sql.map(str::to_string),
        ended_by: None,
        correct: false,
        executed: false,
        f1: 0.0,
        reward: 0.0,
        tool_calls: 0,
        turns: 0,
        decoded_tokens: 0,
        generated_tokens: 0,
        seconds: 0.0,
        gold_tables: gold.tables.clone(),
        opened_all_gold_tables: false,
        gold_literals: 0,
        gold_literals_seen: 0,
        seed: 0,
        episode: None,
        error: None,
        vote: None,
    };
    match &gold.rows {
        Err(e) => {
            r.gold_ok = false;
            r.gold_error = Some(e.to_string());
        }
        Ok(rows) => match Environment::with_limits(&q.db, limits.clone()) {
            Ok(mut env) => {
                let s = score::score(&mut env, sql, rows);
                r.correct = s.correct;
                r.executed = s.executed;
                r.f1 = s.f1;
                r.reward = s.reward;
            }
            Err(e) => r.gold_error = Some(e.to_string()),
        },
    }
    r
}

/// Runs one episode for `q` and scores it.
pub fn episode_record<G: Generator>(
    agent: &mut Agent<G>,
    model: &str,
    q: &Question,
    gold: &Gold,
) -> Result<Record, EvalError> {
    let limits = agent.settings().limits.clone();
    let ep: Episode = agent
        .run_with(&q.question, q.evidence.as_deref(), &q.db, &mut |_| {})
        .map_err(|source| EvalError::Episode { id: q.id.clone(), source })?;
    let mut record = score_record(model, q, ep.sql.as_deref(), gold, &limits);
    record.ended_by = Some(ep.ended_by);
    record.tool_calls = ep.tool_calls;
    record.turns = ep.turns.len();
    record.decoded_tokens = ep.tokens.decoded_tokens;
    record.generated_tokens = ep.tokens.generated_tokens;
    record.seconds = ep.seconds;
    record.seed = ep.seed;
    record.opened_all_gold_tables =
        record.gold_tables.iter().all(|t| ep.tables_opened.iter().any(|o| o.eq_ignore_ascii_case(t)));
    let literals = string_literals(&q.gold_sql);
    let seen_text = tool_output(&ep);
    record.gold_literals = literals.len();
    record.gold_literals_seen = literals.iter().filter(|l| seen_text.contains(&l.to_lowercase())).count();
    record.episode = Some(ep);
    Ok(record)
}

/// What one model's run plays: every question of `questions` (those not yet in its sink), with
/// the run's `settings` and each episode's own seed, recorded under the model's `label`.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// The agent's settings of every episode (the seed is each episode's own).
    pub settings: &'a Settings,
    /// The model's label in the records.
    pub label: &'a str,
    /// The benchmark's questions.
    pub questions: &'a [Question],
    /// The run's seed: each episode's derives from it and the question id ([`episode_seed`]).
    pub seed: u32,
}

/// Plays question `q` of `plan` on `generator` with its own seed, and scores it against its gold
/// result (computed before: [`Sink`] records the questions whose gold query fails at once).
pub(crate) fn play<G: Generator>(
    generator: G,
    plan: &Plan<'_>,
    q: &Question,
    gold: &GoldCache,
) -> Result<Record, EvalError> {
    let mut s = plan.settings.clone();
    s.seed = episode_seed(plan.seed, &q.id);
    let g = gold.computed(&q.id).ok_or_else(|| EvalError::GoldMissing { id: q.id.clone() })?;
    episode_record(&mut Agent::new(generator, s), plan.label, q, g)
}

/// Runs `plan` on `engine`, as many episodes at once as it has sequences, each record into
/// `sink` as its episode finishes. Seeds derive from the run's seed and the question id, so
/// results depend on neither order nor parallelism. Returns how many questions the run took.
pub fn run(
    engine: &mut BatchedEngine<'_>,
    plan: &Plan<'_>,
    gold: &mut GoldCache,
    sink: &mut Sink<'_>,
) -> Result<usize, EvalError> {
    let mut failure: Option<EvalError> = None;
    let runnable = sink.start(plan, gold)?;
    let gold: &GoldCache = gold;
    let record = sink.records_transcripts();
    let work = |q: &Question, gen: &mut SequenceGenerator<'_>| {
        if !record {
            return (play(gen, plan, q, gold), None);
        }
        let mut rec = Recorder::new(gen);
        let r = play(&mut rec, plan, q, gold);
        let t = r.as_ref().ok().map(|r| Transcript {
            id: q.id.clone(),
            ended_by: r.ended_by,
            pieces: rec.take(),
            ids: None,
        });
        (r, t)
    };
    engine
        .run(runnable, work, &mut |(r, t): (Result<Record, EvalError>, Option<Transcript>)| {
            if failure.is_some() {
                return;
            }
            if let Err(e) = r.and_then(|r| sink.write(r, t)) {
                failure = Some(e);
            }
        })
        .map_err(EvalError::Engine)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(sink.total()),
    }
}

/// Runs `plan` as votes ([`crate::vote`]): `k` episodes of each question on `engine`, episode
/// `i` seeded with the question's seed plus `i` (so episode 0 is the lone episode of
/// [`run`]), then the vote over their answers. Each question gives two records: episode 0
/// alone under `plan.label`, and the winner under `vote_label` (its token counts those of all
/// `k` episodes). A question is played again unless both labels have it. Returns how many
/// questions the run took.
pub fn run_vote<'q>(
    engine: &mut BatchedEngine<'_>,
    plan: &Plan<'q>,
    k: usize,
    vote_label: &str,
    gold: &mut GoldCache,
    sink: &mut Sink<'_>,
) -> Result<usize, EvalError> {
    let runnable = sink.start_labels(plan, &[plan.label, vote_label], gold)?;
    let gold: &GoldCache = gold;
    let jobs: Vec<(&'q Question, usize)> = runnable.iter().flat_map(|&q| (0..k).map(move |i| (q, i))).collect();
    let work = |(q, i): (&'q Question, usize), gen: &mut SequenceGenerator<'_>| {
        let mut s = plan.settings.clone();
        s.seed = episode_seed(plan.seed, &q.id).wrapping_add(i as u32);
        let r = gold
            .computed(&q.id)
            .ok_or_else(|| EvalError::GoldMissing { id: q.id.clone() })
            .and_then(|g| episode_record(&mut Agent::new(gen, s), plan.label, q, g));
        (q, i, r)
    };
    let mut pending: HashMap<String, Vec<Option<Record>>> = HashMap::new();
    let mut failure: Option<EvalError> = None;
    engine
        .run(jobs, work, &mut |(q, i, r): (&'q Question, usize, Result<Record, EvalError>)| {
            if failure.is_some() {
                return;
            }
            let r = match r {
                Ok(r) => r,
                Err(e) => return failure = Some(e),
            };
            let slots = pending.entry(q.id.clone()).or_insert_with(|| vec![None; k]);
            slots[i] = Some(r);
            if slots.iter().any(Option::is_none) {
                return;
            }
            let Some(records) = pending.remove(&q.id) else { return };
            let records: Vec<Record> = records.into_iter().flatten().collect();
            if let Err(e) = write_vote(q, records, vote_label, &plan.settings.limits, sink) {
                failure = Some(e);
            }
        })
        .map_err(EvalError::Engine)?;
    match failure {
        Some(e) => Err(e),
        None => Ok(sink.total()),
    }
}

/// Votes over one question's `records` (in seed order) and writes episode 0's record and the
/// winner's, relabelled `vote_label`.
fn write_vote(
    q: &Question,
    records: Vec<Record>,
    vote_label: &str,
    limits: &Limits,
    sink: &mut Sink<'_>,
) -> Result<(), EvalError> {
    let answers: Vec<Option<&str>> = records.iter().map(|r| r.sql.as_deref()).collect();
    let vote = match Environment::with_limits(&q.db, limits.clone()) {
        Ok(mut env) => crate::vote::vote_answers(&mut env, &answers),
        // The gold query ran on this database, so it opens; if not, no answer runs.
        Err(e) => {
            crate::vote::tally(&answers.iter().map(|_| crate::vote::Outcome::Failed(e.to_string())).collect::<Vec<_>>())
        }
    };
    let winner = vote.winner.unwrap_or(0);
    let mut won = records[winner].clone();
    won.model = vote_label.to_string();
    won.decoded_tokens = records.iter().map(|r| r.decoded_tokens).sum();
    won.generated_tokens = records.iter().map(|r| r.generated_tokens).sum();
    won.seconds = records.iter().map(|r| r.seconds).fold(0.0, f64::max);
    won.vote = Some(VoteRecord {
        agree: vote.agree,
        of: vote.of,
        winner,
        answers: records.iter().map(|r| r.sql.clone()).collect(),
    });
    let first = records.into_iter().next();
    if let Some(first) = first {
        sink.write(first, None)?;
    }
    sink.write(won, None)
}

/// The string literals of a query (`'O''Brien'` → `O'Brien`), without duplicates.
pub fn string_literals(sql: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let mut lit = String::new();
                loop {
                    match chars.next() {
                        Some('\'') if chars.peek() == Some(&'\'') => {
                            chars.next();
                            lit.push('\'');
                        }
                        Some('\'') | None => break,
                        Some(x) => lit.push(x),
                    }
                }
                if !lit.is_empty() && !out.contains(&lit) {
                    out.push(lit);
                }
            }
            '"' => {
                // A quoted identifier, not a literal.
                for x in chars.by_ref() {
                    if x == '"' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Why an evaluation stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The results could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// An episode could not run (not a model mistake: those are scored).
    #[error("question {id}: {source}")]
    Episode {
        /// The question.
        id: String,
        /// Why.
        #[source]
        source: AgentError,
    },
    /// The batched engine failed while running episodes.
    #[error("running episodes: {0}")]
    Engine(#[source] GenerateError),
    /// A divergence measurement's files could not be written.
    #[error(transparent)]
    Divergence(#[from] crate::divergence::DivergenceError),
    /// A question reached the engine before its gold result was computed (a bug).
    #[error("question {id}: its gold result was not computed before its episode")]
    GoldMissing {
        /// The question.
        id: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_skip_identifiers_and_unescape() {
        assert_eq!(
            string_literals(r#"SELECT "it's" FROM t WHERE a = 'O''Brien' AND b IN ('x', 'x', '') AND c = 'y'"#),
            ["O'Brien", "x", "y"]
        );
    }

    #[test]
    fn records_written_before_typed_episodes_still_read() {
        // As the first versions wrote it: the episode through `serde_json::Value` (keys sorted),
        // no question or gold SQL in the record.
        let line = r#"{"model":"m.gguf","id":"q1","difficulty":"simple","gold_ok":true,"gold_error":null,"sql":"SELECT 1","ended_by":"submit_sql","correct":true,"executed":true,"f1":1.0,"reward":3.0,"tool_calls":1,"turns":1,"decoded_tokens":700,"generated_tokens":20,"seconds":0.5,"gold_tables":["customers"],"opened_all_gold_tables":true,"gold_literals":0,"gold_literals_seen":0,"seed":9,"episode":{"db":"demo.sqlite","ended_by":"submit_sql","evidence":null,"prompt_hash":"ab","prompt_source":"builtin","question":"How many?","seconds":0.5,"seed":9,"sql":"SELECT 1","sql_source":"submit","tables_opened":["customers"],"tokens":{"context_tokens":720,"decoded_tokens":700,"generate_seconds":0.2,"generated_tokens":20,"prefill_seconds":0.3,"reused_tokens":0},"tool_calls":1,"tool_turns":1,"turns":[{"calls":[{"args":{"sql":"SELECT 1"},"ok":true,"result":"submitted","tool":"submit_sql"}],"completion":"<tool_call>","final_turn":false,"finish":"stop","index":1,"seconds":0.4,"tokens":20}]}}"#;
        let r: Record = serde_json::from_str(line).unwrap();
        assert_eq!((r.question.as_deref(), r.gold_sql.as_deref()), (None, None));
        let e = r.episode.as_ref().unwrap();
        assert_eq!((e.ended_by, e.turns[0].calls[0].tool.as_str()), (crate::agent::EndedBy::SubmitSql, "submit_sql"));
        assert_eq!(r.turn_signature().unwrap(), [("<tool_call>", e.turns[0].calls.as_slice())]);
        let again: Record = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(again.turn_signature(), r.turn_signature(), "written and read back the same");
    }

    #[test]
    fn seeds_depend_on_id_not_order() {
        assert_eq!(episode_seed(1, "q1"), episode_seed(1, "q1"));
        assert_ne!(episode_seed(1, "q1"), episode_seed(1, "q2"));
        assert_ne!(episode_seed(1, "q1"), episode_seed(2, "q1"));
    }

    /// Old records (no `speculation`) still read; new ones carry the drafters' counts, which the
    /// summary adds up and reports.
    #[test]
    fn speculation_counts_travel_from_the_record_to_the_summary() {
        let line = r#"{"model":"m.gguf","id":"q1","difficulty":"simple","gold_ok":true,"gold_error":null,"sql":"SELECT 1","ended_by":"submit_sql","correct":true,"executed":true,"f1":1.0,"reward":3.0,"tool_calls":1,"turns":1,"decoded_tokens":700,"generated_tokens":20,"seconds":0.5,"gold_tables":["customers"],"opened_all_gold_tables":true,"gold_literals":0,"gold_literals_seen":0,"seed":9,"episode":{"db":"demo.sqlite","ended_by":"submit_sql","evidence":null,"prompt_hash":"ab","prompt_source":"builtin","question":"How many?","seconds":0.5,"seed":9,"sql":"SELECT 1","sql_source":"submit","tables_opened":["customers"],"tokens":{"context_tokens":720,"decoded_tokens":700,"generate_seconds":0.2,"generated_tokens":20,"prefill_seconds":0.3,"reused_tokens":0,"speculation":{"lookup":{"steps":2,"drafted":8,"accepted":6,"bonus":2},"mtp":{"steps":0,"drafted":0,"accepted":0,"bonus":0},"replays":0}},"tool_calls":1,"tool_turns":1,"turns":[{"calls":[{"args":{"sql":"SELECT 1"},"ok":true,"result":"submitted","tool":"submit_sql"}],"completion":"<tool_call>","final_turn":false,"finish":"stop","index":1,"seconds":0.4,"tokens":20}]}}"#;
        let old = line.replace(r#","speculation":{"lookup":{"steps":2,"drafted":8,"accepted":6,"bonus":2},"mtp":{"steps":0,"drafted":0,"accepted":0,"bonus":0},"replays":0}"#, "");
        assert_ne!(old, line);
        let plain: Record = serde_json::from_str(&old).unwrap();
        assert!(plain.episode.as_ref().unwrap().tokens.speculation.is_empty());
        assert!(report::summarise(&[plain])[0].speculation_line().is_none());
        let r: Record = serde_json::from_str(line).unwrap();
        let summaries = report::summarise(&[r.clone(), r]);
        let s = summaries[0].speculation.expect("counts summed");
        assert_eq!((s.lookup.steps, s.lookup.drafted, s.lookup.accepted), (4, 16, 12));
        let text = summaries[0].speculation_line().unwrap();
        assert!(
            text.contains("lookup 12/16 drafted tokens kept (75 %)") && text.contains("4.00 tokens per verify step"),
            "{text}"
        );
        assert!(report::markdown(&summaries, &[]).contains(&text));
    }
}
