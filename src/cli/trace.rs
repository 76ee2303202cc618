//! The live, human-readable trace of an episode (on stderr): thinking dimmed, each tool call and
//! its result, the budget left. The model's text, its calls and their results (which quote the
//! database) are escaped for the terminal ([`escape_controls`]); only the trace's own styling
//! reaches it as escape sequences.

use std::io::{IsTerminal, Write};

use sqale::agent::Event;
use sqale::printable::{escape_controls, escape_line};
use sqale::prompt::LimitReason;

/// Prints events as they happen.
pub struct Tracer {
    color: bool,
    in_think: bool,
    turn_text: String,
}

impl Tracer {
    pub fn new() -> Self {
        Tracer {
            color: std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            in_think: true,
            turn_text: String::new(),
        }
    }

    fn style(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn event(&mut self, event: Event<'_>) {
        let mut err = std::io::stderr().lock();
        match event {
            Event::TurnStart { index, final_turn } => {
                self.in_think = true;
                self.turn_text.clear();
                let title = if final_turn {
                    format!("── turn {index} (final answer) ──")
                } else {
                    format!("── turn {index} ──")
                };
                let _ = writeln!(err, "\n{}", self.style("1", &title));
                let _ = write!(err, "{}", self.style("2", "<think>\n"));
            }
            Event::Text(piece) => {
                self.turn_text.push_str(piece);
                if self.in_think {
                    if let Some(i) = self.turn_text.find("</think>") {
                        // Print the part of this piece that is still thinking, dimmed.
                        let before_piece = self.turn_text.len() - piece.len();
                        let split = (i + "</think>".len()).saturating_sub(before_piece).min(piece.len());
                        let _ = write!(err, "{}", self.style("2", &escape_controls(&piece[..split])));
                        let _ = write!(err, "{}", escape_controls(&piece[split..]));
                        self.in_think = false;
                    } else {
                        let _ = write!(err, "{}", self.style("2", &escape_controls(piece)));
                    }
                } else {
                    let _ = write!(err, "{}", escape_controls(piece));
                }
                let _ = err.flush();
            }
            Event::TurnEnd { tokens } => {
                let _ = writeln!(err, "\n{}", self.style("2", &format!("[{tokens} tokens]")));
            }
            Event::Call(record) => {
                let args = if record.args.is_null() { String::new() } else { record.args.to_string() };
                let head = if record.tool.is_empty() {
                    "✗ unreadable call".to_string()
                } else {
                    format!("→ {} {args}", record.tool)
                };
                let _ = writeln!(err, "{}", self.style(if record.ok { "36" } else { "31" }, &escape_line(&head)));
                for line in record.result.lines() {
                    let _ = writeln!(err, "  {}", escape_controls(line));
                }
            }
            Event::Budget { turns_left, limit, context_tokens } => {
                let text = match limit {
                    None => format!("[{turns_left} tool turns left · {context_tokens} tokens in context]"),
                    Some(LimitReason::TurnsUsed) => {
                        format!("[exploration limit: tool turns used · {context_tokens} tokens]")
                    }
                    Some(LimitReason::FailedQueries(n)) => {
                        format!("[exploration limit: {n} failed queries in a row · {context_tokens} tokens]")
                    }
                };
                let _ = writeln!(err, "{}", self.style("33", &text));
            }
        }
    }
}
