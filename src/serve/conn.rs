//! The connections of `sqale serve`: how many at once, and how long a client may take.
//!
//! `axum::serve` sets hyper no timer, so a client that opens a connection and sends half a
//! request (or nothing, or nothing more after a response) holds it, and its file descriptor,
//! for ever; enough of them and the process can open no file: no connection, and no database
//! for an episode. Here the accept loop is hyper's own HTTP/1 connection with:
//!
//! - **a header timeout** (hyper's `header_read_timeout`, on tokio's timer): a request's line
//!   and headers must arrive within it. hyper starts the clock when it begins waiting for a
//!   request: when the connection opens and again when a response ends, so the same time is
//!   also how long an idle keep-alive connection stays open. It does not run while a request
//!   is answered: a long answer or a stream of server-sent events is never cut by it.
//! - **a cap on connections** ([`ConnectionLimits::max_connections`]; by default derived from the
//!   open-file limit, [`auto_max_connections`]). A connection over the cap takes the place of
//!   the one that has been quiet longest (open with no request under way: a stalled or idle
//!   client), which is closed; when every connection has a request under way, the new one
//!   waits until one ends, and later ones wait in the kernel's backlog. So stalled clients can
//!   never keep out `/health` or a real request.
//!
//! The request body's time limit is the router's (`state::RequestLimits::body_timeout`): hyper
//! has none. How the client's side is read and written (a client that closes its sending side,
//! one that left, hyper's own error answers) is [`super::client`].

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::Router;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{Notify, Semaphore};
use tokio::task::AbortHandle;

use super::client::{Client, ClientIo, ClientSide, WatchedBody};

/// Bounds on connections.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Time a client has to send a request's line and headers, counted from when the
    /// connection opens or its previous response ended (so also the keep-alive idle timeout).
    pub header_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
}

/// Default of [`ConnectionLimits::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections [`auto_max_connections`] gives, however high the open-file limit: far
/// more than a service of a few episodes at once needs.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// Bytes of a request's line and headers (hyper answers 431 beyond it).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Headers of a request (hyper answers 431 beyond it).
pub const MAX_HEADERS: usize = 100;

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits { header_timeout: DEFAULT_HEADER_TIMEOUT, max_connections: DEFAULT_MAX_CONNECTIONS }
    }
}

/// File descriptors kept for everything but connections, for `parallel` episodes at once:
/// per episode its SQLite file, its answer's (while the rows are read) and, on inference
/// servers, its worker's connection; 8 more for the rest (measured: a server with two
/// episodes running and their two clients held 16 files, 12 of them before any request).
pub fn reserved_files(parallel: usize) -> u64 {
    8 + 3 * parallel as u64
}

/// The soft open-file limit (RLIMIT_NOFILE), when there is one.
pub fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit only writes the struct it is given, which lives through the call.
        let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) };
        if rc == 0 && r.rlim_cur != libc::RLIM_INFINITY {
            // rlim_t is u64 on Linux and macOS, not everywhere.
            #[allow(clippy::useless_conversion)]
            return u64::try_from(r.rlim_cur).ok();
        }
        None
    }
    #[cfg(not(unix))]
    None
}

/// Files this process has open now (`None` where the system does not say).
pub fn open_files() -> Option<u64> {
    for dir in ["/proc/self/fd", "/dev/fd"] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            // Less the directory being read.
            return Some((entries.count() as u64).saturating_sub(1));
        }
    }
    None
}

/// Why there is no room for connections.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CapError {
    /// The open-file limit leaves too few files for connections.
    #[error(
        "the open-file limit (ulimit -n) is {limit}, with {open} files open and {reserved} kept for episodes: \
         that leaves {room} for connections, and the server needs at least 2 (and allows --max-connections \
         {wanted}); raise the limit (e.g. ulimit -n 4096) or lower --max-connections"
    )]
    TooFewFiles {
        /// The soft limit.
        limit: u64,
        /// Files open now.
        open: u64,
        /// Files kept for the rest.
        reserved: u64,
        /// What is left.
        room: u64,
        /// The cap asked for (or the default).
        wanted: usize,
    },
}

/// The connection cap: `wanted` (or [`DEFAULT_MAX_CONNECTIONS`]), but never more than the
/// open-file limit leaves once the files open now and [`reserved_files`] are set aside, so
/// that connections alone can never use up the process's files.
pub fn auto_max_connections(wanted: Option<usize>, parallel: usize) -> Result<usize, CapError> {
    let want = wanted.unwrap_or(DEFAULT_MAX_CONNECTIONS);
    let (Some(limit), Some(open)) = (open_file_limit(), open_files()) else {
        return Ok(want.max(2));
    };
    let reserved = reserved_files(parallel);
    // One more for the connection the accept loop may hold while it makes room.
    let room = limit.saturating_sub(open + reserved + 1);
    let room_usize = usize::try_from(room).unwrap_or(usize::MAX);
    if room < 2 || (wanted.is_some() && want > room_usize) {
        return Err(CapError::TooFewFiles { limit, open, reserved, room, wanted: want });
    }
    Ok(want.min(room_usize).max(2))
}

/// Connection counters, for `/metrics`.
#[derive(Debug, Default)]
pub struct ConnectionStats {
    /// Connections open now.
    pub open: AtomicUsize,
    /// The cap.
    pub limit: AtomicUsize,
    /// Quiet connections closed to make room for a new one.
    pub evicted: AtomicU64,
    /// Connections accepted.
    pub accepted: AtomicU64,
}

impl ConnectionStats {
    /// The Prometheus text of these counters.
    pub fn render(&self) -> String {
        let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        format!(
            "# HELP sqale_connections_open HTTP connections open.\n# TYPE sqale_connections_open gauge\nsqale_connections_open {}\n\
             # HELP sqale_connections_limit Connections that may be open at once (--max-connections).\n# TYPE sqale_connections_limit gauge\nsqale_connections_limit {}\n\
             # HELP sqale_connections_accepted_total HTTP connections accepted.\n# TYPE sqale_connections_accepted_total counter\nsqale_connections_accepted_total {}\n\
             # HELP sqale_connections_evicted_total Quiet connections closed to make room for a new one at the cap.\n# TYPE sqale_connections_evicted_total counter\nsqale_connections_evicted_total {}\n",
            get(&self.open),
            get(&self.limit),
            self.accepted.load(Ordering::Relaxed),
            self.evicted.load(Ordering::Relaxed),
        )
    }
}

/// One open connection, as the accept loop sees it.
struct Tracked {
    /// Its client: the requests under way, its input.
    client: Arc<Client>,
    /// When it last became quiet (no request under way), in ms since the loop started.
    quiet_since: AtomicU64,
}

/// Each open connection by id, with what closes it (once its task is running; taken when it is
/// chosen to make room).
type Conns = HashMap<u64, (Arc<Tracked>, Option<AbortHandle>)>;

/// The open connections, to choose which quiet one makes room.
struct Registry {
    start: Instant,
    conns: Mutex<Conns>,
    /// Woken whenever a connection becomes quiet.
    quiet: Notify,
    stats: Arc<ConnectionStats>,
}

impl Registry {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Conns> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes the connection that has been quiet longest (each at most once); returns whether
    /// there was one.
    fn evict_quietest(&self) -> bool {
        let mut conns = self.lock();
        let victim = conns
            .iter()
            .filter(|(_, (t, abort))| abort.is_some() && t.client.busy.load(Ordering::SeqCst) == 0)
            .min_by_key(|(_, (t, _))| t.quiet_since.load(Ordering::Relaxed))
            .map(|(id, _)| *id);
        let abort = victim.and_then(|id| conns.get_mut(&id)).and_then(|entry| entry.1.take());
        drop(conns);
        match abort {
            Some(abort) => {
                abort.abort();
                self.stats.evicted.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

/// Removes a connection from the registry when its task ends (or is aborted).
struct Registration {
    id: u64,
    registry: Arc<Registry>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry.lock().remove(&self.id);
        self.registry.stats.open.fetch_sub(1, Ordering::Relaxed);
        self.registry.quiet.notify_one();
    }
}

/// A request under way on a connection: dropped when its response's body has been sent (or
/// the request was abandoned), making the connection quiet again.
struct Busy {
    tracked: Arc<Tracked>,
    registry: Arc<Registry>,
}

impl Busy {
    fn start(tracked: &Arc<Tracked>, registry: &Arc<Registry>) -> Busy {
        tracked.client.request_started();
        Busy { tracked: tracked.clone(), registry: registry.clone() }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.tracked.quiet_since.store(self.registry.now_ms(), Ordering::Relaxed);
        if self.tracked.client.request_ended() {
            self.registry.quiet.notify_one();
        }
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves; then stops
/// accepting, closes idle connections, and waits for the requests under way (each bounded by
/// the episode time limit). `stats` receives the connection counters.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: ConnectionLimits,
    stats: Arc<ConnectionStats>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let cap = limits.max_connections.max(1);
    stats.limit.store(cap, Ordering::Relaxed);
    let permits = Arc::new(Semaphore::new(cap));
    let registry =
        Arc::new(Registry { start: Instant::now(), conns: Mutex::new(HashMap::new()), quiet: Notify::new(), stats });
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(MAX_HEADER_BYTES)
        .max_headers(MAX_HEADERS);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut next_id = 0u64;
    loop {
        let stream = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of files, or a connection reset before it was accepted: the loop
                    // goes on (the cap keeps the first rare).
                    eprintln!("sqale serve: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(p) => p,
            // At the cap: close the quietest connection, or wait until one is quiet or gone.
            Err(_) => {
                let mut closing = registry.evict_quietest();
                loop {
                    tokio::select! {
                        biased;
                        p = permits.clone().acquire_owned() => match p {
                            Ok(p) => break p,
                            Err(_) => return Ok(()),
                        },
                        () = registry.quiet.notified(), if !closing => closing = registry.evict_quietest(),
                        () = &mut shutdown => {
                            drop(listener);
                            graceful.shutdown().await;
                            return Ok(());
                        }
                    }
                }
            }
        };
        next_id += 1;
        let id = next_id;
        let client = Arc::new(Client::default());
        let tracked = Arc::new(Tracked { client: client.clone(), quiet_since: AtomicU64::new(registry.now_ms()) });
        registry.lock().insert(id, (tracked.clone(), None));
        registry.stats.open.fetch_add(1, Ordering::Relaxed);
        registry.stats.accepted.fetch_add(1, Ordering::Relaxed);
        let registration = Registration { id, registry: registry.clone() };
        let service = tracked_service(router.clone(), tracked, registry.clone());
        let io = TokioIo::new(ClientIo::new(stream, client));
        let connection = graceful.watch(builder.serve_connection(io, service));
        let task = tokio::spawn(async move {
            let _held = (permit, registration);
            // A client that stalled, reset or timed out: nothing to answer.
            let _ = connection.await;
        });
        if let Some(entry) = registry.lock().get_mut(&id) {
            entry.1 = Some(task.abort_handle());
        }
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// `router` as one connection's hyper service, marking the connection busy from each request's
/// head to the end of its response's body; each request's body is watched for the client's input
/// ending ([`WatchedBody`]), and each request carries its connection's [`ClientSide`].
fn tracked_service(
    router: Router,
    tracked: Arc<Tracked>,
    registry: Arc<Registry>,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = hyper::Response<Body>,
    Error = Infallible,
    Future = impl Future<Output = Result<hyper::Response<Body>, Infallible>> + Send,
> + Clone {
    let inner = TowerToHyperService::new(router);
    hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let busy = Busy::start(&tracked, &registry);
        let client = tracked.client.clone();
        let mut request = request.map(|body| WatchedBody::new(body, client.clone()));
        request.extensions_mut().insert(ClientSide(client));
        let response = hyper::service::Service::call(&inner, request);
        async move {
            let response = response.await?;
            // The guard goes with the body: hyper drops the body once it is sent.
            Ok(response.map(|body| {
                Body::new(body.map_frame(move |frame| {
                    let _ = &busy;
                    frame
                }))
            }))
        }
    })
}
