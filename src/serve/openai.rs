//! The OpenAI-compatible face of the service: `GET /v1/models` and `POST /v1/chat/completions`
//! (whole, or streamed as `chat.completion.chunk`s), so that chat UIs and OpenAI SDKs can ask a
//! database a question.
//!
//! - A *model* is a served database: its id is the database's name, so a chat UI's model picker
//!   chooses the database.
//! - The question is the chat's last user message. The agent answers one question per episode,
//!   as it was trained to: earlier messages are accepted and not read.
//! - The answer's `content` is what a person reads ([`answer_markdown`]): the SQL in a code block
//!   and the first rows as a Markdown table, or why there is no answer. The thinking, the calls
//!   and their results are `reasoning_content`, as llama-server sends a reasoning model's
//!   thinking. The whole episode is in the `sqale` field.
//! - Errors have OpenAI's shape, `{"error": {"message", "type", "code"}}` ([`openai_errors`]
//!   rewrites the service's own errors on these paths).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Request as HttpRequest, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use serde_json::{json, Value};

use super::databases::valid_name;
use super::events::{Answer, EpisodeEvent};
use super::http::{episode_error, AppState};
use super::service::{EpisodeError, Request, SubmitError, Ticket, Update};
use crate::agent::EndedBy;
use crate::env::RowsPreview;

/// The paths that answer in OpenAI's shape.
pub fn is_openai_path(path: &str) -> bool {
    matches!(path.trim_end_matches('/'), "/v1/models" | "/v1/chat/completions")
}

/// OpenAI's error `type` for an HTTP status.
fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        s if s >= 500 => "server_error",
        _ => "invalid_request_error",
    }
}

/// An error in OpenAI's shape: `code` is a short machine-readable name.
pub fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let body = json!({ "error": { "message": message.into(), "type": error_type(status), "code": code } });
    (status, Json(body)).into_response()
}

/// [`error`] with a `Retry-After` header.
fn retry_after(status: StatusCode, code: &str, message: String, seconds: u64) -> Response {
    let mut r = error(status, code, message);
    if let Ok(v) = HeaderValue::from_str(&seconds.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

/// The `code` of one of the service's own errors, by its status.
fn code_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "bad_request",
        401 => "invalid_api_key",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        408 => "request_timeout",
        413 => "body_too_large",
        429 => "rate_limit_exceeded",
        503 => "unavailable",
        504 => "timeout",
        _ => "error",
    }
}

/// Rewrites the service's own JSON errors (`{"error": "message", "status": code}`: the key
/// check, the Host check, the body limits, an unknown method) into OpenAI's shape on the
/// OpenAI paths, keeping their status and headers. Answers already in OpenAI's shape pass.
pub async fn openai_errors(req: HttpRequest, next: Next) -> Response {
    if !is_openai_path(req.uri().path()) {
        return next.run(req).await;
    }
    let response = next.run(req).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if response.status().as_u16() < 400 || !is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // The service's errors are a few hundred bytes; anything larger is not one of them.
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return error(parts.status, "error", "the error could not be read");
    };
    let Some(message) = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
    else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let body = json!({ "error": {
        "message": message, "type": error_type(parts.status), "code": code_of(parts.status) } });
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(bytes))
}

/// Seconds since 1970, OpenAI's `created`.
fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// `GET /v1/models`: one model per database, named as the database.
pub async fn models(State(st): State<Arc<AppState>>) -> Json<Value> {
    let created = st.started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let data: Vec<Value> = st
        .databases
        .iter()
        .map(|d| json!({ "id": d.name, "object": "model", "created": created, "owned_by": "sqale" }))
        .collect();
    Json(json!({ "object": "list", "data": data }))
}

/// One message of a chat.
#[derive(Debug, Deserialize)]
pub struct Message {
    /// `system`, `user`, `assistant`, `tool`, `developer`.
    pub role: String,
    /// Text, or a list of parts (`{"type": "text", "text": ...}`); absent on some assistant
    /// messages.
    #[serde(default)]
    pub content: Value,
}

/// `stream_options`.
#[derive(Debug, Default, Deserialize)]
pub struct StreamOptions {
    /// Send a last chunk with the usage.
    #[serde(default)]
    pub include_usage: bool,
}

/// The body of `POST /v1/chat/completions`: the fields sqale reads. Other OpenAI fields
/// (temperature, top_p, …) are accepted and not used: episodes sample as the service was
/// started, as the model was trained.
#[derive(Debug, Deserialize)]
pub struct ChatBody {
    /// The database's name.
    pub model: String,
    /// The chat; its last user message is the question.
    pub messages: Vec<Message>,
    /// Chunks as the episode happens.
    #[serde(default)]
    pub stream: bool,
    /// `{"include_usage": true}` for a last chunk with the usage.
    #[serde(default)]
    pub stream_options: Option<StreamOptions>,
    /// The sampling seed.
    #[serde(default)]
    pub seed: Option<i64>,
    /// The episode's token budget (system prompt included).
    #[serde(default)]
    pub max_tokens: Option<i64>,
    /// The same, by its newer name.
    #[serde(default)]
    pub max_completion_tokens: Option<i64>,
    /// Completions wanted: only 1.
    #[serde(default)]
    pub n: Option<i64>,
    /// Evidence (a BIRD-style hint): sqale's own field.
    #[serde(default)]
    pub evidence: Option<String>,
}

/// The text of a message's content: a string, or its text parts joined.
fn text_of(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// A bad request: (status, code, message).
type Refusal = (StatusCode, &'static str, String);

/// The service's request for a chat, or what is wrong with it.
fn request_of(st: &AppState, body: ChatBody) -> Result<(Request, bool), Refusal> {
    let bad = |code: &'static str, m: String| Err((StatusCode::BAD_REQUEST, code, m));
    if !valid_name(&body.model) || st.databases.get(&body.model).is_none() {
        return Err((
            StatusCode::NOT_FOUND,
            "model_not_found",
            format!(
                "the model {:?} does not exist: a model here is a database, and this server has: {} (GET /v1/models)",
                body.model.chars().take(100).collect::<String>(),
                st.databases.names()
            ),
        ));
    }
    if body.n.is_some_and(|n| n != 1) {
        return bad("invalid_n", "n must be 1: an episode gives one answer".into());
    }
    let Some(last) = body.messages.iter().rev().find(|m| m.role == "user") else {
        return bad("no_question", "the chat has no user message: the last user message is the question".into());
    };
    let Some(question) = text_of(&last.content) else {
        return bad("no_question", "the last user message has no text: send the question as its content".into());
    };
    let question = question.trim();
    if question.is_empty() {
        return bad("no_question", "the last user message is empty: it is the question".into());
    }
    let n = question.chars().count();
    if n > st.limits.max_question_chars {
        return bad(
            "question_too_long",
            format!("the question has {n} characters; the limit is {}", st.limits.max_question_chars),
        );
    }
    if let Some(e) = &body.evidence {
        let n = e.chars().count();
        if n > st.limits.max_evidence_chars {
            return bad(
                "evidence_too_long",
                format!("the evidence has {n} characters; the limit is {}", st.limits.max_evidence_chars),
            );
        }
    }
    let seed = match body.seed {
        None => None,
        Some(s) => match u32::try_from(s) {
            Ok(s) => Some(s),
            Err(_) => return bad("invalid_seed", format!("the seed {s} is not between 0 and {}", u32::MAX)),
        },
    };
    let max_episode_tokens = match body.max_completion_tokens.or(body.max_tokens) {
        None => None,
        Some(t) => match usize::try_from(t) {
            Ok(t) if t > 0 => Some(t),
            _ => {
                let why = format!("max_tokens {t} is not a positive number of tokens");
                return bad("invalid_max_tokens", why + " (the episode's budget, system prompt included)");
            }
        },
    };
    let db = st.databases.get(&body.model).cloned().ok_or_else(|| {
        (StatusCode::NOT_FOUND, "model_not_found", format!("the model {:?} does not exist", body.model))
    })?;
    let include_usage = body.stream_options.is_some_and(|o| o.include_usage);
    let request = Request {
        question: question.to_string(),
        evidence: body.evidence.filter(|e| !e.trim().is_empty()),
        db,
        seed,
        max_episode_tokens,
    };
    Ok((request, include_usage))
}

/// A table cell: its text on one line, its pipes escaped.
fn cell(v: &Value) -> String {
    let s = match v {
        Value::Null => "NULL".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    s.replace('\\', "\\\\").replace('|', "\\|").replace(['\r', '\n'], " ")
}

/// The rows as a Markdown table, and whether more were left out.
pub fn rows_markdown(rows: &RowsPreview) -> String {
    let mut s = String::new();
    let head: Vec<String> = rows.columns.iter().map(|c| cell(&Value::String(c.clone()))).collect();
    s.push_str(&format!("| {} |\n", head.join(" | ")));
    s.push_str(&format!("|{}\n", " --- |".repeat(rows.columns.len().max(1))));
    for row in &rows.rows {
        let cells: Vec<String> = row.iter().map(cell).collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let n = rows.rows.len();
    if rows.truncated {
        s.push_str(&format!("\nThe first {n} rows; the query returns more.\n"));
    } else {
        s.push_str(&format!("\n{n} row{}.\n", if n == 1 { "" } else { "s" }));
    }
    s
}

/// Why an episode has no answer, in a sentence.
fn why_no_answer(ended_by: EndedBy) -> &'static str {
    match ended_by {
        EndedBy::TokenBudget => "the episode's token budget ran out before the agent had a query that runs",
        EndedBy::ContextFull => "the context window filled before the agent had a query that runs",
        EndedBy::NoAnswer => "the agent gave no SQL, and none of its queries ran",
        _ => "the agent ended without a query that runs",
    }
}

/// What a person reads: the SQL in a code block and its first rows as a Markdown table; or
/// the clear reason there is none.
pub fn answer_markdown(answer: &Answer) -> String {
    let ep = &answer.episode;
    let Some(sql) = &ep.sql else {
        return format!("No answer: {} (it ended by `{}`).\n", why_no_answer(ep.ended_by), ep.ended_by);
    };
    let fence = if sql.contains("```") { "~~~~" } else { "```" };
    let mut s = format!("{fence}sql\n{}\n{fence}\n\n", sql.trim());
    match ep.ended_by {
        EndedBy::FallbackToLastWorkingQuery | EndedBy::TokenBudget | EndedBy::ContextFull => s.push_str(&format!(
            "The agent submitted no query (the episode ended by `{}`): this is the last query of its that ran.\n\n",
            ep.ended_by
        )),
        _ => {}
    }
    if let Some(rows) = &answer.rows {
        s.push_str(&rows_markdown(rows));
    }
    if let Some(e) = &answer.rows_error {
        s.push_str(&format!("The query did not run: {e}\n"));
    }
    s
}

/// The thinking, the calls and their results of a whole episode, as one text.
fn reasoning_of(answer: &Answer) -> String {
    let mut s = String::new();
    for turn in &answer.episode.turns {
        if !s.is_empty() {
            s.push_str("\n\n");
        }
        s.push_str(turn.completion.replace(THINK_END, "").trim_end());
        for call in &turn.calls {
            s.push_str(&call_text(&call.tool, &call.args, call.ok, &call.result));
        }
    }
    s
}

/// The tag that closes the thinking: the reasoning shows the text on both sides, not the tag.
const THINK_END: &str = "</think>";

/// Takes `</think>` out of streamed text, which may split the tag across pieces: a piece's end
/// that could begin the tag is held back until the next piece says.
#[derive(Debug, Default)]
struct TagStripper {
    held: String,
}

impl TagStripper {
    /// The text of `piece` to send now.
    fn push(&mut self, piece: &str) -> String {
        self.held.push_str(piece);
        let mut text = self.held.replace(THINK_END, "");
        let keep = (1..THINK_END.len()).rev().find(|&n| text.ends_with(&THINK_END[..n])).unwrap_or(0);
        self.held = text.split_off(text.len() - keep);
        text
    }

    /// What was held back: at a call, a new turn or the end, it was not the tag.
    fn flush(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// A call and its result, as the reasoning shows it.
fn call_text(tool: &str, args: &Value, ok: bool, result: &str) -> String {
    let mark = if ok { "→" } else { "✗" };
    format!("\n\n{mark} {tool} {args}\n{}", result.trim_end())
}

/// The token counts OpenAI calls `usage`: the prompt (system prompt, question and tool results)
/// and the generated tokens of the whole episode.
fn usage_of(answer: &Answer) -> Value {
    let t = &answer.episode.tokens;
    let completion = t.generated_tokens;
    let prompt = t.context_tokens.saturating_sub(completion);
    json!({ "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion })
}

/// OpenAI's `finish_reason`: `length` when the budget or the context ended the episode.
fn finish_reason(answer: &Answer) -> &'static str {
    match answer.episode.ended_by {
        EndedBy::TokenBudget | EndedBy::ContextFull => "length",
        _ => "stop",
    }
}

/// A fresh completion id.
fn completion_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("chatcmpl-sqale-{:x}-{n}", unix_now())
}

/// The error response of a request the service did not take.
fn submit_refusal(e: SubmitError) -> Response {
    match e {
        e @ SubmitError::QueueFull { retry_after: s, .. } => {
            retry_after(StatusCode::TOO_MANY_REQUESTS, "queue_full", e.to_string(), s)
        }
        e @ SubmitError::ShuttingDown => {
            retry_after(StatusCode::SERVICE_UNAVAILABLE, "shutting_down", e.to_string(), 30)
        }
        e @ SubmitError::EngineFailed(_) => {
            retry_after(StatusCode::SERVICE_UNAVAILABLE, "engine_failed", e.to_string(), super::http::RESTART_SECONDS)
        }
        e @ SubmitError::Unavailable(_) => {
            retry_after(StatusCode::SERVICE_UNAVAILABLE, "no_server", e.to_string(), super::http::NO_SERVER_SECONDS)
        }
        SubmitError::BadRequest(m) => error(StatusCode::BAD_REQUEST, "bad_request", m),
    }
}

/// The error response of an episode that did not finish.
fn episode_refusal(st: &AppState, db: &str, e: &EpisodeError) -> Response {
    let (status, message) = episode_error(st, db, e);
    match e {
        EpisodeError::ShuttingDown => retry_after(status, "shutting_down", message, 30),
        EpisodeError::EngineFailed(_) => retry_after(status, "engine_failed", message, super::http::RESTART_SECONDS),
        EpisodeError::Unavailable(_) => retry_after(status, "no_server", message, super::http::NO_SERVER_SECONDS),
        _ => error(status, code_of(status), message),
    }
}

/// `POST /v1/chat/completions`.
pub async fn chat_completions(
    State(st): State<Arc<AppState>>,
    body: Result<Json<ChatBody>, JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(b)) => b,
        Err(r) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                format!("the request body is not a chat: {}", r.body_text()),
            )
        }
    };
    let stream = body.stream;
    let (request, include_usage) = match request_of(&st, body) {
        Ok(r) => r,
        Err((status, code, message)) => return error(status, code, message),
    };
    let db = request.db.name.clone();
    let ticket = match st.service.submit(request) {
        Ok(t) => t,
        Err(e) => return submit_refusal(e),
    };
    let (id, created) = (completion_id(), unix_now());
    if stream {
        let chunks = chunks(ticket, st.clone(), db, Chunk { id, created, include_usage });
        return Sse::new(chunks).keep_alive(KeepAlive::new().interval(Duration::from_secs(10))).into_response();
    }
    // The ticket lives in this future: a client that goes away drops it, which cancels.
    let mut ticket = ticket;
    while let Some(update) = ticket.updates.recv().await {
        if let Update::Done(result) = update {
            return match result {
                Ok(answer) => {
                    let message = json!({
                        "role": "assistant",
                        "content": answer_markdown(&answer),
                        "reasoning_content": reasoning_of(&answer),
                    });
                    Json(json!({
                        "id": id,
                        "object": "chat.completion",
                        "created": created,
                        "model": db,
                        "choices": [{ "index": 0, "message": message, "finish_reason": finish_reason(&answer) }],
                        "usage": usage_of(&answer),
                        "sqale": st.redact.to_json(&answer),
                    }))
                    .into_response()
                }
                Err(e) => episode_refusal(&st, &db, &e),
            };
        }
    }
    error(StatusCode::INTERNAL_SERVER_ERROR, "engine_stopped", "the engine stopped before answering")
}

/// What every chunk of one completion shares.
#[derive(Debug, Clone)]
struct Chunk {
    id: String,
    created: u64,
    include_usage: bool,
}

impl Chunk {
    /// A `chat.completion.chunk` with one choice.
    fn delta(&self, model: &str, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        })
    }
}

/// The reasoning text an episode event adds to a stream, if any.
fn reasoning_delta(event: &EpisodeEvent, tags: &mut TagStripper) -> Option<String> {
    match event {
        EpisodeEvent::Text { delta, .. } => Some(tags.push(delta)),
        EpisodeEvent::Turn { index, .. } if *index > 1 => Some(tags.flush() + "\n\n"),
        EpisodeEvent::Call { tool, args, ok, result } => Some(tags.flush() + &call_text(tool, args, *ok, result)),
        EpisodeEvent::TurnEnd { .. } => Some(tags.flush()),
        _ => None,
    }
}

/// The episode as `chat.completion.chunk` data events: the role, the reasoning as it happens,
/// the answer's content, the finish (with the whole episode in `sqale`), the usage if asked,
/// then `[DONE]`. An episode that fails sends an OpenAI error object, then `[DONE]`. Dropping
/// the stream (the client went away) drops the ticket, which cancels the episode.
fn chunks(ticket: Ticket, st: Arc<AppState>, db: String, c: Chunk) -> impl Stream<Item = Result<Event, Infallible>> {
    let data = |v: &Value| Event::default().data(v.to_string());
    let head = c.delta(&db, json!({ "role": "assistant", "content": "" }), None);
    let first = stream::once(std::future::ready(Ok::<Event, Infallible>(data(&head))));
    let rest = stream::unfold(Some((ticket, TagStripper::default())), move |state| {
        let (st, db, c) = (st.clone(), db.clone(), c.clone());
        async move {
            let (mut ticket, mut tags) = state?;
            loop {
                let events: Vec<Value> = match ticket.updates.recv().await {
                    Some(Update::Event(e)) => match reasoning_delta(&e, &mut tags) {
                        Some(text) if !text.is_empty() => {
                            let text = st.redact.text(&text).into_owned();
                            vec![c.delta(&db, json!({ "reasoning_content": text }), None)]
                        }
                        _ => continue,
                    },
                    Some(Update::Done(Ok(answer))) => {
                        let content = c.delta(&db, json!({ "content": answer_markdown(&answer) }), None);
                        let mut end = c.delta(&db, json!({}), Some(finish_reason(&answer)));
                        end["sqale"] = st.redact.to_json(&answer);
                        let mut out = vec![content, end];
                        if c.include_usage {
                            out.push(json!({
                                "id": c.id, "object": "chat.completion.chunk", "created": c.created, "model": db,
                                "choices": [], "usage": usage_of(&answer),
                            }));
                        }
                        return Some((done(out), None));
                    }
                    Some(Update::Done(Err(e))) => {
                        let (status, message) = episode_error(&st, &db, &e);
                        let body = json!({ "error": {
                            "message": message, "type": error_type(status), "code": code_of(status) } });
                        return Some((done(vec![body]), None));
                    }
                    None => {
                        let body = json!({ "error": {
                            "message": "the engine stopped before answering", "type": "server_error", "code": "engine_stopped" } });
                        return Some((done(vec![body]), None));
                    }
                };
                return Some((
                    stream::iter(events.iter().map(|v| Ok(data(v))).collect::<Vec<_>>()),
                    Some((ticket, tags)),
                ));
            }
        }
    });
    stream::StreamExt::chain(first, stream::StreamExt::flatten(rest))
}

/// The last events of a stream: `values`, then `[DONE]`.
fn done(values: Vec<Value>) -> stream::Iter<std::vec::IntoIter<Result<Event, Infallible>>> {
    let mut events: Vec<Result<Event, Infallible>> =
        values.iter().map(|v| Ok(Event::default().data(v.to_string()))).collect();
    events.push(Ok(Event::default().data("[DONE]")));
    stream::iter(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_a_string_or_text_parts() {
        assert_eq!(text_of(&json!("how many?")).as_deref(), Some("how many?"));
        let parts = json!([{"type": "text", "text": "how"}, {"type": "image_url", "image_url": {}}, {"type": "text", "text": "many?"}]);
        assert_eq!(text_of(&parts).as_deref(), Some("how\nmany?"));
        assert_eq!(text_of(&json!([{"type": "image_url"}])), None);
        assert_eq!(text_of(&Value::Null), None);
    }

    #[test]
    fn rows_are_a_markdown_table_with_cells_escaped() {
        let rows = RowsPreview {
            columns: vec!["name".into(), "n".into()],
            rows: vec![vec![json!("a|b"), json!(3)], vec![json!("two\nlines"), Value::Null]],
            truncated: true,
        };
        let md = rows_markdown(&rows);
        assert_eq!(
            md,
            "| name | n |\n| --- | --- |\n| a\\|b | 3 |\n| two lines | NULL |\n\nThe first 2 rows; the query returns more.\n"
        );
    }

    #[test]
    fn the_closing_tag_leaves_the_reasoning_even_split_across_pieces() {
        let mut t = TagStripper::default();
        let pieces = ["let me look", "</th", "ink>\n{\"tool\"", ": 1} <", "b"];
        let sent: Vec<String> = pieces.iter().map(|p| t.push(p)).collect();
        assert_eq!(sent, ["let me look", "", "\n{\"tool\"", ": 1} ", "<b"]);
        assert_eq!(t.push("</"), "");
        assert_eq!(t.flush(), "</", "text held back that was not the tag");
        assert_eq!(t.push("a</think>b"), "ab");
    }

    #[test]
    fn only_the_openai_paths_answer_in_its_shape() {
        assert!(is_openai_path("/v1/models"));
        assert!(is_openai_path("/v1/chat/completions/"));
        assert!(!is_openai_path("/v1/ask"));
        assert!(!is_openai_path("/health"));
    }

    #[test]
    fn error_types_follow_openai() {
        assert_eq!(error_type(StatusCode::UNAUTHORIZED), "authentication_error");
        assert_eq!(error_type(StatusCode::NOT_FOUND), "not_found_error");
        assert_eq!(error_type(StatusCode::TOO_MANY_REQUESTS), "rate_limit_error");
        assert_eq!(error_type(StatusCode::SERVICE_UNAVAILABLE), "server_error");
        assert_eq!(error_type(StatusCode::PAYLOAD_TOO_LARGE), "invalid_request_error");
    }
}
