//! What prompt caching saves over a real episode: a six-tool-turn conversation replayed through
//! the model with each token decoded once, and with the conversation re-decoded before every
//! assistant turn; and what speculative decoding saves on it ([`replay_speculation`]).

use std::path::Path;
use std::time::Instant;

use llama_cpp_2::token::LlamaToken;
use serde::Serialize;

use super::BenchError;
use crate::agent::{Agent, EndedBy, Episode, Settings};
use crate::engine::Engine;
use crate::generate::{Generator, ScriptedGenerator};
use crate::speculate::{SpecCounts, Speculate};

/// The replay's question by default (it fits [`SIX_TURNS`] and the demo database).
pub const QUESTION: &str = "Which supplier shipped the most back-ordered items last quarter?";

/// A six-tool-turn episode as a SQaLe model would play it on the demo database (thinking, then
/// calls), used to replay a realistic conversation through the real model.
pub const SIX_TURNS: &[&str] = &[
    "<think>\nThe question asks which supplier shipped the most back-ordered items last quarter. I do not know the schema yet, so I will list the tables first and then look at the ones about suppliers, shipments and orders.\n</think>\n\n{\"tool\": \"list_tables\", \"args\": {}}",
    "<think>\nThere are suppliers, shipments, orders and order_items tables. I need to know how they connect and where the back-ordered status lives. Let me describe orders and order_items.\n</think>\n\n{\"tool\": \"describe_table\", \"args\": {\"table_name\": \"orders\"}}\n{\"tool\": \"describe_table\", \"args\": {\"table_name\": \"order_items\"}}",
    "<think>\norders has a status column and order_items has shipment_id. I should check how suppliers reach order_items along the foreign keys.\n</think>\n\n{\"tool\": \"join_path\", \"args\": {\"table_a\": \"suppliers\", \"table_b\": \"order_items\"}}",
    "<think>\nI need the exact spelling of the back-ordered status value before filtering on it.\n</think>\n\n{\"tool\": \"distinct_values\", \"args\": {\"table_name\": \"orders\", \"column_name\": \"status\"}}",
    "<think>\nThe value is 'back-ordered'. The data seems to end in 2025, so last quarter is 2025 Q4. Let me try a first query joining suppliers, shipments, order_items and orders.\n</think>\n\n{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' GROUP BY su.name ORDER BY 2 DESC LIMIT 3\"}}",
    "<think>\nO'Brien Logistics leads clearly. I will confirm the quarter's upper bound and keep only the top supplier.\n</think>\n\n{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) AS n FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' AND o.order_date < '2026-01-01' GROUP BY su.supplier_id ORDER BY n DESC LIMIT 1\"}}",
    "<think>\nThe query ran and answers the question.\n</think>\n\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT su.name, SUM(oi.quantity) AS n FROM suppliers su JOIN shipments sh ON sh.supplier_id = su.supplier_id JOIN order_items oi ON oi.shipment_id = sh.shipment_id JOIN orders o ON o.order_id = oi.order_id WHERE o.status = 'back-ordered' AND o.order_date >= '2025-10-01' AND o.order_date < '2026-01-01' GROUP BY su.supplier_id ORDER BY n DESC LIMIT 1\"}}",
];

/// The two live episodes' sampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveSettings {
    /// Sampling seed.
    pub seed: u32,
    /// Token budget of each episode.
    pub max_episode_tokens: usize,
}

/// The replay of [`SIX_TURNS`] with and without the prompt cache.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    /// The question.
    pub question: String,
    /// How the scripted episode ended (`final_turn` for [`SIX_TURNS`]: six tool turns, then the
    /// answer).
    pub scripted_ended_by: EndedBy,
    /// Its tool turns.
    pub tool_turns: usize,
    /// Its assistant turns.
    pub turns: usize,
    /// Tokens of the whole conversation.
    pub context_tokens: usize,
    /// Of which the assistant's (decoded one at a time).
    pub generated_tokens: usize,
    /// Tokens decoded with the cache: each once (equals `context_tokens`).
    pub cached_decoded_tokens: usize,
    /// Tokens decoded when the conversation is re-decoded before every assistant turn.
    pub redecode_decoded_tokens: usize,
    /// Seconds with the cache.
    pub cached_seconds: f64,
    /// Seconds re-decoding.
    pub redecode_seconds: f64,
    /// `redecode_seconds / cached_seconds`.
    pub redecode_over_cached: f64,
    /// Two live episodes, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveEpisodes>,
    /// The same episode with speculation off and on ([`replay_speculation`]), when run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculation: Option<SpeculativeReplay>,
}

/// A scripted episode replayed with the generated tokens decoded one by one (speculation off)
/// and as the engine's drafters allow ([`Engine::decode_generated`]).
#[derive(Debug, Clone, Serialize)]
pub struct SpeculativeReplay {
    /// The engine's speculation mode ([`super::engine_options`] makes `auto` prompt lookup, plus
    /// the MTP head when the file has one).
    pub speculate: Speculate,
    /// Tokens of the whole conversation.
    pub context_tokens: usize,
    /// Of which the assistant's.
    pub generated_tokens: usize,
    /// Seconds of the episode, speculation off.
    pub off_seconds: f64,
    /// Seconds of the episode, speculation on.
    pub on_seconds: f64,
    /// `off_seconds / on_seconds` (above 1: speculation is faster).
    pub off_over_on: f64,
    /// Of `off_seconds`, decoding the assistant's tokens.
    pub generated_off_seconds: f64,
    /// Of `on_seconds`, decoding the assistant's tokens.
    pub generated_on_seconds: f64,
    /// What the drafters proposed and what was kept, speculation on.
    pub counts: SpecCounts,
    /// Prompt lookup's generated tokens per verify step.
    pub lookup_tokens_per_step: f64,
    /// Prompt lookup's accepted share of drafted tokens.
    pub lookup_acceptance: f64,
}

/// Two live episodes of the same question on one engine: the second can reuse the first's
/// prompt prefix.
#[derive(Debug, Clone, Serialize)]
pub struct LiveEpisodes {
    /// The first.
    pub first: LiveEpisode,
    /// The second.
    pub second: LiveEpisode,
}

/// A live episode's token counts.
#[derive(Debug, Clone, Serialize)]
pub struct LiveEpisode {
    /// How it ended.
    pub ended_by: EndedBy,
    /// Assistant turns.
    pub turns: usize,
    /// Tokens in the conversation at the end.
    pub context_tokens: usize,
    /// Tokens decoded.
    pub decoded_tokens: usize,
    /// Tokens reused from the prompt snapshot.
    pub reused_tokens: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl From<&Episode> for LiveEpisode {
    fn from(e: &Episode) -> Self {
        LiveEpisode {
            ended_by: e.ended_by,
            turns: e.turns.len(),
            context_tokens: e.tokens.context_tokens,
            decoded_tokens: e.tokens.decoded_tokens,
            reused_tokens: e.tokens.reused_tokens,
            seconds: e.seconds,
        }
    }
}

/// Decodes `tokens` in one go, or one at a time (as generated tokens are).
fn decode(engine: &mut Engine<'_>, tokens: &[LlamaToken], one_by_one: bool) -> Result<(), BenchError> {
    if one_by_one {
        for &t in tokens {
            engine.decode_sampled(&[t])?;
        }
    } else {
        engine.decode(tokens)?;
    }
    Ok(())
}

/// What prompt caching saves on a six-tool-turn episode: the conversation of [`SIX_TURNS`] (tool
/// results from the real database `db`, sqale's prompt) is tokenised by the model and replayed
/// twice through `engine`: each token decoded once (what sqale does: appended text in batches,
/// generated tokens one by one), and the whole conversation re-decoded from scratch before every
/// assistant turn (what a loop without a cache does). Sampling is left out of both.
/// With `live`, also runs two real episodes to count decoded tokens against context length.
/// `on_step` hears each part as it starts and as each of its turns ends ([`ReplayStep`]).
pub fn replay(
    engine: &mut Engine<'_>,
    question: &str,
    db: &Path,
    live: Option<LiveSettings>,
    on_step: &mut dyn FnMut(ReplayStep),
) -> Result<ReplayReport, BenchError> {
    replay_script(engine, SIX_TURNS, question, db, live, on_step)
}

/// Where an episode replay stands: `done` of `total` parts of the step `what`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayStep {
    /// The step: `cached` (each token decoded once), `re-decode` (the whole conversation before
    /// each assistant turn), `live` (the real episodes), `speculation off` or `speculation on`.
    pub what: &'static str,
    /// Parts done: assistant turns for the replays, episodes for `live`.
    pub done: usize,
    /// Parts in all.
    pub total: usize,
}

/// [`replay`] of another script: `script` holds the assistant's completions, one per turn, played
/// by the agent with default settings.
pub fn replay_script(
    engine: &mut Engine<'_>,
    script: &[&str],
    question: &str,
    db: &Path,
    live: Option<LiveSettings>,
    on_step: &mut dyn FnMut(ReplayStep),
) -> Result<ReplayReport, BenchError> {
    let (ep, segments) = scripted_segments(engine, script, question, db)?;
    let context_tokens: usize = segments.iter().map(|s| s.0.len()).sum();
    let generated_tokens: usize = segments.iter().filter(|s| s.1).map(|s| s.0.len()).sum();
    let turns = segments.iter().filter(|s| s.1).count();

    engine.clear();
    let t = Instant::now();
    let mut done = 0;
    on_step(ReplayStep { what: "cached", done, total: turns });
    for (tokens, generated) in &segments {
        decode(engine, tokens, *generated)?;
        if *generated {
            done += 1;
            on_step(ReplayStep { what: "cached", done, total: turns });
        }
    }
    let cached_seconds = t.elapsed().as_secs_f64();
    let cached_decoded_tokens = engine.counters().decoded_tokens;

    let t = Instant::now();
    let mut redecode_decoded_tokens = 0;
    let mut done = 0;
    on_step(ReplayStep { what: "re-decode", done, total: turns });
    for (i, (tokens, generated)) in segments.iter().enumerate() {
        if !generated {
            continue;
        }
        engine.clear();
        let before: Vec<LlamaToken> = segments[..i].iter().flat_map(|s| s.0.iter().copied()).collect();
        engine.decode(&before)?;
        decode(engine, tokens, true)?;
        redecode_decoded_tokens += engine.counters().decoded_tokens;
        done += 1;
        on_step(ReplayStep { what: "re-decode", done, total: turns });
    }
    let redecode_seconds = t.elapsed().as_secs_f64();

    let live = match live {
        None => None,
        Some(l) => {
            engine.clear();
            let settings = Settings { seed: l.seed, max_episode_tokens: l.max_episode_tokens, ..Settings::default() };
            let mut agent = Agent::new(&mut *engine, settings);
            on_step(ReplayStep { what: "live", done: 0, total: 2 });
            let first = agent.run(question, db).map_err(|source| BenchError::Live { which: "first", source })?;
            on_step(ReplayStep { what: "live", done: 1, total: 2 });
            let second = agent.run(question, db).map_err(|source| BenchError::Live { which: "second", source })?;
            on_step(ReplayStep { what: "live", done: 2, total: 2 });
            Some(LiveEpisodes { first: (&first).into(), second: (&second).into() })
        }
    };
    Ok(ReplayReport {
        question: question.to_string(),
        scripted_ended_by: ep.ended_by,
        tool_turns: ep.tool_turns,
        turns: ep.turns.len(),
        context_tokens,
        generated_tokens,
        cached_decoded_tokens,
        redecode_decoded_tokens,
        cached_seconds,
        redecode_seconds,
        redecode_over_cached: redecode_seconds / cached_seconds,
        live,
        speculation: None,
    })
}

/// The scripted episode and its conversation as the model's tokens, in segments: appended text
/// (`false`) and the assistant's completions (`true`).
type Segments = Vec<(Vec<LlamaToken>, bool)>;

/// Plays `script` with the agent and tokenises the conversation with `engine`'s model.
fn scripted_segments(
    engine: &Engine<'_>,
    script: &[&str],
    question: &str,
    db: &Path,
) -> Result<(Episode, Segments), BenchError> {
    let mut scripted = Agent::new(ScriptedGenerator::new(script.iter().copied()), Settings::default());
    let ep = scripted.run(question, db).map_err(BenchError::Scripted)?;
    let model = engine.model();
    let segments = scripted
        .generator()
        .segments()
        .iter()
        .enumerate()
        .map(|(i, (text, generated))| (model.tokenize(text, i == 0), *generated))
        .collect();
    Ok((ep, segments))
}

/// Replays `segments` from an empty sequence, appended text in batches and generated tokens one by
/// one or, with `speculate`, with the engine's drafters; returns the seconds in all and of the
/// generated tokens.
fn timed_replay(
    engine: &mut Engine<'_>,
    segments: &Segments,
    speculate: bool,
    on_step: &mut dyn FnMut(ReplayStep),
) -> Result<(f64, f64), BenchError> {
    engine.clear();
    let what = if speculate { "speculation on" } else { "speculation off" };
    let (mut done, total) = (0, segments.iter().filter(|s| s.1).count());
    on_step(ReplayStep { what, done, total });
    let mut generated_seconds = 0.0;
    let t = Instant::now();
    for (tokens, generated) in segments {
        let g = Instant::now();
        match (generated, speculate) {
            (false, _) => decode(engine, tokens, false)?,
            (true, false) => decode(engine, tokens, true)?,
            (true, true) => engine.decode_generated(tokens)?,
        }
        if *generated {
            generated_seconds += g.elapsed().as_secs_f64();
            done += 1;
            on_step(ReplayStep { what, done, total });
        }
    }
    Ok((t.elapsed().as_secs_f64(), generated_seconds))
}

/// What speculative decoding saves on a scripted episode: the conversation of `script` (as in
/// [`replay_script`]) replayed through `engine` twice, the assistant's tokens decoded one by one
/// (speculation off), then with [`Engine::decode_generated`] and the drafters of `engine`'s
/// speculation mode, drafts checked against the script's tokens. `on_step` hears each assistant
/// turn replayed.
pub fn replay_speculation(
    engine: &mut Engine<'_>,
    script: &[&str],
    question: &str,
    db: &Path,
    on_step: &mut dyn FnMut(ReplayStep),
) -> Result<SpeculativeReplay, BenchError> {
    let (_, segments) = scripted_segments(engine, script, question, db)?;
    let (off_seconds, generated_off_seconds) = timed_replay(engine, &segments, false, on_step)?;
    let (on_seconds, generated_on_seconds) = timed_replay(engine, &segments, true, on_step)?;
    let counts = engine.counters().speculation;
    Ok(SpeculativeReplay {
        speculate: engine.options().speculate,
        context_tokens: segments.iter().map(|s| s.0.len()).sum(),
        generated_tokens: segments.iter().filter(|s| s.1).map(|s| s.0.len()).sum(),
        off_seconds,
        on_seconds,
        off_over_on: off_seconds / on_seconds,
        generated_off_seconds,
        generated_on_seconds,
        counts,
        lookup_tokens_per_step: counts.lookup.tokens_per_step(),
        lookup_acceptance: counts.lookup.acceptance(),
    })
}
