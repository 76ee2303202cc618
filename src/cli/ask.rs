//! `sqale ask`: one question, or (without one) a session that keeps the model loaded and answers
//! question after question.

mod asker;
mod command;
mod output;
mod rows;
mod session;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use sqale::agent::{Agent, Settings};
use sqale::answer::decimal;
use sqale::engine::Engine;

use super::ModelArgs;
use asker::{Asker, Backend, Notes, Options};
pub use output::Format;

/// Arguments of `sqale ask`.
#[derive(Args, Debug)]
#[command(after_help = "\
Without a question, on a terminal: a session that keeps the model loaded (/help lists its commands,
Ctrl-C stops the running episode, Ctrl-D quits). With standard input not a terminal: one question a
line, one answer each (JSON Lines with --json).

Exit status: 0 the episode answered (a query was submitted and its rows read), 1 it ended without
an answer or its query does not run (standard input: some question's), 2 an error.")]
pub struct AskArgs {
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    server: super::ServerArgs,
    /// SQLite database (default: the demo database that ships with sqale).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Evidence (a hint) given with the question, as in BIRD.
    #[arg(long)]
    evidence: Option<String>,
    /// Show the episode as it happens (on stderr).
    #[arg(long)]
    trace: bool,
    /// How to print the answer: `table` (the SQL and its first rows), `csv` (the rows), `json`
    /// (the whole episode and its rows) or `sql` (the SQL alone).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Print the whole episode and its rows as JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Use SYSTEM_PROMPT and USER_TEMPLATE from the reference loop sqale_agent.py.
    #[arg(long)]
    prompt_from: Option<PathBuf>,
    /// Sampling seed (default: random; the seed used is reported).
    #[arg(long)]
    seed: Option<u32>,
    /// Tokens the whole episode may hold, prompt included.
    #[arg(long, default_value_t = sqale::defaults::MAX_EPISODE_TOKENS)]
    max_episode_tokens: usize,
    /// Seconds a statement may run before it is stopped.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    sql_timeout: f64,
    /// The question (none: a session, see below).
    question: Option<String>,
}

pub fn run(args: AskArgs) -> anyhow::Result<ExitCode> {
    let db = super::db_or_demo(args.db.clone())?;
    // Fail on a bad database before spending time on the model.
    sqale::env::Environment::open(&db)?;
    let format = if args.json { Format::Json } else { args.format };
    // On a server, no local model (nor the default model's download).
    let local = if args.server.any() { None } else { Some(args.model.model_path()?) };
    let pulled_prompt = local.as_ref().and_then(|(_, p)| p.as_deref());
    let prompt = sqale::agent::choose_prompt(args.prompt_from.as_deref(), pulled_prompt)?;
    let limits = super::limits(args.sql_timeout)?;
    let settings =
        Settings { prompt, max_episode_tokens: args.max_episode_tokens, limits: limits.clone(), ..Settings::default() };
    let options = Options { db, evidence: args.evidence.clone(), trace: args.trace, seed: args.seed, format };
    let sampling = &args.model.engine.sampling;
    let backend = |model: String, servers, ctx| Backend {
        model,
        servers,
        ctx,
        temperature: decimal(sampling.temp),
        top_p: decimal(sampling.top_p),
        top_k: sampling.top_k,
        limits: limits.clone(),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    if let Some((model_path, _)) = &local {
        let model = args.model.load_path(model_path)?;
        // One question has no use for the prompt snapshot in memory; a session restores it for
        // each. The first episode of either restores the system turn from the disk cache.
        let keep_prefix = args.question.is_none();
        let mut engine =
            Engine::new(&model, sqale::engine::EngineOptions { keep_prefix, ..args.model.engine.lone_options() })?;
        engine.set_cancel(Some(cancel.clone()));
        let backend = backend(model.path().display().to_string(), None, args.model.engine.ctx as usize);
        drive(Asker::new(Agent::new(engine, settings), backend, cancel), options, args.question)
    } else {
        let pool = args.server.pool(format == Format::Json)?;
        let mut generator = sqale::remote::RemoteGenerator::new(&pool, sampling.remote());
        generator.set_cancel(Some(cancel.clone()));
        let servers = serde_json::to_value(pool.servers()).context("describing the servers")?;
        let backend = backend(pool.label(), Some(servers), pool.context());
        drive(Asker::new(Agent::new(generator, settings), backend, cancel), options, args.question)
    }
}

/// One question, or a session: on a terminal, interactive; else a question a line.
fn drive<G: sqale::generate::Generator + Notes>(
    mut asker: Asker<G>,
    mut options: Options,
    question: Option<String>,
) -> anyhow::Result<ExitCode> {
    match question {
        Some(q) => {
            let answer = asker.ask(&q, &options)?;
            output::print(&answer, &options, output::Mode::Person)?;
            Ok(exit_code(answer.has_rows()))
        }
        None if std::io::stdin().is_terminal() => session::interactive(&mut asker, &mut options),
        None => session::lines(&mut asker, &mut options),
    }
}

/// 0 when answered (its rows read), 1 when not (errors are 2, from `main`).
fn exit_code(answered: bool) -> ExitCode {
    if answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
