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
//! - Errors have OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, on every
//!   `/v1/` path but sqale's own (`/v1/ask`, `/v1/databases`): [`openai_errors`] rewrites the
//!   service's own errors there. Request fields that an episode cannot honour are refused, naming
//!   the field ([`unhonoured`]).
//! - Everything written as Markdown from the data or the model's text is made inert
//!   ([`super::markdown`]): a chat UI shows it as text, never as HTML, a link or an image.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Request as HttpRequest, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};

use super::client::ClientSide;
use super::databases::valid_name;
use super::events::{Answer, EpisodeEvent};
use super::markdown;
use super::refusal::{code_of, Refusal};
use super::reply::{self, Shape};
use super::service::Request;
use super::state::AppState;
use crate::agent::EndedBy;
use crate::env::RowsPreview;

/// The resources of OpenAI's API (`/v1/NAME`, and the paths under it): an SDK may call any of
/// them, and reads an error only in OpenAI's shape.
const OPENAI_RESOURCES: &[&str] = &[
    "models",
    "chat",
    "completions",
    "embeddings",
    "responses",
    "moderations",
    "images",
    "audio",
    "files",
    "uploads",
    "batches",
    "assistants",
    "threads",
    "vector_stores",
    "fine_tuning",
    "realtime",
    "conversations",
    "containers",
    "evals",
];

/// The paths that answer in OpenAI's shape: those of OpenAI's API (`/v1/models/NAME`,
/// `/v1/completions`, `/v1/embeddings`, … as well as the two sqale serves), so that an SDK
/// that calls one reads what is wrong. sqale's own paths answer in its own shape.
pub fn is_openai_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/v1/") else { return false };
    let resource = rest.split('/').next().unwrap_or_default();
    OPENAI_RESOURCES.contains(&resource)
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

/// The body of an error in OpenAI's shape: `param` names the request field at fault, if one
/// is; `code` is a short machine-readable name.
fn error_body(status: StatusCode, code: &str, param: Option<&str>, message: impl Into<String>) -> Value {
    json!({ "error": { "message": message.into(), "type": error_type(status), "param": param, "code": code } })
}

/// A refusal's body in OpenAI's shape.
fn refusal_body(r: &Refusal) -> Value {
    error_body(r.status, r.code, r.param, r.message.as_str())
}

/// A refusal in OpenAI's shape, with its status and `Retry-After` ([`Refusal::respond`]).
fn refused(r: Refusal) -> Response {
    r.respond(refusal_body(&r))
}

/// An error in OpenAI's shape: `code` is a short machine-readable name.
pub fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    refused(Refusal::new(status, message).code(code))
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
    let body = error_body(parts.status, code_of(parts.status), None, message);
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(bytes))
}

/// Seconds since 1970, OpenAI's `created`.
fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The model object of the database `name`.
fn model_object(st: &AppState, name: &str) -> Value {
    let created = st.started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    json!({ "id": name, "object": "model", "created": created, "owned_by": "sqale" })
}

/// The 404 of a model that is not one of the databases.
fn no_such_model(st: &AppState, name: &str) -> Refusal {
    let message = format!(
        "the model {:?} does not exist: a model here is a database, and this server has: {} (GET /v1/models)",
        name.chars().take(100).collect::<String>(),
        st.databases.names()
    );
    Refusal::new(StatusCode::NOT_FOUND, message).code("model_not_found").param("model")
}

/// `GET /v1/models`: one model per database, named as the database.
pub async fn models(State(st): State<Arc<AppState>>) -> Json<Value> {
    let data: Vec<Value> = st.databases.iter().map(|d| model_object(&st, &d.name)).collect();
    Json(json!({ "object": "list", "data": data }))
}

/// `GET /v1/models/NAME`: the model object of a database (OpenAI's retrieve-model), or a 404
/// that lists the databases.
pub async fn model(State(st): State<Arc<AppState>>, Path(name): Path<String>) -> Response {
    if valid_name(&name) && st.databases.get(&name).is_some() {
        return Json(model_object(&st, &name)).into_response();
    }
    refused(Refusal { param: None, ..no_such_model(&st, &name) })
}

/// A `/v1/` path of OpenAI's that sqale does not serve: a 404 in OpenAI's shape that says
/// what it serves instead.
pub async fn unknown_endpoint(req: HttpRequest) -> Response {
    let path = req.uri().path().trim_end_matches('/');
    let instead = match path {
        "/v1/completions" | "/v1/responses" => {
            "sqale answers chat completions only: POST /v1/chat/completions, with the question as the last user message"
        }
        "/v1/embeddings" => "sqale serves no embeddings: it answers questions with POST /v1/chat/completions",
        _ => "sqale's OpenAI-compatible endpoints are GET /v1/models, GET /v1/models/NAME and POST /v1/chat/completions (docs/service.md)",
    };
    let shown: String = path.chars().take(100).collect();
    error(StatusCode::NOT_FOUND, "unknown_url", format!("no such endpoint: {} {shown:?}; {instead}", req.method()))
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

/// The body of `POST /v1/chat/completions`: the fields sqale reads, and OpenAI's fields it
/// checks ([`unhonoured`]). The sampling fields (temperature, top_p, the penalties) must be
/// numbers and are not used: episodes sample as the service was started, as the model was
/// trained. Fields of no meaning here (`user`, `metadata`, `store`, …) are ignored.
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
    /// OpenAI's fields that sqale checks and does not use, or refuses ([`unhonoured`]), by name.
    #[serde(flatten)]
    pub checked: std::collections::BTreeMap<String, Value>,
}

/// How sqale takes an OpenAI field it does not use.
enum Field {
    /// A number in this range, not used (an episode samples as the server was started).
    Number(f64, f64),
    /// Accepted when `ok` says so; otherwise refused with the reason.
    Only(fn(&Value) -> bool, &'static str),
}

/// The OpenAI fields a chat request may carry that an episode does not honour, and what of each
/// is accepted: the sampling settings as numbers (not used), the rest only where it asks for
/// nothing an episode cannot do. A null is always accepted, as OpenAI takes it.
const FIELDS: &[(&str, Field)] = &[
    ("temperature", Field::Number(0.0, 2.0)),
    ("top_p", Field::Number(0.0, 1.0)),
    ("presence_penalty", Field::Number(-2.0, 2.0)),
    ("frequency_penalty", Field::Number(-2.0, 2.0)),
    ("stop", Field::Only(|_| false, "an episode ends when the agent submits its query, not at a stop sequence: leave stop out")),
    ("logprobs", Field::Only(|v| v == &Value::Bool(false), "sqale returns no log probabilities: leave logprobs out or send false")),
    ("top_logprobs", Field::Only(|_| false, "sqale returns no log probabilities: leave top_logprobs out")),
    ("logit_bias", Field::Only(|v| v.as_object().is_some_and(|o| o.is_empty()), "an episode samples as the server was started: leave logit_bias out")),
    ("tools", Field::Only(|v| v.as_array().is_some_and(|a| a.is_empty()), "the agent calls its own tools, never the client's: leave tools out")),
    ("tool_choice", Field::Only(|v| v == "none" || v == "auto", "there are no client tools to choose: leave tool_choice out (or send \"none\" or \"auto\")")),
    ("functions", Field::Only(|v| v.as_array().is_some_and(|a| a.is_empty()), "the agent calls its own tools, never the client's: leave functions out")),
    ("function_call", Field::Only(|v| v == "none" || v == "auto", "there are no client functions to call: leave function_call out")),
    ("parallel_tool_calls", Field::Only(Value::is_boolean, "parallel_tool_calls must be true or false (there are no client tools either way)")),
    ("response_format", Field::Only(|v| v.get("type").is_some_and(|t| t == "text"), "the answer is Markdown text (the SQL and its rows; the whole episode as JSON in the `sqale` field): leave response_format out or send {\"type\": \"text\"}")),
    ("modalities", Field::Only(|v| v == &json!(["text"]), "the answer is text only: leave modalities out or send [\"text\"]")),
    ("audio", Field::Only(|_| false, "the answer is text only: leave audio out")),
    ("prediction", Field::Only(|_| false, "an episode's answer cannot be predicted: leave prediction out")),
    ("web_search_options", Field::Only(|_| false, "an episode searches only its database: leave web_search_options out")),
];

/// Refuses the first field of a chat request that an episode cannot honour: as a 400 that names it (its
/// `param`) and says what to send instead.
fn unhonoured(checked: &std::collections::BTreeMap<String, Value>) -> Result<(), Refusal> {
    for (name, field) in FIELDS {
        let Some(v) = checked.get(*name).filter(|v| !v.is_null()) else { continue };
        let why = match field {
            Field::Number(lo, hi) => match v.as_f64() {
                Some(x) if (*lo..=*hi).contains(&x) => continue,
                Some(x) => format!("{name} {x} is out of range: {lo} to {hi} (accepted and not used: episodes sample as the server was started)"),
                None => format!("{name} must be a number from {lo} to {hi}, not {} (accepted and not used: episodes sample as the server was started)", shown(v)),
            },
            Field::Only(ok, _) if ok(v) => continue,
            Field::Only(_, why) => format!("{name} {} is not honoured: {why}", shown(v)),
        };
        let code = if matches!(field, Field::Number(..)) { "invalid_value" } else { "unsupported_parameter" };
        return Err(Refusal::bad_request(code, name, why));
    }
    Ok(())
}

/// A request value as a message shows it: its JSON, at most 100 characters.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s
    }
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

/// The service's request for a chat, or what is wrong with it.
fn request_of(st: &AppState, body: ChatBody) -> Result<(Request, bool), Refusal> {
    let bad = |code: &'static str, param: &'static str, m: String| Err(Refusal::bad_request(code, param, m));
    let Some(db) = st.databases.get(&body.model).filter(|_| valid_name(&body.model)).cloned() else {
        return Err(no_such_model(st, &body.model));
    };
    if body.n.is_some_and(|n| n != 1) {
        return bad("invalid_n", "n", "n must be 1: an episode gives one answer".into());
    }
    unhonoured(&body.checked)?;
    let Some(last) = body.messages.iter().rev().find(|m| m.role == "user") else {
        return bad(
            "no_question",
            "messages",
            "the chat has no user message: the last user message is the question".into(),
        );
    };
    let Some(question) = text_of(&last.content) else {
        return bad(
            "no_question",
            "messages",
            "the last user message has no text: send the question as its content".into(),
        );
    };
    if question.trim().is_empty() {
        return bad("no_question", "messages", "the last user message is empty: it is the question".into());
    }
    let asked = st.limits.check(&question, "messages", body.evidence)?;
    let seed = match body.seed {
        None => None,
        Some(s) => match u32::try_from(s) {
            Ok(s) => Some(s),
            Err(_) => return bad("invalid_seed", "seed", format!("the seed {s} is not between 0 and {}", u32::MAX)),
        },
    };
    let (param, tokens) = match (body.max_completion_tokens, body.max_tokens) {
        (Some(t), _) => ("max_completion_tokens", Some(t)),
        (None, t) => ("max_tokens", t),
    };
    let ctx = st.service.info().ctx;
    let max_episode_tokens = match tokens {
        None => None,
        Some(t) => match usize::try_from(t) {
            Ok(t) if t > 0 && t <= ctx => Some(t),
            _ => {
                return bad(
                    "invalid_max_tokens",
                    param,
                    format!(
                        "{param} {t} is out of range: 1 to {ctx} (the episode's token budget, system prompt included, \
                         is at most one sequence's context on this server)"
                    ),
                )
            }
        },
    };
    let include_usage = body.stream_options.is_some_and(|o| o.include_usage);
    let request = Request { question: asked.question, evidence: asked.evidence, db, seed, max_episode_tokens };
    Ok((request, include_usage))
}

/// A table cell: its text on one line, inert ([`markdown::text`]).
fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".to_string(),
        Value::String(s) => markdown::text(s),
        other => markdown::text(&other.to_string()),
    }
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
    let mut s = markdown::code_block("sql", sql.trim()) + "\n";
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
        s.push_str(&format!("The query did not run: {}\n", markdown::text(e)));
    }
    s
}

/// The thinking, the calls and their results of a whole episode, as one text ([`markdown::prose`]:
/// a chat UI renders it as Markdown too).
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
    markdown::prose(&s)
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

/// `POST /v1/chat/completions`.
pub async fn chat_completions(
    State(st): State<Arc<AppState>>,
    client: Option<Extension<ClientSide>>,
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
        Err(refusal) => return refused(refusal),
    };
    let db = request.db.name.clone();
    let ticket = match st.service.submit(request) {
        Ok(t) => t,
        Err(e) => return refused(Refusal::submit(e)),
    };
    let (id, created) = (completion_id(), unix_now());
    if stream {
        let chunks =
            Chunks { st: st.clone(), db: db.clone(), id, created, include_usage, tags: TagStripper::default() };
        return reply::events(ticket, st, db, chunks, client.map(|Extension(c)| c));
    }
    match reply::answer(ticket, &st, &db).await {
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
        Err(refusal) => refused(refusal),
    }
}

/// The episode as `chat.completion.chunk` data events: the role, the reasoning as it happens,
/// the answer's content, the finish (with the whole episode in `sqale`), the usage if asked,
/// then `[DONE]`. An episode that fails sends an OpenAI error object, then `[DONE]`.
struct Chunks {
    st: Arc<AppState>,
    /// The model: the database's name.
    db: String,
    id: String,
    created: u64,
    include_usage: bool,
    /// `</think>` taken out of the reasoning.
    tags: TagStripper,
}

impl Chunks {
    /// A `chat.completion.chunk` with one choice.
    fn delta(&self, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.db,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        })
    }
}

/// A data event of `value`.
fn data(value: &Value) -> Event {
    Event::default().data(value.to_string())
}

/// The last events of a stream: `values`, then `[DONE]`.
fn done(values: &[Value]) -> Vec<Event> {
    values.iter().map(data).chain([Event::default().data("[DONE]")]).collect()
}

impl Shape for Chunks {
    fn start(&mut self, _position: usize) -> Vec<Event> {
        vec![data(&self.delta(json!({ "role": "assistant", "content": "" }), None))]
    }

    fn event(&mut self, event: &EpisodeEvent) -> Vec<Event> {
        match reasoning_delta(event, &mut self.tags) {
            Some(text) if !text.is_empty() => {
                let text = markdown::prose(&self.st.redact.text(&text));
                vec![data(&self.delta(json!({ "reasoning_content": text }), None))]
            }
            _ => Vec::new(),
        }
    }

    fn answer(&mut self, answer: &Answer) -> Vec<Event> {
        let content = self.delta(json!({ "content": answer_markdown(answer) }), None);
        let mut end = self.delta(json!({}), Some(finish_reason(answer)));
        end["sqale"] = self.st.redact.to_json(answer);
        let mut out = vec![content, end];
        if self.include_usage {
            out.push(json!({
                "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.db,
                "choices": [], "usage": usage_of(answer),
            }));
        }
        done(&out)
    }

    fn refusal(&mut self, refusal: Refusal) -> Vec<Event> {
        done(&[refusal_body(&refusal)])
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
        assert!(is_openai_path("/v1/models/shop"));
        assert!(is_openai_path("/v1/completions"));
        assert!(is_openai_path("/v1/embeddings"));
        assert!(!is_openai_path("/v1/ask"));
        assert!(!is_openai_path("/v1/databases"));
        assert!(!is_openai_path("/v1/nothing"));
        assert!(!is_openai_path("/v1/modelsx"));
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
