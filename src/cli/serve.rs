//! `sqale serve`: the HTTP API and web page; what it shares with `sqale mcp` (`ServiceArgs`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use sqale::agent::Settings;
use sqale::serve::conn::{ConnectionLimits, DEFAULT_HEADER_TIMEOUT};
use sqale::serve::host::HostPolicy;
use sqale::serve::state::{AppState, RequestLimits};
use sqale::serve::{Databases, Service, ServiceOptions};

use super::{ModelArgs, ServerArgs};

/// What `serve` and `mcp` share: the model (in-process or on inference servers), the
/// databases, the episodes.
#[derive(Args, Debug)]
pub struct ServiceArgs {
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    server: ServerArgs,
    /// A database to answer over, as NAME=PATH (repeat for several): a SQLite file, or a data
    /// file (.csv, .tsv, .jsonl, .parquet) or a folder of them, imported into a private cached
    /// database. Requests name it by NAME only. Default: the demo database, as `demo`.
    #[arg(long = "db", value_name = "NAME=PATH")]
    dbs: Vec<String>,
    /// Seconds an episode may run before it is cancelled.
    #[arg(long, default_value_t = 600.0)]
    episode_timeout: f64,
    /// Token budget of an episode that asks for none (at most --ctx).
    #[arg(long, default_value_t = sqale::defaults::MAX_EPISODE_TOKENS)]
    max_episode_tokens: usize,
    /// Seconds a statement may run before it is stopped.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    pub(super) sql_timeout: f64,
    #[command(flatten)]
    call: super::CallArgs,
    /// Use SYSTEM_PROMPT and USER_TEMPLATE from the reference loop sqale_agent.py.
    #[arg(long)]
    prompt_from: Option<PathBuf>,
}

/// Arguments of `sqale serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub(crate) service: ServiceArgs,
    /// Episodes at once: sequences of one context (each of --ctx tokens), or with --server
    /// episodes in flight on the servers.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Requests that may wait for a sequence; more are answered 503 with Retry-After.
    #[arg(long, default_value_t = 16)]
    queue: usize,
    /// Address to listen on. Anything but loopback needs --api-key-file.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// A file holding the API key callers of this service must send as 'Authorization: Bearer
    /// KEY' (the inference servers' own key is --server-api-key-file).
    #[arg(long)]
    api_key_file: Option<PathBuf>,
    /// Seconds running episodes get to finish after SIGTERM before they are cancelled.
    #[arg(long, default_value_t = 30.0)]
    shutdown_grace: f64,
    /// Characters a question may have.
    #[arg(long, default_value_t = RequestLimits::default().max_question_chars)]
    max_question_chars: usize,
    /// Bytes a request body may have.
    #[arg(long, default_value_t = RequestLimits::default().max_body_bytes)]
    max_body_bytes: usize,
    /// Seconds a client has to send a request's line and headers, counted from when its
    /// connection opens or its previous response ended: also how long an idle keep-alive
    /// connection stays open. Never cuts an answer or an event stream under way.
    #[arg(long, visible_alias = "idle-timeout", value_name = "SECONDS", default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs_f64())]
    header_timeout: f64,
    /// Seconds a request's whole body has to arrive in, once its headers have (408 otherwise).
    #[arg(long, value_name = "SECONDS", default_value_t = RequestLimits::default().body_timeout.as_secs_f64())]
    body_timeout: f64,
    /// Connections open at once (default: 1024, or fewer when the open-file limit, ulimit -n,
    /// leaves fewer once files are kept for episodes). At the cap, a new connection replaces
    /// the one quiet longest (no request under way).
    #[arg(long, value_name = "N")]
    max_connections: Option<usize>,
    /// A name requests may call this server by (the Host header), besides its IP addresses and
    /// localhost: refusing other names stops web pages reaching it by DNS rebinding. Repeat for
    /// several; '*' allows any name.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
}

/// How long a server whose engine failed goes on answering before it exits: requests under way
/// get their answers, new ones a 503 that says why, and `/health` says "failed" to whoever
/// watches it. `sqale serve` then closes its connections, taking at most as long again.
pub(super) const DRAIN_AFTER_FAILURE: Duration = Duration::from_secs(1);

fn seconds(flag: &str, s: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(s.is_finite() && s >= 0.0, "{flag} must be a number of seconds, got {s}");
    Ok(Duration::from_secs_f64(s))
}

/// A time limit that must be more than zero (and at most a day).
fn limit(flag: &str, s: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(
        s.is_finite() && s > 0.0 && s <= 86_400.0,
        "{flag} must be a number of seconds above 0 (and at most 86400), got {s}"
    );
    Ok(Duration::from_secs_f64(s))
}

impl ServiceArgs {
    pub(super) fn databases(&self) -> anyhow::Result<Databases> {
        let list = if self.dbs.is_empty() {
            vec![("demo".to_string(), super::db_or_demo(None)?)]
        } else {
            self.dbs.iter().map(|s| sqale::serve::databases::parse_spec(s)).collect::<Result<Vec<_>, _>>()?
        };
        Ok(Databases::open(list)?)
    }

    /// Starts the episode service with `slots` episodes at once: on the model loaded here, or
    /// on the inference servers given.
    pub(super) fn start(&self, slots: usize, queue: usize) -> anyhow::Result<Service> {
        anyhow::ensure!(slots >= 1, "--parallel must be at least 1");
        // On servers, no local model (nor the default model's download).
        let local = if self.server.any() { None } else { Some(self.model.model_path()?) };
        let pulled_prompt = local.as_ref().and_then(|(_, p)| p.as_deref());
        let prompt = sqale::agent::choose_prompt(self.prompt_from.as_deref(), pulled_prompt)?;
        let settings = Settings {
            prompt,
            limits: super::limits(self.sql_timeout)?,
            calls: self.call.calls,
            thought_chars: self.call.max_thought_chars as usize,
            ..Settings::default()
        };
        let options = ServiceOptions {
            slots,
            queue,
            episode_timeout: seconds("--episode-timeout", self.episode_timeout)?,
            settings,
        };
        let Some((model_path, _)) = local else {
            let pool = self.server.pool(false)?;
            eprintln!("running {slots} episode(s) at once on {}", pool.label());
            let sampling = self.model.engine.sampling.remote();
            return Ok(Service::start_remote(pool, sampling, options, self.max_episode_tokens)?);
        };
        eprintln!("loading {} ({slots} sequence(s) of {} tokens)", model_path.display(), self.model.engine.ctx);
        let service = Service::start(
            model_path,
            self.model.model_options(),
            self.model.engine.engine_options(),
            options,
            self.max_episode_tokens,
        )?;
        Ok(service)
    }
}

pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    // Two threads are plenty: the HTTP side waits; llama.cpp's threads do the work.
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("starting tokio")
}

/// SIGTERM or Ctrl-C.
async fn stop_signal() {
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term => {},
    }
}

fn api_key(file: Option<&PathBuf>, addr: SocketAddr) -> anyhow::Result<Option<String>> {
    let key = match file {
        Some(f) => {
            let k = sqale::secret::read_key_file(f)
                .with_context(|| format!("reading the API key from --api-key-file {}", f.display()))?;
            anyhow::ensure!(!k.is_empty(), "--api-key-file {} is empty: put a long random key in it", f.display());
            Some(k)
        }
        None => None,
    };
    anyhow::ensure!(
        addr.ip().is_loopback() || key.is_some(),
        "--listen {addr} is reachable from other machines: give --api-key-file with a key callers must send (or listen on 127.0.0.1)"
    );
    Ok(key)
}

pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let addr: SocketAddr = args
        .listen
        .parse()
        .with_context(|| format!("--listen {:?} is not an address:port such as 127.0.0.1:8080", args.listen))?;
    let key = api_key(args.api_key_file.as_ref(), addr)?;
    let grace = seconds("--shutdown-grace", args.shutdown_grace)?;
    let header_timeout = limit("--header-timeout", args.header_timeout)?;
    let body_timeout = limit("--body-timeout", args.body_timeout)?;
    let hosts = HostPolicy::new(&args.allow_hosts)?;
    anyhow::ensure!(!matches!(args.max_connections, Some(0 | 1)), "--max-connections must be at least 2");
    let databases = args.service.databases()?;
    let rt = runtime()?;
    // Bind before loading the model: a busy port fails at once.
    let listener = rt.block_on(tokio::net::TcpListener::bind(addr)).with_context(|| {
        format!("cannot listen on {addr} (is another server on that port? choose one with --listen)")
    })?;
    let local = listener.local_addr().context("reading the listening address")?;
    let service = Arc::new(args.service.start(args.parallel, args.queue)?);
    // Counted once the model, the databases and the workers hold their files.
    let max_connections = sqale::serve::conn::auto_max_connections(args.max_connections, args.parallel)?;
    let names = databases.names();
    let mut state = AppState::new(service.clone(), databases);
    state.api_key = key;
    state.limits = RequestLimits {
        max_body_bytes: args.max_body_bytes,
        max_question_chars: args.max_question_chars,
        body_timeout,
        ..RequestLimits::default()
    };
    state.hosts = hosts;
    if let Some(prompt) = &args.service.prompt_from {
        let name = prompt.file_name().map_or_else(|| "the prompt file".into(), |n| n.to_string_lossy().into_owned());
        state.redact.add(prompt, &name);
    }
    let state = Arc::new(state);
    let connections = ConnectionLimits { header_timeout, max_connections };
    if !addr.ip().is_loopback() && state.hosts != HostPolicy::Any && args.allow_hosts.is_empty() {
        eprintln!(
            "sqale serve: requests must call this server by an IP address or localhost; give the names clients use with --allow-host NAME"
        );
    }
    eprintln!(
        "sqale serve: listening on http://{local}/ ({} sequence(s), queue {}, databases: {names}; at most {max_connections} connections)",
        args.parallel, args.queue
    );
    let svc = service.clone();
    let shutdown = async move {
        tokio::select! {
            _ = stop_signal() => {
                eprintln!("sqale serve: shutting down (queued requests get 503; running episodes get {grace:?} to finish)");
                svc.begin_shutdown(grace);
            }
            error = svc.failed() => {
                eprintln!("sqale serve: the engine failed: {error}; stopping, for a supervisor to start it again");
                tokio::time::sleep(DRAIN_AFTER_FAILURE).await;
            }
        }
    };
    let serving = sqale::serve::http::serve(listener, state, connections, shutdown);
    let svc = service.clone();
    rt.block_on(async move {
        tokio::select! {
            served = serving => served,
            // Requests under way have their answers by now; a client still reading is cut off.
            _ = async { svc.failed().await; tokio::time::sleep(2 * DRAIN_AFTER_FAILURE).await } => Ok(()),
        }
    })
    .context("serving HTTP")?;
    if let Some(error) = service.failure() {
        anyhow::bail!("the engine failed: {error} (after {} episode(s))", service.metrics().episodes());
    }
    service.shutdown(grace);
    eprintln!("sqale serve: stopped after {} episode(s)", service.metrics().episodes());
    Ok(())
}
