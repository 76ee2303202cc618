//! What a service tells its callers: the events of an episode as it happens, and the answer
//! ([`Answer`], shared with `sqale ask`).
//!
//! Events are owned and serialisable (the agent's [`Event`] borrows): one JSON object each,
//! tagged by `type`, sent as server-sent events by the HTTP API and shown by the web page.

use serde::Serialize;
use serde_json::Value;

use crate::agent::Event;
pub use crate::answer::Answer;
use crate::prompt::LimitReason;

/// One thing that happened in an episode, for a live stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EpisodeEvent {
    /// The request waits behind this many others.
    Queued {
        /// Requests ahead of this one.
        position: usize,
    },
    /// A sequence took the episode.
    Started {
        /// The database's name.
        db: String,
        /// The sampling seed.
        seed: u32,
    },
    /// A turn begins.
    Turn {
        /// 1-based turn number.
        index: usize,
        /// True for the answer after the exploration limit.
        final_turn: bool,
    },
    /// Generated text: inside `<think>` when `thinking` is set.
    Text {
        /// The new text.
        delta: String,
        /// Whether it is the model's thinking.
        thinking: bool,
    },
    /// A completion ended.
    TurnEnd {
        /// Tokens generated.
        tokens: usize,
    },
    /// A tool call ran.
    Call {
        /// The tool named.
        tool: String,
        /// Its arguments.
        args: Value,
        /// Whether it succeeded.
        ok: bool,
        /// What the model was shown.
        result: String,
    },
    /// The results went back to the model.
    Budget {
        /// Tool turns left.
        turns_left: usize,
        /// Why exploration just ended, if it did.
        limit: Option<String>,
        /// Tokens in the conversation.
        context_tokens: usize,
    },
}

impl EpisodeEvent {
    /// Its `type` tag, the name of its server-sent event.
    pub fn kind(&self) -> &'static str {
        match self {
            EpisodeEvent::Queued { .. } => "queued",
            EpisodeEvent::Started { .. } => "started",
            EpisodeEvent::Turn { .. } => "turn",
            EpisodeEvent::Text { .. } => "text",
            EpisodeEvent::TurnEnd { .. } => "turn_end",
            EpisodeEvent::Call { .. } => "call",
            EpisodeEvent::Budget { .. } => "budget",
        }
    }
}

/// Turns the agent's events into [`EpisodeEvent`]s, marking which text is thinking: the
/// runtime opens every turn inside `<think>`, so text is thinking until `</think>`.
#[derive(Debug, Default)]
pub struct EventMapper {
    turn_text: String,
    thought: bool,
}

impl EventMapper {
    /// The events for one agent event (a text piece that closes the thinking gives two).
    pub fn map(&mut self, event: Event<'_>) -> Vec<EpisodeEvent> {
        match event {
            Event::TurnStart { index, final_turn } => {
                self.turn_text.clear();
                self.thought = false;
                vec![EpisodeEvent::Turn { index, final_turn }]
            }
            Event::Text(t) => self.text(t),
            Event::TurnEnd { tokens } => vec![EpisodeEvent::TurnEnd { tokens }],
            Event::Call(c) => vec![EpisodeEvent::Call {
                tool: c.tool.clone(),
                args: c.args.clone(),
                ok: c.ok,
                result: c.result.clone(),
            }],
            Event::Budget { turns_left, limit, context_tokens } => vec![EpisodeEvent::Budget {
                turns_left,
                limit: limit.map(|l| match l {
                    LimitReason::TurnsUsed => "turns_used".to_string(),
                    LimitReason::FailedQueries(n) => format!("{n}_failed_queries"),
                }),
                context_tokens,
            }],
        }
    }

    fn text(&mut self, piece: &str) -> Vec<EpisodeEvent> {
        const END: &str = "</think>";
        let text = |delta: &str, thinking| EpisodeEvent::Text { delta: delta.to_string(), thinking };
        if self.thought || piece.is_empty() {
            return if piece.is_empty() { vec![] } else { vec![text(piece, false)] };
        }
        let before = self.turn_text.len();
        self.turn_text.push_str(piece);
        match self.turn_text.find(END) {
            None => vec![text(piece, true)],
            Some(at) => {
                self.thought = true;
                // The tag may have begun in an earlier piece; it ends in this one.
                let split = at + END.len() - before;
                let (thinking, answer) = piece.split_at(split);
                let mut out = vec![text(thinking, true)];
                if !answer.is_empty() {
                    out.push(text(answer, false));
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(events: &[EpisodeEvent]) -> Vec<(String, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                EpisodeEvent::Text { delta, thinking } => Some((delta.clone(), *thinking)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn thinking_ends_at_the_closing_tag_even_across_pieces() {
        let mut m = EventMapper::default();
        let mut out = m.map(Event::TurnStart { index: 1, final_turn: false });
        for piece in ["let me ", "look</th", "ink>\n\n<tool", "_call>"] {
            out.extend(m.map(Event::Text(piece)));
        }
        assert_eq!(
            texts(&out),
            [
                ("let me ".into(), true),
                ("look</th".into(), true),
                ("ink>".into(), true),
                ("\n\n<tool".into(), false),
                ("_call>".into(), false)
            ]
        );
        // A new turn thinks again.
        let out = [m.map(Event::TurnStart { index: 2, final_turn: true }), m.map(Event::Text("hm"))].concat();
        assert_eq!(texts(&out), [("hm".into(), true)]);
    }

    #[test]
    fn kind_is_the_serialised_type_tag() {
        let events = [
            EpisodeEvent::Queued { position: 0 },
            EpisodeEvent::Started { db: "d".into(), seed: 1 },
            EpisodeEvent::Turn { index: 1, final_turn: false },
            EpisodeEvent::Text { delta: "x".into(), thinking: true },
            EpisodeEvent::TurnEnd { tokens: 1 },
            EpisodeEvent::Call { tool: "t".into(), args: Value::Null, ok: true, result: String::new() },
            EpisodeEvent::Budget { turns_left: 1, limit: None, context_tokens: 1 },
        ];
        for e in events {
            assert_eq!(serde_json::to_value(&e).unwrap()["type"], e.kind());
        }
    }
}
