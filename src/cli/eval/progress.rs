//! What `sqale eval` shows while the study runs: a progress bar per step (each model's episodes
//! with its EX so far, the databases cut, the teacher-forced passes) and a line on stderr for
//! what needs doing about episodes that failed or were not measured.

use indicatif::{ProgressBar, ProgressStyle};
use sqale::eval::study::{Pass, StudyEvent, Tally};

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
    pb.set_prefix(prefix.to_string());
    pb
}

/// The study's progress, one bar at a time.
pub(super) struct Progress {
    json: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub(super) fn new(json: bool) -> Self {
        Progress { json, bar: None }
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
        match event {
            StudyEvent::Probing { urls } if !self.json => {
                eprintln!("probing {} server(s): {}", urls.len(), urls.join(", "))
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
            }
            StudyEvent::Played { tally, .. } => {
                if let Some(pb) = &self.bar {
                    pb.inc(1);
                    pb.set_message(ex(tally));
                }
            }
            StudyEvent::PlayedAll { tally, served: true, reference, .. } if tally.failed > 0 => {
                self.clear();
                let failed = tally.failed;
                if reference {
                    eprintln!("{failed} reference episodes failed on the servers (not measured): run the same command again to play them");
                } else {
                    eprintln!("{failed} episodes failed on the servers (recorded with their error, not scored): run the same command again to play them");
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
            }
            StudyEvent::Forced { label, pass: Pass::Divergence, skipped } if skipped > 0 && !self.json => {
                self.clear();
                eprintln!("{label}: {skipped} question(s) not measured (why: summary.md)");
            }
            StudyEvent::PlayedAll { .. } | StudyEvent::Forced { .. } => self.clear(),
            _ => {}
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
