//! Voting over sampled episodes of one question (docs/constrained-calls.md, "Voting").
//!
//! Every episode's answer is executed read-only, in the same guarded environment as any query
//! of the model (a query that writes is refused there, and counts as one that does not run).
//! The result sets are grouped by the scorer's equality rule ([`crate::eval::score::same_set`]).
//! The largest group wins; a tie goes to the reward's tiers (runs and returns rows, then runs,
//! then parses), then to the earliest episode. The winner is the group's earliest episode.
//!
//! Only an answer that ran is an answer: one that failed (a refused write, an error) or is
//! missing is a group of its own that agrees with nothing and never wins. When no answer ran,
//! the vote has no winner and no agreement.

use serde::Serialize;

use crate::agent::Episode;
use crate::env::{Environment, Rows};
use crate::eval::score::{is_syntax_error, same_set};

/// How far an answer got: the reward's tiers, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// No answer, or SQL that does not parse.
    None,
    /// Parses but does not run (a refused write included).
    Parses,
    /// Runs and returns no rows.
    Runs,
    /// Runs and returns rows.
    Rows,
}

/// One episode's ballot.
#[derive(Debug, Clone, Serialize)]
pub struct Ballot {
    /// The episode's index (0-based, in seed order).
    pub episode: usize,
    /// Its answer's tier.
    pub tier: Tier,
    /// The group it fell in (an index into [`Vote::groups`]).
    pub group: usize,
    /// Why its answer did not run, if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Episodes whose answers agree (or one that agrees with none).
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// Its episodes, earliest first.
    pub episodes: Vec<usize>,
    /// Their tier.
    pub tier: Tier,
}

/// What the vote decided.
#[derive(Debug, Clone, Serialize)]
pub struct Vote {
    /// The winning episode: the earliest of the largest group of answers that ran; `None` when
    /// no episode's answer ran (or there were no episodes).
    pub winner: Option<usize>,
    /// Episodes in the winning group (0 without a winner).
    pub agree: usize,
    /// Episodes voting.
    pub of: usize,
    /// Every group, largest first (ties as decided).
    pub groups: Vec<Group>,
    /// One ballot per episode, in episode order.
    pub ballots: Vec<Ballot>,
}

impl Vote {
    /// `4 of 5 agree`; without a winner, `no answer: none of the 5 episodes' queries ran`.
    pub fn summary(&self) -> String {
        match self.winner {
            Some(_) => format!("{} of {} agree", self.agree, self.of),
            None if self.of == 1 => "no answer: the episode's query did not run".to_string(),
            None => format!("no answer: none of the {} episodes' queries ran", self.of),
        }
    }
}

/// What an answer gave when it was executed.
pub enum Outcome {
    /// No SQL.
    Missing,
    /// It ran.
    Ran(Rows),
    /// It did not run; the environment's error.
    Failed(String),
}

/// Executes each episode's answer in `env` (read-only, guarded) and votes.
pub fn vote(env: &mut Environment, episodes: &[Episode]) -> Vote {
    let answers: Vec<Option<&str>> = episodes.iter().map(|e| e.sql.as_deref()).collect();
    vote_answers(env, &answers)
}

/// Executes each answer in `env` (read-only, guarded) and votes: answer `i` is episode `i`'s.
pub fn vote_answers(env: &mut Environment, answers: &[Option<&str>]) -> Vote {
    let outcomes: Vec<Outcome> = answers
        .iter()
        .map(|a| match a.map(str::trim).filter(|s| !s.is_empty()) {
            None => Outcome::Missing,
            Some(sql) => match env.execute(sql) {
                Ok(rows) => Outcome::Ran(rows),
                Err(err) => Outcome::Failed(err.to_string()),
            },
        })
        .collect();
    tally(&outcomes)
}

/// Votes over outcomes already known (episode `i` gave `outcomes[i]`).
pub fn tally(outcomes: &[Outcome]) -> Vote {
    // (representative rows, group) for answers that ran; a singleton for each that did not.
    let mut groups: Vec<(Option<&Rows>, Group)> = Vec::new();
    let mut ballots = Vec::with_capacity(outcomes.len());
    for (i, outcome) in outcomes.iter().enumerate() {
        let (tier, error) = match outcome {
            Outcome::Missing => (Tier::None, Some("no answer".to_string())),
            Outcome::Ran(rows) if rows.rows.is_empty() => (Tier::Runs, None),
            Outcome::Ran(_) => (Tier::Rows, None),
            Outcome::Failed(e) if is_syntax_error(e) => (Tier::None, Some(e.clone())),
            Outcome::Failed(e) => (Tier::Parses, Some(e.clone())),
        };
        let found = match outcome {
            Outcome::Ran(rows) => groups.iter().position(|(r, _)| r.is_some_and(|r| same_set(r, rows))),
            _ => None,
        };
        let group = match found {
            Some(g) => {
                groups[g].1.episodes.push(i);
                g
            }
            None => {
                let rows = if let Outcome::Ran(r) = outcome { Some(r) } else { None };
                groups.push((rows, Group { episodes: vec![i], tier }));
                groups.len() - 1
            }
        };
        ballots.push(Ballot { episode: i, tier, group, error });
    }
    // Largest first, then the better tier, then the earliest episode.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by(|&a, &b| {
        let (ga, gb) = (&groups[a].1, &groups[b].1);
        gb.episodes.len().cmp(&ga.episodes.len()).then(gb.tier.cmp(&ga.tier)).then(ga.episodes[0].cmp(&gb.episodes[0]))
    });
    let mut renumber = vec![0; groups.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new;
    }
    for b in &mut ballots {
        b.group = renumber[b.group];
    }
    let sorted: Vec<Group> = order.iter().map(|&g| groups[g].1.clone()).collect();
    // A group that did not run is a singleton, so it can come first only when nothing ran.
    let won = sorted.first().filter(|g| g.tier >= Tier::Runs);
    let winner = won.map(|g| g.episodes[0]);
    let agree = won.map_or(0, |g| g.episodes.len());
    Vote { winner, agree, of: outcomes.len(), groups: sorted, ballots }
}

/// Most episodes one vote runs: llama.cpp's limit on sequences in one context.
pub const MAX_VOTES: usize = 256;

/// Why a vote could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VoteError {
    /// No episodes asked for.
    #[error("a vote needs at least one episode (0 asked for)")]
    Zero,
    /// More episodes than one context holds: more sequences than `max`, or more tokens in all
    /// than `limit`.
    #[error("{}", too_many(*asked, *max, *ctx, *total, *limit))]
    TooMany {
        /// Episodes asked for.
        asked: usize,
        /// Most sequences a context holds.
        max: usize,
        /// Tokens per sequence.
        ctx: u32,
        /// Tokens all of them would take.
        total: u64,
        /// Most tokens one context holds.
        limit: u64,
    },
    /// The episodes' KV caches (and the weights) would not fit the machine's available memory.
    #[error(
        "{asked} episodes of {ctx} tokens each need about {} of memory (the weights and a KV cache per episode), and {} is available",
        gib(*needed),
        gib(*available)
    )]
    Memory {
        /// Episodes asked for.
        asked: usize,
        /// Tokens per episode's sequence.
        ctx: u32,
        /// Bytes the estimate says they need, with [`crate::memory::estimate::HEADROOM`].
        needed: u64,
        /// Bytes of memory available.
        available: u64,
    },
    /// The batched engine could not be made.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// An episode could not run.
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    /// The batched engine failed.
    #[error(transparent)]
    Generate(#[from] crate::generate::GenerateError),
    /// The database could not be opened to execute the answers.
    #[error(transparent)]
    Env(#[from] crate::env::EnvError),
}

/// What [`VoteError::TooMany`] says: the limit that was passed.
fn too_many(asked: usize, max: usize, ctx: u32, total: u64, limit: u64) -> String {
    if asked > max {
        format!("{asked} episodes do not fit one context: it holds at most {max} sequences")
    } else {
        format!(
            "{asked} episodes of {ctx} tokens each do not fit one context: {total} tokens in all, and it holds at most {limit}"
        )
    }
}

/// Checks that `k` episodes of `ctx` tokens each fit one context.
pub fn check_size(k: usize, ctx: u32) -> Result<(), VoteError> {
    let total = k as u64 * u64::from(ctx);
    let limit = u64::from(u32::MAX);
    if k == 0 {
        return Err(VoteError::Zero);
    }
    if k > MAX_VOTES || total > limit {
        return Err(VoteError::TooMany { asked: k, max: MAX_VOTES, ctx, total, limit });
    }
    Ok(())
}

/// `bytes` in GiB, one decimal (`2.9 GiB`).
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// Checks that `estimate` (of a vote's `k` sequences of `ctx` tokens each, as
/// [`crate::memory::Shape::estimate_sequences`] makes it) fits `available` bytes with
/// [`crate::memory::estimate::HEADROOM`]; unknown available memory passes.
pub fn check_memory(
    k: usize,
    ctx: u32,
    estimate: &crate::memory::Estimate,
    available: Option<u64>,
) -> Result<(), VoteError> {
    match available {
        Some(available) if !estimate.fits(available) => Err(VoteError::Memory {
            asked: k,
            ctx,
            needed: (estimate.total_bytes as f64 * crate::memory::estimate::HEADROOM) as u64,
            available,
        }),
        _ => Ok(()),
    }
}

/// What [`run`] gives back.
#[derive(Debug)]
pub struct Voted {
    /// The episodes, in seed order.
    pub episodes: Vec<Episode>,
    /// The vote over their answers.
    pub vote: Vote,
    /// Tokens of context each episode's sequence had.
    pub ctx: usize,
}

/// `k` sampled episodes of `question`, batched in one context from the shared prompt snapshot,
/// episode `i` sampled with `seed + i`; then the vote over their answers. Each sequence holds
/// one episode: [`crate::eval::sequence_context`] of `options.ctx` and the episode's budget
/// (as `eval --vote` sizes them). The episodes
/// come back in seed order.
pub fn run(
    model: &crate::engine::Model,
    options: crate::engine::EngineOptions,
    settings: &crate::agent::Settings,
    k: usize,
    question: &str,
    evidence: Option<&str>,
    db: &std::path::Path,
) -> Result<Voted, VoteError> {
    let options = crate::engine::EngineOptions {
        ctx: crate::eval::sequence_context(options.ctx, settings.max_episode_tokens),
        ..options
    };
    check_size(k, options.ctx)?;
    let mut engine = crate::engine::BatchedEngine::new(model, options, k)?;
    let ctx = engine.context_per_sequence();
    let mut done: Vec<(usize, Result<Episode, crate::agent::AgentError>)> = Vec::with_capacity(k);
    engine.run(
        0..k,
        |i, generator| {
            let s = crate::agent::Settings { seed: settings.seed.wrapping_add(i as u32), ..settings.clone() };
            (i, crate::agent::Agent::new(generator, s).run_with(question, evidence, db, &mut |_| {}))
        },
        &mut |r| done.push(r),
    )?;
    done.sort_by_key(|(i, _)| *i);
    let episodes = done.into_iter().map(|(_, e)| e).collect::<Result<Vec<_>, _>>()?;
    let mut env = Environment::with_limits(db, settings.limits.clone())?;
    let vote = vote(&mut env, &episodes);
    Ok(Voted { episodes, vote, ctx })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::types::Value::Integer as I;

    fn ran(v: &[i64]) -> Outcome {
        Outcome::Ran(Rows { columns: vec!["n".into()], rows: v.iter().map(|&n| vec![I(n)]).collect() })
    }

    #[test]
    fn the_largest_group_by_result_set_wins() {
        let v = tally(&[ran(&[1]), ran(&[2]), ran(&[2, 2]), Outcome::Missing, ran(&[2])]);
        assert_eq!(v.winner, Some(1), "{{2}} thrice (duplicates ignored), earliest is episode 1");
        assert_eq!(v.summary(), "3 of 5 agree");
        assert_eq!(v.ballots[0].group, 1);
    }

    #[test]
    fn a_tie_goes_to_the_better_tier_then_the_earliest() {
        let empty = || ran(&[]);
        // Two groups of two: rows beat an empty result, whatever came first.
        let v = tally(&[empty(), ran(&[7]), empty(), ran(&[7])]);
        assert_eq!((v.winner, v.agree), (Some(1), 2));
        // Same size, same tier: the earliest.
        let v = tally(&[ran(&[3]), ran(&[4])]);
        assert_eq!(v.winner, Some(0));
        // A failed query ties below one that runs; two failures never agree.
        let no = || Outcome::Failed("no such table: x".into());
        let v = tally(&[no(), no(), empty()]);
        assert_eq!((v.winner, v.agree), (Some(2), 1));
        assert!(tally(&[]).winner.is_none());
    }

    /// A test double of the environment's refusal of a write.
    fn refused() -> Outcome {
        Outcome::Failed("not allowed: the database is read-only and only SELECT queries may run".into())
    }

    #[test]
    fn answers_that_did_not_run_never_agree_nor_win() {
        // The same refused DELETE thrice: three groups of one, no winner, no agreement.
        let v = tally(&[refused(), refused(), refused()]);
        assert_eq!((v.winner, v.agree, v.of), (None, 0, 3), "{v:?}");
        assert_eq!(v.groups.len(), 3);
        assert!(v.ballots.iter().all(|b| b.tier == Tier::Parses && b.error.is_some()));
        assert_eq!(v.summary(), "no answer: none of the 3 episodes' queries ran");
        // No answer at all, or a syntax error: the same.
        let v = tally(&[Outcome::Missing, Outcome::Failed("near \"SELEC\": syntax error".into())]);
        assert_eq!((v.winner, v.agree), (None, 0));
        assert!(!v.summary().contains("agree"), "{}", v.summary());
        let v = tally(&[Outcome::Missing]);
        assert_eq!(v.summary(), "no answer: the episode's query did not run");
        // One that ran beats any number that did not, whatever came first.
        let v = tally(&[refused(), refused(), ran(&[])]);
        assert_eq!((v.winner, v.agree), (Some(2), 1));
        assert_eq!(v.summary(), "1 of 3 agree");
    }

    #[test]
    fn sizes_are_checked() {
        assert!(matches!(check_size(0, 4096), Err(VoteError::Zero)));
        assert!(check_size(5, 4096).is_ok());
        assert!(check_size(MAX_VOTES, 4096).is_ok());
        // Too many sequences: the sequence limit is named, not token totals under their limit.
        let e = check_size(257, 4096).unwrap_err().to_string();
        assert_eq!(e, "257 episodes do not fit one context: it holds at most 256 sequences");
        // Too many tokens: the token totals are named.
        let e = check_size(200, 1 << 30).unwrap_err().to_string();
        assert!(e.contains("214748364800 tokens in all") && e.contains(&u32::MAX.to_string()), "{e}");
        assert!(!e.contains("sequences"), "{e}");
    }

    #[test]
    fn a_vote_that_does_not_fit_the_memory_is_refused() {
        let shape = crate::memory::Shape {
            architecture: "llama".into(),
            layers: 30,
            recurrent_layers: 0,
            kv_heads: 3,
            key_length: 64,
            value_length: 64,
            conv_kernel: 4,
            ssm_groups: 0,
            ssm_state: 0,
            ssm_inner: 0,
            ssm_heads: 0,
            kv_value_bytes: 2,
        };
        // 64 sequences of 16,384 tokens: 1,048,576 tokens of KV, 22.5 GiB with the weights.
        let e = shape.estimate_sequences("m.gguf".into(), 100 << 20, 16_384, 64);
        assert_eq!(e.ctx, 1 << 20);
        let err = check_memory(64, 16_384, &e, Some(16 << 30)).unwrap_err();
        assert!(matches!(err, VoteError::Memory { asked: 64, ctx: 16_384, .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("need about 24.9 GiB of memory") && text.contains("16.0 GiB is available"), "{text}");
        assert!(check_memory(64, 16_384, &e, Some(64 << 30)).is_ok());
        assert!(check_memory(64, 16_384, &e, None).is_ok(), "unknown memory is not refused");
        // The same vote at the episode's budget of 1,024 tokens fits.
        let small = shape.estimate_sequences("m.gguf".into(), 100 << 20, 1_024, 64);
        assert!(check_memory(64, 1_024, &small, Some(16 << 30)).is_ok());
    }
}
