//! What both faces of the HTTP API share: the server's state ([`AppState`]: the service, the
//! databases, the key, the limits) and the bounds on a request ([`RequestLimits`]), with the
//! one check of a question and its evidence against them ([`RequestLimits::check`]). The native
//! handlers ([`super::http`]) and the OpenAI-compatible ones ([`super::openai`]) read them here,
//! and neither from the other.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::conn::ConnectionStats;
use super::databases::Databases;
use super::host::HostPolicy;
use super::redact::Redactor;
use super::refusal::Refusal;
use super::service::Service;

/// Bounds on what a request may send.
#[derive(Debug, Clone)]
pub struct RequestLimits {
    /// Bytes of a request body.
    pub max_body_bytes: usize,
    /// Characters of a question.
    pub max_question_chars: usize,
    /// Characters of the evidence.
    pub max_evidence_chars: usize,
    /// Time the whole request body has to arrive in, once its head has.
    pub body_timeout: Duration,
}

impl Default for RequestLimits {
    fn default() -> Self {
        RequestLimits {
            max_body_bytes: 64 * 1024,
            max_question_chars: 4000,
            max_evidence_chars: 8000,
            body_timeout: Duration::from_secs(10),
        }
    }
}

/// A question and its evidence within the limits: the question trimmed, evidence that is only
/// blank left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// The question, trimmed, not empty.
    pub question: String,
    /// The evidence, if any is more than blank.
    pub evidence: Option<String>,
}

impl RequestLimits {
    /// Checks a question and its evidence against the limits: a 400 naming what is wrong, with
    /// `param` the request field that holds the question (`question`, or a chat's `messages`).
    pub fn check(&self, question: &str, param: &'static str, evidence: Option<String>) -> Result<Asked, Refusal> {
        let question = question.trim();
        if question.is_empty() {
            return Err(Refusal::bad_request("no_question", param, "the question is empty"));
        }
        let n = question.chars().count();
        if n > self.max_question_chars {
            let message = format!("the question has {n} characters; the limit is {}", self.max_question_chars);
            return Err(Refusal::bad_request("question_too_long", param, message));
        }
        if let Some(e) = &evidence {
            let n = e.chars().count();
            if n > self.max_evidence_chars {
                let message = format!("the evidence has {n} characters; the limit is {}", self.max_evidence_chars);
                return Err(Refusal::bad_request("evidence_too_long", "evidence", message));
            }
        }
        Ok(Asked { question: question.to_string(), evidence: evidence.filter(|e| !e.trim().is_empty()) })
    }
}

/// Everything the handlers share.
pub struct AppState {
    /// The episode service.
    pub service: Arc<Service>,
    /// The databases, by name.
    pub databases: Databases,
    /// The Bearer key every API call must carry, if one was given.
    pub api_key: Option<String>,
    /// Request bounds.
    pub limits: RequestLimits,
    /// The names requests may call the server by.
    pub hosts: HostPolicy,
    /// The server's file paths, replaced by their names in everything clients are sent.
    pub redact: Redactor,
    /// Connection counters (for `/metrics`), written by [`super::http::serve`].
    pub connections: Arc<ConnectionStats>,
    /// When the server started (OpenAI's `created` of its models).
    pub started: SystemTime,
}

impl AppState {
    /// The state of a server of `service` over `databases`: no key, the default limits, the
    /// default host names, every database's path redacted.
    pub fn new(service: Arc<Service>, databases: Databases) -> Self {
        let redact = Redactor::for_databases(&databases);
        AppState {
            service,
            databases,
            api_key: None,
            limits: RequestLimits::default(),
            hosts: HostPolicy::default(),
            redact,
            connections: Arc::default(),
            started: SystemTime::now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn limits() -> RequestLimits {
        RequestLimits { max_question_chars: 5, max_evidence_chars: 3, ..RequestLimits::default() }
    }

    #[test]
    fn a_question_within_the_limits_is_trimmed_and_blank_evidence_left_out() {
        let asked = limits().check("  héllo \n", "question", Some("  ".into())).unwrap();
        assert_eq!(asked, Asked { question: "héllo".into(), evidence: None });
        let asked = limits().check("q", "question", Some("abc".into())).unwrap();
        assert_eq!(asked.evidence.as_deref(), Some("abc"));
    }

    #[test]
    fn each_bound_is_named_with_its_field() {
        let cases = [
            (" \t", None, "no_question", "messages", "the question is empty"),
            ("abcdef", None, "question_too_long", "messages", "the question has 6 characters; the limit is 5"),
            ("abc", Some("abcd"), "evidence_too_long", "evidence", "the evidence has 4 characters; the limit is 3"),
        ];
        for (question, evidence, code, param, message) in cases {
            let r = limits().check(question, "messages", evidence.map(str::to_string)).unwrap_err();
            assert_eq!(r.status, StatusCode::BAD_REQUEST);
            assert_eq!((r.code, r.param, r.message.as_str()), (code, Some(param), message));
            assert_eq!(r.retry_after, None);
        }
    }
}
