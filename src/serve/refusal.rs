//! The service's refusals, built in one place for both faces of the HTTP API: a request the
//! service did not take ([`SubmitError`]), an episode that did not finish ([`EpisodeError`]), an
//! engine that stopped before answering, a question over the limits
//! ([`super::state::RequestLimits::check`]). Each is one [`Refusal`]: its status, a short code,
//! the request field at fault, the message, and when to ask again (`Retry-After`).
//!
//! The faces only write it in their shape: sqale's own `{"error": message, "status": code}`
//! ([`Refusal::native_body`], on `/v1/ask` and sqale's other paths), OpenAI's
//! `{"error": {"message", "type", "param", "code"}}` on OpenAI's paths ([`super::openai`]); the
//! status and `Retry-After` are the same on both ([`Refusal::respond`]).
//!
//! A full queue is a **503** on both faces, not a 429: it is the server's overload, shared by
//! every caller, which is what 503 with `Retry-After` says (RFC 9110, 15.6.4), while 429 says that
//! this client sent too many (RFC 6585), and sqale keeps no count per client. OpenAI answers its
//! own overload with 503 too, keeping 429 for a key's rate limits; its SDKs retry both, after
//! `Retry-After`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::redact::Redactor;
use super::service::{EpisodeError, SubmitError, REVIVE_EVERY};

/// Seconds a client told "the server is shutting down" should wait: a supervisor starts it again.
pub const SHUTDOWN_SECONDS: u64 = 30;

/// Seconds a client told "the engine failed" should wait: a supervisor restarts the server, and
/// the model loads again.
pub const RESTART_SECONDS: u64 = 10;

/// Seconds a client told "every inference server is down" should wait: a few probes.
pub const NO_SERVER_SECONDS: u64 = 2 * REVIVE_EVERY.as_secs() + 1;

/// The status of a full queue, on both faces (the module's doc says why 503).
pub const QUEUE_FULL: StatusCode = StatusCode::SERVICE_UNAVAILABLE;

/// A request the service answers with an error: everything either face writes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: StatusCode,
    /// A short machine-readable name (OpenAI's `code`).
    pub code: &'static str,
    /// The request field at fault, if one is (OpenAI's `param`).
    pub param: Option<&'static str>,
    /// What is wrong, and what to do, for a person.
    pub message: String,
    /// Seconds to wait before asking again (`Retry-After`), where waiting helps.
    pub retry_after: Option<u64>,
}

/// The `code` of a refusal that has none of its own, by its status: also that of the service's
/// other errors (the key check, the Host check, the body limits) on OpenAI's paths.
pub fn code_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "bad_request",
        401 => "invalid_api_key",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        408 => "request_timeout",
        413 => "body_too_large",
        431 => "headers_too_large",
        429 => "rate_limit_exceeded",
        503 => "unavailable",
        504 => "timeout",
        _ => "error",
    }
}

impl Refusal {
    /// A refusal with `status` and `message`, the status's code ([`code_of`]), no field, no
    /// `Retry-After`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Refusal { status, code: code_of(status), param: None, message: message.into(), retry_after: None }
    }

    /// A 400 with `code`, naming the field `param`.
    pub fn bad_request(code: &'static str, param: &'static str, message: impl Into<String>) -> Self {
        Refusal::new(StatusCode::BAD_REQUEST, message).code(code).param(param)
    }

    /// With the code `code`.
    pub fn code(mut self, code: &'static str) -> Self {
        self.code = code;
        self
    }

    /// Naming the request field `param`.
    pub fn param(mut self, param: &'static str) -> Self {
        self.param = Some(param);
        self
    }

    /// A 503 with `code` that says to ask again in `seconds`.
    fn unavailable(code: &'static str, message: String, seconds: u64) -> Self {
        Refusal { retry_after: Some(seconds), ..Refusal::new(StatusCode::SERVICE_UNAVAILABLE, message).code(code) }
    }

    /// A request the service did not take.
    pub fn submit(e: SubmitError) -> Self {
        let message = e.to_string();
        match e {
            SubmitError::QueueFull { retry_after, .. } => {
                Refusal { retry_after: Some(retry_after), ..Refusal::new(QUEUE_FULL, message).code("queue_full") }
            }
            SubmitError::ShuttingDown => Refusal::unavailable("shutting_down", message, SHUTDOWN_SECONDS),
            SubmitError::EngineFailed(_) => Refusal::unavailable("engine_failed", message, RESTART_SECONDS),
            SubmitError::Unavailable(_) => Refusal::unavailable("no_server", message, NO_SERVER_SECONDS),
            SubmitError::BadRequest(_) => Refusal::new(StatusCode::BAD_REQUEST, message),
        }
    }

    /// An episode on the database `db` that did not finish, with any path of the server's in its
    /// message replaced by its name (`redact`). The whole message goes to the server's log when
    /// it named one, or when the episode failed.
    pub fn episode(redact: &Redactor, db: &str, e: &EpisodeError) -> Self {
        let message = e.to_string();
        let shown = redact.text(&message).into_owned();
        if shown != message || matches!(e, EpisodeError::Failed(_)) {
            let line = format!("sqale serve: an episode on database {db} failed: {message}");
            eprintln!("{}", crate::printable::escape_controls(&line));
        }
        let shown = if shown == message { shown } else { format!("{shown} (the server's log names the file)") };
        match e {
            EpisodeError::TimedOut(_) => Refusal::new(StatusCode::GATEWAY_TIMEOUT, shown),
            EpisodeError::ShuttingDown => Refusal::unavailable("shutting_down", shown, SHUTDOWN_SECONDS),
            EpisodeError::EngineFailed(_) => Refusal::unavailable("engine_failed", shown, RESTART_SECONDS),
            EpisodeError::Unavailable(_) => Refusal::unavailable("no_server", shown, NO_SERVER_SECONDS),
            EpisodeError::BadRequest(_) => Refusal::new(StatusCode::BAD_REQUEST, shown),
            EpisodeError::Failed(_) | EpisodeError::Cancelled => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, shown),
        }
    }

    /// The answer of a ticket whose engine stopped before answering.
    pub fn engine_stopped() -> Self {
        Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "the engine stopped before answering").code("engine_stopped")
    }

    /// sqale's own shape: `{"error": message, "status": code}`.
    pub fn native_body(&self) -> Value {
        json!({ "error": self.message, "status": self.status.as_u16() })
    }

    /// The response of this refusal with `body` (a face's shape of it): its status, and its
    /// `Retry-After` if it has one.
    pub fn respond(&self, body: Value) -> Response {
        let mut r = (self.status, Json(body)).into_response();
        if let Some(v) = self.retry_after.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        r
    }
}

/// The response in sqale's own shape.
impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        self.respond(self.native_body())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry_after(r: &Response) -> Option<&str> {
        r.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn a_full_queue_is_a_503_that_says_when_to_ask_again() {
        let r = Refusal::submit(SubmitError::QueueFull { slots: 1, queue: 2, retry_after: 7 });
        assert_eq!((r.status, r.code, r.retry_after), (StatusCode::SERVICE_UNAVAILABLE, "queue_full", Some(7)));
        assert!(r.message.contains("busy"), "{}", r.message);
        let response = r.clone().into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(retry_after(&response), Some("7"));
    }

    #[test]
    fn a_server_that_cannot_answer_says_when_to_come_back_whoever_asks() {
        // The same wait for a request refused at once and for an episode the cause ended.
        let causes = [
            (SubmitError::ShuttingDown, EpisodeError::ShuttingDown, "shutting_down", SHUTDOWN_SECONDS),
            (
                SubmitError::EngineFailed("x".into()),
                EpisodeError::EngineFailed("x".into()),
                "engine_failed",
                RESTART_SECONDS,
            ),
            (
                SubmitError::Unavailable("down".into()),
                EpisodeError::Unavailable("down".into()),
                "no_server",
                NO_SERVER_SECONDS,
            ),
        ];
        for (submit, episode, code, seconds) in causes {
            let (a, b) = (Refusal::submit(submit), Refusal::episode(&Redactor::default(), "demo", &episode));
            for r in [a, b] {
                assert_eq!((r.status, r.code, r.retry_after), (StatusCode::SERVICE_UNAVAILABLE, code, Some(seconds)));
            }
        }
    }

    #[test]
    fn episodes_that_end_otherwise_have_no_retry_after() {
        let redact = Redactor::default();
        for (e, status, code) in [
            (EpisodeError::TimedOut(1.0), StatusCode::GATEWAY_TIMEOUT, "timeout"),
            (EpisodeError::BadRequest("too long".into()), StatusCode::BAD_REQUEST, "bad_request"),
            (EpisodeError::Failed("boom".into()), StatusCode::INTERNAL_SERVER_ERROR, "error"),
        ] {
            let r = Refusal::episode(&redact, "demo", &e);
            assert_eq!((r.status, r.code, r.retry_after), (status, code, None), "{e}");
            assert!(retry_after(&r.into_response()).is_none());
        }
    }

    #[test]
    fn the_native_shape_is_the_message_and_the_status() {
        let r = Refusal::new(StatusCode::NOT_FOUND, "no such thing").code("x").param("y");
        assert_eq!(r.native_body(), json!({ "error": "no such thing", "status": 404 }));
    }
}
