//! The HTTP API over a [`super::Service`], its router and sqale's own handlers: `POST /v1/ask`
//! (JSON, or server-sent events as the episode happens), `GET /v1/databases`, `GET /health`,
//! `GET /metrics`, the web page at `/`; and the routes to the OpenAI-compatible `GET /v1/models`
//! and `POST /v1/chat/completions` ([`super::openai`]). What both faces share (the state, the
//! limits, the refusals, the answer whole or as events) is in [`super::state`],
//! [`super::refusal`] and [`super::reply`].
//!
//! Built on `axum` (over `tokio` and `hyper`): the Rust stack most used for this, with body
//! limits, server-sent events and graceful shutdown built in; connections are served by
//! [`super::conn`] (timeouts, a cap). Every error is JSON (`{"error": message, "status": code}`),
//! never a panic or a stack trace, and nothing a client is sent names a file of the server's
//! ([`super::redact`]). A request must call the server by a name it answers to ([`HostPolicy`]).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Request as HttpRequest, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::sse::Event;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use serde_json::json;

use super::client::ClientSide;
use super::conn::ConnectionLimits;
use super::databases::valid_name;
use super::events::{Answer, EpisodeEvent};
use super::health::Health;
use super::host::HostPolicy;
use super::openai;
use super::refusal::Refusal;
use super::reply::{self, Shape};
use super::service::{public_name, Request};
use super::state::{AppState, RequestLimits};

/// The web page: one self-contained file (no CDN, no framework).
pub const PAGE: &str = include_str!("page.html");

/// A JSON error response in sqale's own shape ([`Refusal::native_body`]).
fn error(status: StatusCode, message: impl Into<String>) -> Response {
    Refusal::new(status, message).into_response()
}

/// The routes, with their limits, the API key check and the Host check.
pub fn router(state: Arc<AppState>) -> Router {
    // The body is read whole, within its time limit, after the key is checked.
    let ask_route = post(ask).layer(axum::middleware::from_fn_with_state(state.clone(), whole_body));
    let chat_route =
        post(openai::chat_completions).layer(axum::middleware::from_fn_with_state(state.clone(), whole_body));
    let api = Router::new()
        .route("/v1/ask", ask_route)
        .route("/v1/databases", get(databases))
        .route("/v1/models", get(openai::models))
        .route("/v1/models/{name}", get(openai::model))
        .route("/v1/chat/completions", chat_route)
        .route("/metrics", get(metrics))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), authorize));
    Router::new()
        .route("/", get(page))
        .route("/health", get(health))
        .merge(api)
        .fallback(|req: HttpRequest| async move {
            if openai::is_openai_path(req.uri().path()) {
                return openai::unknown_endpoint(req).await;
            }
            error(StatusCode::NOT_FOUND, "no such endpoint: see docs/service.md, \"The HTTP API\"")
        })
        .method_not_allowed_fallback(|| async { error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed here") })
        .layer(DefaultBodyLimit::max(state.limits.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(state.clone(), refuse_large_bodies))
        .layer(axum::middleware::from_fn_with_state(state.clone(), check_host))
        .layer(axum::middleware::from_fn(openai::openai_errors))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error (the server keeps serving)")
        }))
        .with_state(state)
}

/// Compares in time independent of where the strings differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The token of an `Authorization: Bearer TOKEN` value. The scheme's name is case-insensitive
/// and may be followed by several spaces (RFC 9110, 11.1 and 11.4).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once([' ', '\t'])?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// Answers only requests that call the server by a name it answers to (the defence against
/// DNS rebinding: a page on another name that resolves to this machine is refused).
async fn check_host(State(st): State<Arc<AppState>>, req: HttpRequest, next: Next) -> Response {
    // RFC 9112, 3.2: more than one Host is a 400, whatever the names.
    let hosts = req.headers().get_all(header::HOST).iter().count();
    if hosts > 1 {
        return error(
            StatusCode::BAD_REQUEST,
            format!("the request has {hosts} Host headers: send one, the name or address you reached the server by"),
        );
    }
    if st.hosts == HostPolicy::Any {
        return next.run(req).await;
    }
    let header = req.headers().get(header::HOST).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    // An absolute request target (`GET http://name/ HTTP/1.1`) names the server too.
    let target = req.uri().authority().map(|a| a.as_str());
    if header.is_none() && target.is_none() {
        return error(
            StatusCode::BAD_REQUEST,
            "the request has no Host header: send the name or address you reached the server by",
        );
    }
    if let Some(bad) = [header, target].into_iter().flatten().find(|h| !st.hosts.allows(h)) {
        let name = super::host::host_of(bad).unwrap_or(bad);
        let shown: String = name.chars().take(100).collect();
        return error(
            StatusCode::FORBIDDEN,
            format!(
                "this server does not answer to the name {shown:?} (Host: {:?}); it answers to its IP addresses, localhost, and the names given with --allow-host. \
                 If {shown:?} is this server's name, start it with --allow-host {shown} (a web page on a name that merely resolves to this machine is refused, against DNS rebinding)",
                bad.chars().take(100).collect::<String>()
            ),
        );
    }
    next.run(req).await
}

/// The 413 of a body over `--max-body-bytes`; the connection is closed, since the body is not
/// read.
fn too_large(limits: &RequestLimits, what: String) -> Response {
    let mut r = error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body {what} over the limit of {} bytes (the server's --max-body-bytes)",
            limits.max_body_bytes
        ),
    );
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// Answers 413 at once, from its headers alone, a request whose `Content-Length` is over the
/// body limit: waiting for a body that will be refused would hold the connection (and its place
/// under the connection cap) until the body timeout.
async fn refuse_large_bodies(State(st): State<Arc<AppState>>, req: HttpRequest, next: Next) -> Response {
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if let Some(n) = declared.filter(|&n| n > st.limits.max_body_bytes as u64) {
        return too_large(&st.limits, format!("is {n} bytes (its Content-Length),"));
    }
    next.run(req).await
}

/// Reads the whole request body within the body time limit and the size limit, so that a
/// client that sends its head and then stalls holds its connection no longer.
async fn whole_body(State(st): State<Arc<AppState>>, req: HttpRequest, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let limits = &st.limits;
    match tokio::time::timeout(limits.body_timeout, axum::body::to_bytes(body, limits.max_body_bytes)).await {
        Err(_) => {
            let mut r = error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s of its headers (the server's --body-timeout): send the whole body at once",
                    limits.body_timeout.as_secs_f64()
                ),
            );
            r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            r
        }
        Ok(Err(e)) => {
            let inner = e.into_inner();
            if inner.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                too_large(limits, "is".into())
            } else {
                error(StatusCode::BAD_REQUEST, format!("the request body could not be read: {inner}"))
            }
        }
        Ok(Ok(bytes)) => next.run(HttpRequest::from_parts(parts, Body::from(bytes))).await,
    }
}

async fn authorize(State(st): State<Arc<AppState>>, req: HttpRequest, next: Next) -> Response {
    if let Some(key) = &st.api_key {
        let header = req.headers().get(header::AUTHORIZATION);
        let given = header.and_then(|v| v.to_str().ok());
        let token = given.and_then(bearer_token);
        let ok = token.is_some_and(|g| same(g.as_bytes(), key.as_bytes()));
        if !ok {
            let message = if header.is_none() {
                "missing API key: send the header 'Authorization: Bearer <key>' (the key the server was started with)"
            } else if given.is_none() {
                "the Authorization header is not valid text (it has bytes outside printable ASCII), so it holds no key: \
                 send 'Authorization: Bearer <key>' with the key as the server was given it"
            } else if token.is_none() {
                "the Authorization header is not 'Bearer <key>': send 'Authorization: Bearer <key>' (the key the server was started with)"
            } else {
                "wrong API key"
            };
            let mut r = error(StatusCode::UNAUTHORIZED, message);
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    next.run(req).await
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

async fn health(State(st): State<Arc<AppState>>) -> Response {
    let s = &st.service;
    let m = s.metrics();
    let health = s.health();
    let mut body = json!({
        "status": health.as_str(),
        "service": s.info(),
        "queued": m.queued.load(std::sync::atomic::Ordering::Relaxed),
        "running": m.running.load(std::sync::atomic::Ordering::Relaxed),
        "episodes": m.episodes(),
        "api_key_required": st.api_key.is_some(),
    });
    if let Health::Failed(error) = &health {
        body["error"] = json!(error);
    }
    let mut up = true;
    if let Some(servers) = s.servers() {
        up = servers.iter().any(|x| x.up);
        let list: Vec<_> = servers
            .iter()
            .map(|x| json!({ "url": x.url, "kind": x.kind, "model": public_name(&x.model), "up": x.up, "error": x.error }))
            .collect();
        body["servers"] = json!(list);
        if !up {
            body["status"] = json!("no_server");
        }
    }
    let status = if health == Health::Ok && up { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(body)).into_response()
}

async fn metrics(State(st): State<Arc<AppState>>) -> Response {
    let mut text = st.service.render_metrics();
    text.push_str(&st.connections.render());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

async fn databases(State(st): State<Arc<AppState>>) -> Json<serde_json::Value> {
    Json(json!({ "databases": st.databases.iter().collect::<Vec<_>>() }))
}

/// The body of `POST /v1/ask`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskBody {
    /// The question.
    pub question: String,
    /// The database's name.
    pub db: String,
    /// Evidence (a hint).
    #[serde(default)]
    pub evidence: Option<String>,
    /// Sampling seed.
    #[serde(default)]
    pub seed: Option<u32>,
    /// Token budget of the episode.
    #[serde(default)]
    pub max_episode_tokens: Option<usize>,
    /// Server-sent events instead of one JSON answer.
    #[serde(default)]
    pub stream: bool,
}

/// Checks a request against the limits and the databases, naming what is wrong.
fn request_of(st: &AppState, body: AskBody) -> Result<Request, Refusal> {
    let asked = st.limits.check(&body.question, "question", body.evidence)?;
    if !valid_name(&body.db) {
        return Err(Refusal::bad_request(
            "bad_request",
            "db",
            format!(
                "{:?} is not a database name: databases are named words given when the server started (GET /v1/databases), never files or paths",
                body.db
            ),
        ));
    }
    let Some(db) = st.databases.get(&body.db) else {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            format!("unknown database {:?}; this server has: {}", body.db, st.databases.names()),
        ));
    };
    Ok(Request {
        question: asked.question,
        evidence: asked.evidence,
        db: db.clone(),
        seed: body.seed,
        max_episode_tokens: body.max_episode_tokens,
    })
}

async fn ask(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
    client: Option<Extension<ClientSide>>,
    body: Result<Json<AskBody>, JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(b)) => b,
        Err(r) => return error(r.status(), r.body_text()),
    };
    let wants_events =
        headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/event-stream"));
    let stream = body.stream || wants_events;
    let request = match request_of(&st, body) {
        Ok(r) => r,
        Err(refusal) => return refusal.into_response(),
    };
    let db = request.db.name.clone();
    let ticket = match st.service.submit(request) {
        Ok(t) => t,
        Err(e) => return Refusal::submit(e).into_response(),
    };
    if stream {
        let shape = AskEvents { st: st.clone() };
        return reply::events(ticket, st, db, shape, client.map(|Extension(c)| c));
    }
    match reply::answer(ticket, &st, &db).await {
        Ok(answer) => Json(st.redact.to_json(&answer)).into_response(),
        Err(refusal) => refusal.into_response(),
    }
}

/// The episode as `/v1/ask`'s server-sent events: `queued`, then its events by type, then
/// `done` (the answer) or `error` (sqale's error shape), each with the server's paths redacted.
struct AskEvents {
    st: Arc<AppState>,
}

/// An event of type `kind` with `data` as its JSON.
fn sse_event(kind: &str, data: impl serde::Serialize) -> Event {
    Event::default().event(kind).json_data(data).unwrap_or_default()
}

impl Shape for AskEvents {
    fn start(&mut self, position: usize) -> Vec<Event> {
        let first = EpisodeEvent::Queued { position };
        vec![sse_event(first.kind(), &first)]
    }

    fn event(&mut self, event: &EpisodeEvent) -> Vec<Event> {
        vec![sse_event(event.kind(), self.st.redact.to_json(event))]
    }

    fn answer(&mut self, answer: &Answer) -> Vec<Event> {
        vec![sse_event("done", self.st.redact.to_json(answer))]
    }

    fn refusal(&mut self, refusal: Refusal) -> Vec<Event> {
        vec![sse_event("error", refusal.native_body())]
    }
}

/// Serves `router(state)` on `listener` within `limits` (timeouts, the cap on connections:
/// [`super::conn`]) until `shutdown` resolves, then waits for the requests under way (each
/// bounded by the episode time limit).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    limits: ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let stats = state.connections.clone();
    super::conn::serve(listener, router(state), limits, stats, shutdown).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for v in ["Bearer k", "bearer k", "BEARER k", "Bearer   k ", "bEaReR\tk"] {
            assert_eq!(bearer_token(v), Some("k"), "{v:?}");
        }
        for v in ["Bearerk", "Basic k", "Bearer", "Bearer   ", "k"] {
            assert_eq!(bearer_token(v), None, "{v:?}");
        }
    }

    #[test]
    fn keys_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn the_page_is_self_contained() {
        // Nothing fetched from elsewhere: no CDN on an air-gapped site.
        for external in ["http://", "https://", "//cdn", "rel=\"stylesheet\"", "src=\"http", "src=\"//"] {
            assert!(!PAGE.contains(external), "the page refers to {external}");
        }
        for id in ["id=\"db\"", "id=\"question\"", "id=\"ask\"", "id=\"trace\"", "/v1/ask", "/v1/databases"] {
            assert!(PAGE.contains(id), "the page lacks {id}");
        }
    }
}
