//! sqale: an edge runtime for the SQaLe text-to-SQL agents.
//!
//! Small Qwen3.5 models answer questions over a SQLite database by exploring it through tools,
//! testing a query and submitting it. This crate runs that loop on-device:
//!
//! - [`env`]: the SQLite environment, the eight tools over a database nothing can change;
//! - [`engine`]: llama.cpp in-process, a conversation as one token sequence decoded once, or
//!   several conversations in one context, decoded in shared batches;
//! - [`generate`]: the generation trait between the two halves, and a scripted test double;
//! - [`protocol`] and [`prompt`]: reading tool calls, writing the turns the model reads;
//! - [`speculate`]: drafters and the draft-length planner for speculative decoding;
//! - [`agent`]: the episode state machine that ties them together;
//! - [`answer`]: an episode's answer and its first rows (what `ask` prints, the service returns);
//! - [`remote`]: the same generation trait on an inference server (vLLM, llama-server);
//! - [`pull`]: the model registry, downloads through hf-hub, conversion into the cache;
//! - [`pack`]: one verified archive of a model (and a binary) for an air-gapped site;
//! - [`eval`]: benchmarks, the study (local, remote and recorded runs), execution scoring,
//!   summaries and reports;
//! - [`vote`]: several sampled episodes of one question, their answers grouped and counted;
//! - [`imatrix`]: importance matrices gathered from the agent's own episodes, for quantising;
//! - [`divergence`]: how far each model's distributions drift from a reference along the
//!   reference's own episodes (teacher forcing);
//! - [`bench`]: speed, the prompt cache, speculation, batched throughput, a busy machine;
//! - [`serve`]: the agent as a local service (HTTP API, web page, MCP);
//! - [`printable`]: text made safe for a terminal (control characters escaped);
//! - [`regular_file`]: opening a file that must be a regular file (no FIFO, device or folder);
//! - [`secret`]: API keys read from files (a server's and a client's);
//! - [`tools`]: the tool catalogue (names, arguments, prompt lines);
//! - [`import`]: data files (CSV, TSV, JSON Lines, Parquet) as databases;
//! - [`plot`]: charts as SVG and text, chosen from a result's shape (the page, `ask`, reports);
//! - [`memory`]: resident memory, and what a model and context will take;
//! - [`system`] and [`cpu`]: what this build and machine are (`sqale info`), CPU features;
//! - [`defaults`], [`cache`], [`demo`], [`hash`], [`atomic`]: the shared defaults, the cache root,
//!   the demo database, SHA-256, whole-or-nothing output files.
//!
//! ```no_run
//! use sqale::{agent::{Agent, Settings}, engine::{Engine, EngineOptions, Model, ModelOptions}};
//! let model = Model::load("model.gguf", &ModelOptions::default())?;
//! let engine = Engine::new(&model, EngineOptions::default())?;
//! let mut agent = Agent::new(engine, Settings::default());
//! let episode = agent.run("How many customers placed more than three orders in 2024?", "shop.sqlite")?;
//! println!("{:?} ({})", episode.sql, episode.ended_by);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod agent;
pub mod answer;
pub mod bench;
pub mod cache;
pub mod cpu;
pub mod defaults;
pub mod demo;
pub mod divergence;
pub mod engine;
pub mod env;
pub mod eval;
pub mod generate;
pub mod hash;
pub mod imatrix;
pub mod import;
pub mod memory;
pub mod pack;
pub mod plot;
pub mod printable;
pub mod prompt;
pub mod protocol;
pub mod pull;
pub mod remote;
pub mod secret;
pub mod serve;
pub mod speculate;
pub mod system;
pub mod tools;
pub mod vote;

/// Output files written whole or not at all (shared with the converter).
pub use sqale_convert::atomic;
pub use sqale_convert::regular_file;

pub use agent::{Agent, EndedBy, Episode, Settings};
