//! Progress of the long commands on stderr: an indicatif bar on a terminal, and plain lines
//! when stderr is not a terminal (a log file, CI), where indicatif draws nothing: a line at most
//! every few seconds, and one when a step completes. Nothing when quiet (`--json`).

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use sqale::printable::escape_line;

/// Seconds between two plain lines of the same step.
pub(super) const EVERY: f64 = 5.0;

/// Whether progress goes out as plain lines: not `quiet`, and stderr is not a terminal.
pub(super) fn plain(quiet: bool) -> bool {
    !quiet && !std::io::stderr().is_terminal()
}

/// Progress as plain lines on stderr: a line at most every `every` seconds, and one when a step
/// reaches its total.
pub(super) struct Lines {
    every: f64,
    started: Instant,
    last: Option<Instant>,
    /// The step and count of the last line, so that a completed step is said once.
    said: Option<(String, u64, u64)>,
}

impl Lines {
    /// Lines at most every `every` seconds, elapsed time counted from now.
    pub(super) fn new(every: f64) -> Self {
        Lines { every, started: Instant::now(), last: None, said: None }
    }

    /// `step: done/total what (elapsed s)`, when due; escaped as one line.
    pub(super) fn say(&mut self, step: &str, done: u64, total: u64, what: &str) {
        self.say_counted(step, done, total, &format!("{done}/{total} {what}"), false);
    }

    /// `step: count (elapsed s)` when due (or `now`), `count` already formatted from `done` and
    /// `total`; never the same step and count twice.
    fn say_counted(&mut self, step: &str, done: u64, total: u64, count: &str, now: bool) {
        let key = (step.to_string(), done, total);
        if self.said.as_ref() == Some(&key) {
            return;
        }
        let due = self.last.is_none_or(|t| t.elapsed().as_secs_f64() >= self.every);
        if due || now || done >= total {
            self.last = Some(Instant::now());
            self.said = Some(key);
            let line = format!("{step}: {count} ({:.1} s)", self.started.elapsed().as_secs_f64());
            eprintln!("{}", escape_line(line.trim_end()));
        }
    }
}

/// A step's progress: an indicatif bar on a terminal, [`Lines`] otherwise, nothing when quiet.
pub(super) struct Progress {
    bar: ProgressBar,
    lines: Option<Lines>,
    prefix: String,
    message: String,
    bytes: bool,
    /// Done and in all, as last set.
    at: Option<(u64, u64)>,
}

impl Progress {
    /// A bar drawn with indicatif's `template`, named `prefix` (hidden when `quiet`).
    pub(super) fn new(template: &str, prefix: &str, quiet: bool) -> Self {
        let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(0) };
        bar.set_style(
            ProgressStyle::with_template(template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(prefix.to_string());
        let lines = plain(quiet).then(|| Lines::new(EVERY));
        Progress { bar, lines, prefix: prefix.to_string(), message: String::new(), bytes: false, at: None }
    }

    /// Counts in bytes: plain lines show megabytes.
    pub(super) fn in_bytes(mut self) -> Self {
        self.bytes = true;
        self
    }

    /// Names the step.
    pub(super) fn set_prefix(&mut self, prefix: &str) {
        if self.prefix != prefix {
            self.prefix = prefix.to_string();
            self.bar.set_prefix(prefix.to_string());
        }
    }

    /// What follows the count (escaped as one line).
    pub(super) fn set_message(&mut self, message: &str) {
        let message = escape_line(message).into_owned();
        if self.message != message {
            self.message = message.clone();
            self.bar.set_message(message);
        }
    }

    /// `done` of `total`: the bar moves; a plain line when one is due.
    pub(super) fn set(&mut self, done: u64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(done);
        self.at = Some((done, total));
        self.say(false);
    }

    /// The plain line of where the step is, when due (or `now`).
    fn say(&mut self, now: bool) {
        let (Some(lines), Some((done, total))) = (&mut self.lines, self.at) else { return };
        let count = if self.bytes {
            format!("{:.1}/{:.1} MB {}", done as f64 / 1e6, total as f64 / 1e6, self.message)
        } else {
            format!("{done}/{total} {}", self.message)
        };
        lines.say_counted(&self.prefix, done, total, count.trim_end(), now);
    }

    /// Runs `f` with the bar out of the way (for a line of its own on stderr).
    pub(super) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the bar; as plain lines, says where the step ended unless that was said.
    pub(super) fn finish(mut self) {
        self.say(true);
        self.bar.finish_and_clear();
    }
}
