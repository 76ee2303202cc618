//! `ask --vote K`'s answer: the winner's answer printed as `ask` prints one (its rows in the
//! chosen format, its summary on stderr), then how the vote went on stderr; without a winner, no
//! answer, said so. JSON: `ask --json`'s object of the winner, with the vote and every episode.

use anyhow::Context;
use serde_json::Value;
use sqale::answer::Answer;
use sqale::printable::escape_line;
use sqale::vote::{Tier, Voted};

use super::asker::{Backend, Options};
use super::output::{self, Format, Mode};

/// Prints the vote's answer; whether there is one (a winner whose rows were read).
pub fn print(voted: &Voted, seed: u32, backend: &Backend, options: &Options) -> anyhow::Result<bool> {
    let vote = &voted.vote;
    // Without a winner, the answer's fields are filled from episode 0 and then emptied below.
    let episode = voted.episodes[vote.winner.unwrap_or(0)].clone();
    let mut answer = Answer {
        model: backend.model.clone(),
        servers: backend.servers.clone(),
        ctx: voted.ctx,
        temperature: backend.temperature,
        top_p: backend.top_p,
        top_k: backend.top_k,
        db: options.db.display().to_string(),
        episode,
        rows: None,
        rows_error: None,
        chart: None,
    };
    if vote.winner.is_some() {
        answer.read_rows(&options.db, &backend.limits);
    }
    let answered = vote.winner.is_some() && answer.has_rows();
    if options.format == Format::Json {
        output::print_json(&json(&answer, voted, seed)?, Mode::Person)?;
        return Ok(answered);
    }
    match vote.winner {
        Some(_) => output::print(&answer, options, Mode::Person)?,
        None => output::print_none(&format!("({})", vote.summary()), options.format, Mode::Person)?,
    }
    eprint!("{}", lines(voted, seed));
    Ok(answered)
}

/// `ask --json`'s object of `answer` (the winner's; `episode` and `rows` null without a winner),
/// with `seed` (the first episode's), `vote` (with its `summary`) and `episodes`.
fn json(answer: &Answer, voted: &Voted, seed: u32) -> anyhow::Result<Value> {
    let mut value = serde_json::to_value(answer).context("serialising the answer")?;
    let mut vote = serde_json::to_value(&voted.vote).context("serialising the vote")?;
    let (Some(obj), Some(vote_obj)) = (value.as_object_mut(), vote.as_object_mut()) else {
        anyhow::bail!("an answer and a vote serialise as JSON objects");
    };
    if voted.vote.winner.is_none() {
        obj.insert("episode".into(), Value::Null);
        obj.insert("rows".into(), Value::Null);
        obj.remove("rows_error");
        obj.remove("chart");
    }
    vote_obj.insert("summary".into(), voted.vote.summary().into());
    obj.insert("seed".into(), seed.into());
    obj.insert("vote".into(), vote);
    obj.insert("episodes".into(), serde_json::to_value(&voted.episodes).context("serialising the episodes")?);
    Ok(value)
}

/// How the vote went, for stderr: its summary and seeds, then a line per episode (what its
/// answer did, and its group).
fn lines(voted: &Voted, seed: u32) -> String {
    let vote = &voted.vote;
    let last = seed.wrapping_add(vote.of.saturating_sub(1) as u32);
    let mut s = match vote.winner {
        Some(w) => format!(
            "vote: {} · the answer is episode {}'s (seed {}) · seeds {seed} to {last}\n",
            vote.summary(),
            w + 1,
            voted.episodes[w].seed
        ),
        None => format!("vote: {} · seeds {seed} to {last}\n", vote.summary()),
    };
    for b in &vote.ballots {
        let e = &voted.episodes[b.episode];
        let what = match (b.tier, &b.error) {
            (Tier::Rows, _) => "its query returns rows".to_string(),
            (Tier::Runs, _) => "its query returns no rows".to_string(),
            (_, None) => "no answer".to_string(),
            (_, Some(err)) if e.sql.is_none() => escape_line(err).into_owned(),
            (_, Some(err)) => format!("its query does not run: {}", escape_line(err)),
        };
        let calls = if e.tool_calls == 1 { "call" } else { "calls" };
        s.push_str(&format!(
            "  episode {} · seed {} · ended_by {} · {} {calls} · {what} · group {}\n",
            b.episode + 1,
            e.seed,
            e.ended_by,
            e.tool_calls,
            b.group + 1
        ));
    }
    s
}
