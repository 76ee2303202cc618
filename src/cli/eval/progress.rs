//! What `sqale eval` shows while the study runs: a progress bar per step (each model's episodes
//! with its EX so far, the databases cut, the teacher-forced passes) and a line on stderr for
//! what needs doing about episodes that failed or were not measured.
//!
//! When stderr is not a terminal (a log file, CI), indicatif draws nothing; plain lines take the
//! bars' place: one per finished episode, and one per step with its elapsed time.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use sqale::eval::study::{Pass, StudyEvent, Tally};

/// One line on stderr, escaped for the terminal as one line: labels, model names and
/// question ids come from the command line and the manifest, and may hold control characters or
/// line breaks.
fn say(line: String) {
    eprintln!("{}", sqale::printable::escape_line(&line));
}

/// A bar of `total` steps, `prefix` before it (hidden with `--json`).
pub(super) fn spinner_bar(total: usize, prefix: &str, json: bool) -> ProgressBar {
    styled(total, prefix, "{prefix} [{bar:30}] {pos}/{len} ({elapsed})", json)
}

fn styled(total: usize, prefix: &str, template: &str, json: bool) -> ProgressBar {
    if json {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total as u64);
    pb.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "),
    );
    pb.set_prefix(sqale::printable::escape_line(prefix).into_owned());
    pb
}

/// The study's progress, one bar at a time.
pub(super) struct Progress {
    json: bool,
    bar: Option<ProgressBar>,
    /// Plain lines instead of bars (stderr is not a terminal, and not `--json`): the step under
    /// way, its episodes done and in all, and when it started.
    lines: Option<Step>,
}

/// A step shown as plain lines.
struct Step {
    label: String,
    done: usize,
    total: usize,
    started: Instant,
}

impl Progress {
    pub(super) fn new(json: bool) -> Self {
        Progress::with_lines(json, !json && !std::io::stderr().is_terminal())
    }

    /// Plain lines (`lines`) or bars.
    fn with_lines(json: bool, lines: bool) -> Self {
        let step = lines.then(|| Step { label: String::new(), done: 0, total: 0, started: Instant::now() });
        Progress { json, bar: None, lines: step }
    }

    /// Starts a step of plain lines.
    fn step(&mut self, label: String, done: usize, total: usize) {
        if let Some(step) = &mut self.lines {
            if step.label != label {
                *step = Step { label, done, total, started: Instant::now() };
            }
        }
    }

    /// The line that ends a step of plain lines: its episodes and elapsed time.
    fn step_done(&mut self, what: &str) {
        if let Some(step) = &mut self.lines {
            if !step.label.is_empty() {
                say(format!("{}: {what} in {:.1} s", step.label, step.started.elapsed().as_secs_f64()));
                step.label.clear();
            }
        }
    }

    /// The bar of the step under way, made by `make` when the step starts.
    fn bar(&mut self, make: impl FnOnce(bool) -> ProgressBar) -> &ProgressBar {
        let json = self.json;
        self.bar.get_or_insert_with(|| make(json))
    }

    fn clear(&mut self) {
        if let Some(pb) = self.bar.take() {
            pb.finish_and_clear();
        }
    }

    /// Shows one event of the study.
    pub(super) fn show(&mut self, event: StudyEvent<'_>) {
        let event_end = match &event {
            StudyEvent::PlayedAll { tally, .. } => {
                Some(format!("{} episodes played, EX {}", tally.run.episodes, ex(tally)))
            }
            StudyEvent::Forced { .. } => self.lines.as_ref().map(|s| format!("{} episodes teacher-forced", s.total)),
            _ => None,
        };
        match event {
            StudyEvent::Probing { urls } if !self.json => {
                say(format!("probing {} server(s): {}", urls.len(), urls.join(", ")))
            }
            StudyEvent::Cutting { condition, done, total } => {
                self.bar(|json| spinner_bar(total, &format!("schema {condition}"), json)).set_position(done as u64);
                if done == total {
                    self.clear();
                }
            }
            StudyEvent::Playing { label, total, done } => {
                self.clear();
                let template = "{prefix} [{bar:30}] {pos}/{len} EX {msg} ({elapsed}, ETA {eta})";
                self.bar(|json| styled(total, label, template, json)).set_position(done as u64);
                self.step(label.to_string(), done, total);
                if let Some(step) = self.lines.as_ref().filter(|_| done > 0) {
                    say(format!("{}: {done} of {} episodes already in the results folder", step.label, step.total));
                }
            }
            StudyEvent::Played { tally, record, .. } => {
                if let Some(pb) = &self.bar {
                    pb.inc(1);
                    pb.set_message(ex(tally));
                }
                if let Some(step) = &mut self.lines {
                    step.done += 1;
                    let outcome = match (&record.error, record.gold_ok, record.correct) {
                        (Some(_), ..) => "failed",
                        (None, false, _) => "gold query failed",
                        (None, true, true) => "right",
                        (None, true, false) => "wrong",
                    };
                    let ended = record.ended_by.map(|e| format!(", ended by {e}")).unwrap_or_default();
                    say(format!(
                        "{}: episode {}/{} {}: {outcome}{ended}, {:.1} s; EX {}",
                        step.label,
                        step.done,
                        step.total,
                        record.id,
                        record.seconds,
                        ex(tally)
                    ));
                }
            }
            StudyEvent::Rescored { count } => {
                say(format!("{count} record(s) of the results folder scored again: their question's gold SQL changed in the benchmark"));
            }
            StudyEvent::PromptLong { label, prompt_tokens, budget } => {
                say(format!(
                    "warning: {label}: the prompt takes {prompt_tokens} of the episode's {budget} tokens (--max-episode-tokens counts the prompt: \
                     system turn, tools, schema and question), leaving {} for the model's turns and tool results; raise --max-episode-tokens",
                    budget.saturating_sub(prompt_tokens)
                ));
            }
            StudyEvent::PlayedAll { tally, served: true, reference, .. } if tally.failed > 0 => {
                self.clear();
                let failed = tally.failed;
                if reference {
                    say(format!("{failed} reference episodes failed on the servers (not measured): run the same command again to play them"));
                } else {
                    say(format!("{failed} episodes failed on the servers (recorded with their error, not scored): run the same command again to play them"));
                }
            }
            StudyEvent::Forcing { label, pass, done, total } => {
                let prefix = match pass {
                    Pass::Reference => format!("{label}: reference distributions"),
                    _ => format!("{label}: divergence"),
                };
                let pb = self.bar(|json| spinner_bar(0, &prefix, json));
                pb.set_length(total as u64);
                pb.set_position(done as u64);
                self.step(prefix, done, total);
                if let Some(step) = self.lines.as_mut().filter(|s| done > 0 && done > s.done) {
                    step.done = done;
                    say(format!("{}: episode {done}/{total} teacher-forced", step.label));
                }
            }
            StudyEvent::Forced { label, pass: Pass::Divergence, skipped } if skipped > 0 && !self.json => {
                self.clear();
                say(format!("{label}: {skipped} question(s) not measured (why: summary.md)"));
            }
            StudyEvent::PlayedAll { .. } | StudyEvent::Forced { .. } => self.clear(),
            _ => {}
        }
        // The line that closes a step, with its elapsed time.
        if let Some(what) = event_end {
            self.step_done(&what);
        }
    }
}

/// EX so far: `correct/scored`, and the episodes that failed on a server.
fn ex(t: &Tally) -> String {
    let (c, n) = (t.correct, t.scored);
    if t.failed > 0 {
        format!("{c}/{n}, {} failed", t.failed)
    } else {
        format!("{c}/{n}")
    }
}
