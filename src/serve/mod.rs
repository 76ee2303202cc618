//! sqale as a long-running local service: one loaded model (or a pool of inference servers)
//! answering many callers.
//!
//! - [`databases`]: the databases served, by name (nothing from the network names a file);
//! - [`service`]: the episode service (N episodes at once, on sequences of one context or on
//!   inference servers; a bounded queue, cancellation, time limits, graceful shutdown);
//! - [`health`]: whether it can answer (ok, shutting down, or failed: its engine stopped);
//! - [`events`]: what callers see: live episode events, the answer and its first rows;
//! - [`metrics`]: counters and their Prometheus text;
//! - [`http`]: the HTTP API (`sqale serve`): its router, sqale's own endpoints and the web page;
//! - [`openai`]: the OpenAI-compatible endpoints (chat UIs and OpenAI SDKs), in OpenAI's shapes;
//! - [`state`]: what both faces share: the server's state, the request limits, the question check;
//! - [`refusal`]: the service's refusals, for both faces: status, code, message, `Retry-After`;
//! - [`reply`]: an answer as both faces send it: whole, or as server-sent events (one loop);
//! - [`markdown`]: the Markdown they write from data and model text, made inert;
//! - [`conn`]: its connections: the header and idle timeout, the cap on connections;
//! - [`client`]: a connection's client: one that closes its sending side still gets its answer,
//!   one that left is noticed, hyper's own error answers get a body;
//! - [`host`]: the names a request may call the server by (DNS rebinding);
//! - [`redact`]: the server's file paths kept out of everything clients are sent;
//! - [`mcp`]: the Model Context Protocol on stdio (`sqale mcp`).

pub mod client;
pub mod conn;
pub mod databases;
pub mod events;
pub mod health;
pub mod host;
pub mod http;
pub mod markdown;
pub mod mcp;
pub mod metrics;
pub mod openai;
pub mod redact;
pub mod refusal;
pub mod reply;
pub mod service;
pub mod state;

pub use databases::{Database, Databases};
pub use health::Health;
pub use service::{Service, ServiceOptions};
