//! `sqale ask`: one question, or (without one) a session that keeps the model loaded and answers
//! question after question.

mod asker;
mod command;
mod output;
mod rows;
mod session;
mod vote;

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
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    server: super::ServerArgs,
    /// SQLite database, or a data file (.csv, .tsv, .jsonl, .parquet) or a folder of them,
    /// imported into a private cached database (default: the demo database that ships with
    /// sqale).
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
    /// No text bar chart under the table (drawn when the rows are a label and numbers and stdout
    /// is a terminal).
    #[arg(long)]
    no_chart: bool,
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
    #[command(flatten)]
    call: super::CallArgs,
    /// Run K sampled episodes of the question, batched in one context, each with its own seed
    /// (the seed, the seed + 1, ...), and answer with the query whose result set most of them
    /// agree on (docs/constrained-calls.md, "Voting").
    #[arg(long, value_name = "K")]
    vote: Option<usize>,
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
    let settings = Settings {
        prompt,
        max_episode_tokens: args.max_episode_tokens,
        limits: limits.clone(),
        calls: args.call.calls,
        thought_chars: args.call.max_thought_chars as usize,
        ..Settings::default()
    };
    let options = Options {
        db,
        evidence: args.evidence.clone(),
        trace: args.trace,
        seed: args.seed,
        format,
        chart: !args.no_chart,
    };
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
    if let Some(k) = args.vote {
        let model_path = local.as_ref().map(|(p, _)| p.clone());
        return vote(&args, k, model_path, settings, options, |model, ctx| backend(model, None, ctx));
    }
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

/// `ask --vote K`: K episodes batched from the shared prompt snapshot, each in a sequence of
/// the episode's budget, then the vote; refused before the model loads when the sequences do
/// not fit one context or the machine's available memory. `backend(model, ctx)` describes the
/// model for the answer.
fn vote(
    args: &AskArgs,
    k: usize,
    model_path: Option<PathBuf>,
    settings: Settings,
    options: Options,
    backend: impl FnOnce(String, usize) -> Backend,
) -> anyhow::Result<ExitCode> {
    if k == 0 {
        anyhow::bail!("--vote 0 runs no episode; pass --vote 1 or more (5 is a usual choice), or leave it out");
    }
    let Some(question) = args.question.as_deref() else {
        anyhow::bail!("--vote needs a question: pass it after the flags");
    };
    let Some(model_path) = model_path else {
        anyhow::bail!(
            "--vote batches its episodes in one in-process context; leave out --server, or ask several times"
        );
    };
    let engine = args.model.engine.engine_options();
    // Each sequence holds one episode: --max-episode-tokens, at most --ctx (as `eval --vote`).
    let ctx = sqale::eval::sequence_context(engine.ctx, settings.max_episode_tokens);
    if let Err(e) = sqale::vote::check_size(k, ctx) {
        let fix = if k > sqale::vote::MAX_VOTES {
            format!("pass --vote {} or fewer", sqale::vote::MAX_VOTES)
        } else {
            "pass a smaller --vote or --max-episode-tokens (each episode's sequence holds --max-episode-tokens, at most --ctx)".to_string()
        };
        anyhow::bail!("--vote {k}: {e}; {fix}");
    }
    // The memory of all the sequences, from the file's metadata: before the weights load.
    let sequences = u32::try_from(k).context("--vote")?;
    let estimate = sqale::memory::estimate_file(&model_path, engine.kv_type, ctx, sequences)?;
    let available = sqale::memory::machine().map(|m| m.available);
    if let Err(e) = sqale::vote::check_memory(k, ctx, &estimate, available) {
        anyhow::bail!(
            "--vote {k}: {e}; pass a smaller --vote, or a smaller --max-episode-tokens (each episode's KV cache holds that many tokens)"
        );
    }
    let model = args.model.load_path(&model_path)?;
    let seed = options.seed.unwrap_or_else(sqale::agent::random_seed);
    let settings = Settings { seed, ..settings };
    let voted = sqale::vote::run(&model, engine, &settings, k, question, options.evidence.as_deref(), &options.db)
        .with_context(|| format!("--vote {k} (each episode has {ctx} tokens)"))?;
    let backend = backend(model.path().display().to_string(), voted.ctx);
    let answered = vote::print(&voted, seed, &backend, &options)?;
    Ok(exit_code(answered))
}
