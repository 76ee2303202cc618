//! `sqale ask` without a question: the model and its prompt snapshot stay loaded and answer
//! question after question, on a terminal (line editing, history, commands, Ctrl-C) or one
//! question per line of standard input.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Context;
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use sqale::agent::AgentError;
use sqale::generate::{GenerateError, Generator};
use sqale::printable::{escape_controls, escape_line};

use super::super::errors::{error_text, with_flag_hint};
use super::asker::{Asker, Notes, Options};
use super::command::{self, Command, Line, HELP};
use super::output::{self, Format, Mode};

/// What one line led to.
enum Step {
    /// A command ran, or nothing was asked.
    Done,
    /// A question was answered (`true`) or ended without an answer.
    Answered(bool),
    /// Something failed (said on stderr); the session goes on.
    Failed,
    /// The session ends.
    Quit,
}

/// The interactive session on a terminal.
pub fn interactive<G: Generator + Notes>(asker: &mut Asker<G>, options: &mut Options) -> anyhow::Result<ExitCode> {
    let mut editor = DefaultEditor::new().context("setting up line editing on the terminal")?;
    let history = history_file();
    if let Some(h) = &history {
        // None yet is fine.
        let _ = editor.load_history(h);
    }
    // Ctrl-C reaches this handler only while an episode runs or prints: the line editor reads
    // Ctrl-C as a key. A second one before the episode stops quits.
    let cancel = asker.cancel_flag();
    ctrlc::set_handler(move || {
        if cancel.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    eprintln!(
        "Ask a question about {}; /help lists the commands, Ctrl-D quits.",
        escape_line(&options.db.display().to_string())
    );
    loop {
        match editor.readline(">>> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    if let Some(h) = &history {
                        save_history(&mut editor, h);
                    }
                }
                if let Step::Quit = step(asker, options, &line, Mode::Person) {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => eprintln!("(nothing running; Ctrl-D or /bye quits)"),
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("reading a line from the terminal"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One question per line of standard input, one answer each: exit 0 when every question was
/// answered, 1 when one was not, 2 when one failed.
pub fn lines<G: Generator + Notes>(asker: &mut Asker<G>, options: &mut Options) -> anyhow::Result<ExitCode> {
    let (mut unanswered, mut failed) = (false, false);
    for line in std::io::stdin().lock().lines() {
        let line = line.context("reading a question from standard input")?;
        match step(asker, options, &line, Mode::Lines) {
            Step::Answered(answered) => unanswered |= !answered,
            Step::Failed => failed = true,
            Step::Quit => break,
            Step::Done => {}
        }
    }
    Ok(match (failed, unanswered) {
        (true, _) => ExitCode::from(2),
        (false, true) => ExitCode::from(1),
        (false, false) => ExitCode::SUCCESS,
    })
}

/// Runs one line: asks its question or runs its command.
fn step<G: Generator + Notes>(asker: &mut Asker<G>, options: &mut Options, line: &str, mode: Mode) -> Step {
    let parsed = match command::parse(line) {
        Ok(p) => p,
        Err(e) => return failed(options, mode, line, &e.to_string()),
    };
    match parsed {
        Line::Empty => Step::Done,
        Line::Question(q) => ask(asker, options, &q, mode),
        Line::Command(Command::Bye) => Step::Quit,
        Line::Command(c) => match apply(options, c) {
            Ok(()) => Step::Done,
            Err(e) => failed(options, mode, line, &error_text(&e)),
        },
    }
}

fn ask<G: Generator + Notes>(asker: &mut Asker<G>, options: &Options, question: &str, mode: Mode) -> Step {
    match asker.ask(question, options) {
        Ok(answer) => match output::print(&answer, options, mode) {
            Ok(()) => Step::Answered(answer.has_rows()),
            Err(e) => failed(options, mode, question, &error_text(&e)),
        },
        Err(AgentError::Generate(GenerateError::Cancelled)) => {
            eprintln!("(episode stopped)");
            Step::Failed
        }
        Err(e) => failed(options, mode, question, &error_text(&with_flag_hint(e.into()))),
    }
}

/// Says what failed: on stderr (escaped), and for a script reading JSON Lines, as the line's
/// answer.
fn failed(options: &Options, mode: Mode, line: &str, error: &str) -> Step {
    if mode == Mode::Lines && options.format == Format::Json {
        println!("{}", serde_json::json!({ "line": line, "error": error }));
    }
    eprintln!("error: {}", escape_controls(error));
    Step::Failed
}

/// Runs a command on the session's options.
fn apply(options: &mut Options, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Db(path) => {
            // Refused here, not at the next question.
            sqale::env::Environment::open(&path)?;
            eprintln!("database: {}", escape_line(&path.display().to_string()));
            options.db = path;
        }
        Command::Evidence(e) => {
            eprintln!("evidence: {}", escape_line(e.as_deref().unwrap_or("(none)")));
            options.evidence = e;
        }
        Command::Trace(on) => options.trace = on,
        Command::Seed(seed) => options.seed = seed,
        Command::Help => eprintln!("{HELP}"),
        Command::Bye => {}
    }
    Ok(())
}

/// `ask_history` in sqale's cache (its folder made), or none where it cannot be.
fn history_file() -> Option<PathBuf> {
    let root = sqale::cache::root();
    match std::fs::create_dir_all(&root) {
        Ok(()) => Some(root.join("ask_history")),
        Err(e) => {
            eprintln!(
                "sqale: no history this session: cannot create {}: {e}",
                escape_line(&root.display().to_string())
            );
            None
        }
    }
}

/// Writes the history whole (a temporary file renamed over the old one); a failure is said
/// and the session goes on.
fn save_history(editor: &mut DefaultEditor, path: &std::path::Path) {
    let mut save = || -> anyhow::Result<()> {
        let file = sqale::atomic::AtomicFile::create(path)?;
        editor.save_history(file.temp_path())?;
        file.commit()?;
        Ok(())
    };
    if let Err(e) = save() {
        eprintln!(
            "sqale: could not save the history to {}: {}",
            escape_line(&path.display().to_string()),
            escape_controls(&e.to_string())
        );
    }
}
