//! `sqale ask`: one question, one episode.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale::agent::{Agent, Settings};
use sqale::engine::Engine;

use super::trace::Tracer;
use super::ModelArgs;

/// Arguments of `sqale ask`.
#[derive(Args, Debug)]
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
    /// Print the whole episode as one JSON object.
    #[arg(long)]
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
    /// The question.
    question: String,
}

pub fn run(args: AskArgs) -> anyhow::Result<()> {
    let db = super::db_or_demo(args.db.clone())?;
    // Fail on a bad database before spending time on the model.
    sqale::env::Environment::open(&db)?;
    // On a server, no local model (nor the default model's download).
    let local = if args.server.any() { None } else { Some(args.model.model_path()?) };
    let pulled_prompt = local.as_ref().and_then(|(_, p)| p.as_deref());
    let prompt = sqale::agent::choose_prompt(args.prompt_from.as_deref(), pulled_prompt)?;
    let seed = args.seed.unwrap_or_else(sqale::agent::random_seed);
    let settings = Settings {
        prompt,
        max_episode_tokens: args.max_episode_tokens,
        seed,
        limits: super::limits(args.sql_timeout)?,
        ..Settings::default()
    };
    let mut tracer = Tracer::new();
    let mut on_event = |e: sqale::agent::Event<'_>| {
        if args.trace {
            tracer.event(e)
        }
    };
    let (episode, label, servers, ctx) = if let Some((model_path, _)) = &local {
        let model = args.model.load_path(model_path)?;
        // One conversation: no snapshot in memory; the prompt cache on disk.
        let engine = Engine::new(&model, args.model.engine.lone_options())?;
        let mut agent = Agent::new(engine, settings);
        let episode = agent.run_with(&args.question, args.evidence.as_deref(), &db, &mut on_event)?;
        super::prompt_cache::print_notes(agent.generator_mut().take_prompt_cache_notes());
        (episode, model.path().display().to_string(), None, args.model.engine.ctx as usize)
    } else {
        let pool = args.server.pool(args.json)?;
        let sampling = args.model.engine.sampling.remote();
        let mut agent = Agent::new(sqale::remote::RemoteGenerator::new(&pool, sampling), settings);
        let episode = agent.run_with(&args.question, args.evidence.as_deref(), &db, &mut on_event)?;
        let servers = serde_json::to_value(pool.servers()).context("describing the servers")?;
        (episode, pool.label(), Some(servers), pool.context())
    };
    if args.json {
        let out = serde_json::json!({
            "model": label,
            "servers": servers,
            "ctx": ctx,
            "temperature": args.model.engine.sampling.temp,
            "top_p": args.model.engine.sampling.top_p,
            "top_k": args.model.engine.sampling.top_k,
            "episode": episode,
        });
        println!("{}", serde_json::to_string_pretty(&out).context("serialising the episode")?);
    } else {
        if args.trace {
            eprintln!();
        }
        match &episode.sql {
            Some(sql) => println!("{sql}"),
            None => println!("(no answer)"),
        }
        let t = &episode.tokens;
        eprintln!(
            "ended_by: {} · {} tool turns, {} calls · {} tokens in context ({} decoded, {} reused, {} generated) · {:.1} s · seed {}",
            episode.ended_by,
            episode.tool_turns,
            episode.tool_calls,
            t.context_tokens,
            t.decoded_tokens,
            t.reused_tokens,
            t.generated_tokens,
            episode.seconds,
            episode.seed
        );
    }
    Ok(())
}
