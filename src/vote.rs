//! Voting over sampled episodes of one question (docs/constrained-calls.md, "Voting").
//!
//! Every episode's answer is executed read-only, in the same guarded environment as any query
//! of the model (a query that writes is refused there, and counts as one that does not run).
//! The result sets are grouped by the scorer's equality rule ([`crate::eval::score::same_set`]).
//! The largest group wins; a tie goes to the reward's tiers (runs and returns rows, then runs,
//! then parses), then to the earliest episode. The winner is the group's earliest episode.

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
    /// The winning episode, `None` when there was none to vote on.
    pub winner: Option<usize>,
    /// Episodes in the winning group.
    pub agree: usize,
    /// Episodes voting.
    pub of: usize,
    /// Every group, largest first (ties as decided).
    pub groups: Vec<Group>,
    /// One ballot per episode, in episode order.
    pub ballots: Vec<Ballot>,
}

impl Vote {
    /// `4 of 5 agree`.
    pub fn summary(&self) -> String {
        format!("{} of {} agree", self.agree, self.of)
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
    let winner = sorted.first().map(|g| g.episodes[0]);
    let agree = sorted.first().map_or(0, |g| g.episodes.len());
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
    /// More episodes than one context holds.
    #[error("{asked} episodes do not fit one context: at most {max} sequences, each of {ctx} tokens ({total} tokens in all, at most {limit})")]
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

/// `k` sampled episodes of `question`, batched in one context from the shared prompt snapshot,
/// episode `i` sampled with `seed + i`; then the vote over their answers. The episodes come
/// back in seed order.
pub fn run(
    model: &crate::engine::Model,
    options: crate::engine::EngineOptions,
    settings: &crate::agent::Settings,
    k: usize,
    question: &str,
    evidence: Option<&str>,
    db: &std::path::Path,
) -> Result<(Vec<Episode>, Vote), VoteError> {
    check_size(k, options.ctx)?;
    let mut engine = crate::engine::BatchedEngine::new(model, options, k)?;
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
    Ok((episodes, vote))
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

    #[test]
    fn sizes_are_checked() {
        assert!(matches!(check_size(0, 4096), Err(VoteError::Zero)));
        assert!(check_size(5, 4096).is_ok());
        let e = check_size(300, 4096).unwrap_err().to_string();
        assert!(e.contains("at most 256 sequences"), "{e}");
        assert!(matches!(check_size(200, 1 << 30), Err(VoteError::TooMany { .. })));
    }
}
