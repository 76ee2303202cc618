//! `sqale play`: scripted completions played through the real agent, prompt and environment,
//! with no model. Each line of the script gives a question, its database and the assistant's
//! completions in order; the output is the conversation exactly as the runtime builds it
//! (appended text and completions as segments), with the episode's ending and answer. This is
//! how expert episodes for training are written (scripts/), and how a prompt change is checked
//! against a known conversation.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::Deserialize;
use sqale::agent::{Agent, Settings};
use sqale::generate::ScriptedGenerator;

/// Arguments of `sqale play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// JSON lines: {"id", "db", "question", "completions": [...]} and optionally "evidence";
    /// `db` relative to the file (or `demo`).
    script: PathBuf,
    /// Write the played episodes here (JSON lines; default: standard output). Written to a
    /// temporary file and renamed when every line has played.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Seconds a statement may run before it is stopped.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    sql_timeout: f64,
}

/// The longest line of a script read: one episode's completions.
const MAX_LINE_BYTES: usize = 64 << 20;

/// One line of the script.
#[derive(Deserialize)]
struct Line {
    id: String,
    db: String,
    question: String,
    #[serde(default)]
    evidence: Option<String>,
    completions: Vec<String>,
}

/// Plays every line of the script and writes the episodes, all or nothing. The scripted
/// generator counts tokens as words, so only a token budget's edge can differ from a model's.
pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    use sqale_convert::atomic::{check_output, Input};
    if let Some(out) = &args.out {
        check_output(out, "episodes.jsonl", &[Input::file("the script", &args.script)])?;
    }
    let lines = sqale::regular_file::lines_at_most(&args.script, MAX_LINE_BYTES)
        .with_context(|| format!("cannot read the script {}", args.script.display()))?;
    let base = args.script.parent().unwrap_or(Path::new(".")).to_path_buf();
    let settings = Settings { limits: super::limits(args.sql_timeout)?, ..Settings::default() };
    let mut played = Vec::new();
    let mut databases = Vec::new();
    for (n, line) in lines.enumerate() {
        let line = line.with_context(|| format!("reading the script {}", args.script.display()))?;
        let at = || format!("{} line {}", args.script.display(), n + 1);
        let line = String::from_utf8(line).map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", at()))?;
        if line.trim().is_empty() {
            continue;
        }
        let item: Line = serde_json::from_str(&line)
            .with_context(|| format!("{}: expected {{\"id\", \"db\", \"question\", \"completions\": [...]}}", at()))?;
        let db = if item.db == "demo" { super::db_or_demo(None)? } else { base.join(&item.db) };
        databases.push(db.clone());
        let n_completions = item.completions.len();
        let mut agent = Agent::new(ScriptedGenerator::new(item.completions), settings.clone());
        let episode = agent
            .run_with(&item.question, item.evidence.as_deref(), &db, &mut |_| {})
            .with_context(|| format!("{}: playing {}", at(), item.id))?;
        let left = agent.generator().remaining();
        if left > 0 {
            anyhow::bail!(
                "{}: {} ended by {} after {} of its {n_completions} completions; drop the completions after the episode's end",
                at(),
                item.id,
                episode.ended_by.as_str(),
                n_completions - left
            );
        }
        let segments: Vec<(&str, bool)> = agent.generator().segments().iter().map(|(t, g)| (t.as_str(), *g)).collect();
        played.push(serde_json::to_string(&serde_json::json!({
            "id": item.id,
            "ended_by": episode.ended_by.as_str(),
            "sql": episode.sql,
            "tool_calls": episode.tool_calls,
            "tool_turns": episode.tool_turns,
            "segments": segments,
        }))?);
    }
    match &args.out {
        None => {
            let mut stdout = std::io::stdout().lock();
            for l in &played {
                writeln!(stdout, "{l}")?;
            }
        }
        Some(out) => {
            let inputs: Vec<Input<'_>> = databases.iter().map(|d| Input::file("a database of the script", d)).collect();
            check_output(out, "episodes.jsonl", &inputs)?;
            let mut text = played.join("\n");
            text.push('\n');
            let write = || -> std::io::Result<()> {
                let mut file = sqale_convert::atomic::AtomicFile::create(out)?;
                file.file().write_all(text.as_bytes())?;
                file.commit().map(|_| ())
            };
            write().with_context(|| format!("writing {}", out.display()))?;
            eprintln!("{} episodes played into {}", played.len(), out.display());
        }
    }
    Ok(())
}
