//! One loaded agent answering questions: an episode per question, its answer's rows read
//! afterwards, the episode stoppable by a cancel flag.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::Value;
use sqale::agent::{Agent, AgentError};
use sqale::answer::Answer;
use sqale::generate::Generator;

use super::super::trace::Tracer;
use super::Format;

/// What played the episodes, as every answer reports it.
pub struct Backend {
    pub model: String,
    pub servers: Option<Value>,
    pub ctx: usize,
    pub temperature: f64,
    pub top_p: f64,
    pub top_k: i32,
    /// The tool limits, also bounding the answer's rows.
    pub limits: sqale::env::Limits,
}

/// What a session's commands change between questions.
#[derive(Debug, Clone)]
pub struct Options {
    pub db: PathBuf,
    pub evidence: Option<String>,
    pub trace: bool,
    /// The seed of every question; `None`: a random one each.
    pub seed: Option<u32>,
    pub format: Format,
    /// A text bar chart under the table, when the rows call for one and stdout is a terminal.
    pub chart: bool,
}

/// What a generator has to say after an episode, on stderr.
pub trait Notes {
    /// Prints what the last episode left to say (nothing by default).
    fn print_notes(&mut self) {}
}

impl Notes for sqale::engine::Engine<'_> {
    /// A prompt cache file that was refused, or could not be written.
    fn print_notes(&mut self) {
        super::super::prompt_cache::print_notes(self.take_prompt_cache_notes());
    }
}

impl Notes for sqale::remote::RemoteGenerator<'_> {}

/// An agent kept loaded between questions.
pub struct Asker<G: Generator + Notes> {
    agent: Agent<G>,
    backend: Backend,
    /// The generator's cancel flag: set while an episode runs, it stops the episode.
    cancel: Arc<AtomicBool>,
}

impl<G: Generator + Notes> Asker<G> {
    /// `agent`'s generator must check `cancel`.
    pub fn new(agent: Agent<G>, backend: Backend, cancel: Arc<AtomicBool>) -> Self {
        Asker { agent, backend, cancel }
    }

    /// The flag that stops the running episode.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Plays one episode and reads its answer's first rows.
    pub fn ask(&mut self, question: &str, options: &Options) -> Result<Answer, AgentError> {
        self.agent.settings_mut().seed = options.seed.unwrap_or_else(sqale::agent::random_seed);
        let mut tracer = Tracer::new();
        let mut on_event = |e: sqale::agent::Event<'_>| {
            if options.trace {
                tracer.event(e)
            }
        };
        self.cancel.store(false, Ordering::Relaxed);
        let episode = self.agent.run_with(question, options.evidence.as_deref(), &options.db, &mut on_event);
        self.cancel.store(false, Ordering::Relaxed);
        self.agent.generator_mut().print_notes();
        if options.trace {
            eprintln!();
        }
        let b = &self.backend;
        let mut answer = Answer {
            model: b.model.clone(),
            servers: b.servers.clone(),
            ctx: b.ctx,
            temperature: b.temperature,
            top_p: b.top_p,
            top_k: b.top_k,
            db: options.db.display().to_string(),
            episode: episode?,
            rows: None,
            rows_error: None,
            chart: None,
        };
        answer.read_rows(&options.db, &b.limits);
        Ok(answer)
    }
}
