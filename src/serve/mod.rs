//! sqale as a long-running local service: one loaded model answering many callers.
//!
//! - [`databases`]: the databases served, by name (nothing from the network names a file);
//! - [`service`]: the episode service (N sequences of one context, a bounded queue,
//!   cancellation, time limits, graceful shutdown);
//! - [`events`]: what callers see: live episode events, the answer and its first rows;
//! - [`metrics`]: counters and their Prometheus text;
//! - [`http`]: the HTTP API and the web page (`sqale serve`);
//! - [`mcp`]: the Model Context Protocol on stdio (`sqale mcp`).

pub mod databases;
pub mod events;
pub mod http;
pub mod mcp;
pub mod metrics;
pub mod service;

pub use databases::{Database, Databases};
pub use service::{Service, ServiceOptions};
