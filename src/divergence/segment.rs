//! Where in a turn a token is: thinking, a tool call's JSON, the SQL inside a call, or the
//! answer text around the calls. Divergence is reported per place because a quantised model
//! that drifts in its thinking costs less than one that writes other SQL.
//!
//! The runtime opens every assistant turn inside `<think>` ([`crate::prompt::ASSISTANT_OPEN`]),
//! so everything up to the last `</think>` is thinking, and a turn that never closes it is
//! thinking throughout (the protocol parser, which looks for calls leniently, would still read
//! calls in it). After `</think>`, each JSON object is a call, and the string value of an
//! `"sql"` key inside one is SQL.

use serde::{Deserialize, Serialize};

/// Where a generated token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Inside the `<think>` block.
    Thinking,
    /// A tool call's JSON (its name, its braces, arguments other than SQL).
    #[serde(rename = "tool_call")]
    Call,
    /// The string value of an `"sql"` argument.
    Sql,
    /// Text after the thinking and outside any call (the final answer, stray prose).
    Answer,
}

impl Place {
    /// Every place, in report order.
    pub const ALL: [Place; 4] = [Place::Thinking, Place::Call, Place::Sql, Place::Answer];

    /// The name the reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Thinking => "thinking",
            Place::Call => "tool call",
            Place::Sql => "sql",
            Place::Answer => "answer",
        }
    }

    /// One byte, for the compact reference file.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The place of [`Self::code`]; `None` for a byte no place writes.
    pub fn from_code(code: u8) -> Option<Place> {
        Place::ALL.get(code as usize).copied()
    }
}

/// The place of every byte of `text` (one turn's completion).
pub fn places_of_bytes(text: &[u8]) -> Vec<Place> {
    let mut out = Vec::with_capacity(text.len());
    let close = b"</think>";
    let Some(answer_from) = text.windows(close.len()).rposition(|w| w == close).map(|i| i + close.len()) else {
        return vec![Place::Thinking; text.len()];
    };
    out.resize(answer_from, Place::Thinking);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // The last string closed inside an object, and whether a `:` followed it (it is a key).
    let mut last_string: Vec<u8> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut after_key: Option<Vec<u8>> = None;
    let mut sql_string = false;
    for &b in &text[answer_from..] {
        if depth == 0 {
            if b == b'{' {
                depth = 1;
                out.push(Place::Call);
            } else {
                out.push(Place::Answer);
            }
            continue;
        }
        if in_string {
            // The closing quote is JSON, as the opening one is.
            let closing = !escaped && b == b'"';
            out.push(if sql_string && !closing { Place::Sql } else { Place::Call });
            if escaped {
                escaped = false;
                current.push(b);
            } else if b == b'\\' {
                escaped = true;
            } else if closing {
                in_string = false;
                sql_string = false;
                last_string = std::mem::take(&mut current);
            } else {
                current.push(b);
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                current.clear();
                // A string right after `"sql":` is the SQL (its opening quote is JSON).
                sql_string = after_key.take().is_some_and(|k| k.eq_ignore_ascii_case(b"sql"));
                out.push(Place::Call);
                continue;
            }
            b':' => after_key = Some(std::mem::take(&mut last_string)),
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b if b.is_ascii_whitespace() => {}
            _ => after_key = None,
        }
        out.push(Place::Call);
    }
    out
}

/// The place of each token of a turn, from each token's text `pieces` (bytes, in order): the
/// place of the token's first byte that is not whitespace (its first byte when it is all
/// whitespace; the answer for a token with no bytes).
pub fn places_of_tokens(pieces: &[Vec<u8>]) -> Vec<Place> {
    let text: Vec<u8> = pieces.concat();
    let bytes = places_of_bytes(&text);
    let mut at = 0;
    pieces
        .iter()
        .map(|p| {
            let lead = p.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
            let place = if p.is_empty() { Place::Answer } else { bytes[at + lead] };
            at += p.len();
            place
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(text: &str) -> String {
        places_of_bytes(text.as_bytes())
            .iter()
            .map(|p| match p {
                Place::Thinking => 't',
                Place::Call => 'c',
                Place::Sql => 's',
                Place::Answer => 'a',
            })
            .collect()
    }

    #[test]
    fn thinking_calls_sql_and_answer_are_told_apart() {
        let text = r#"<think>x</think> {"tool": "run_query", "args": {"sql": "SELECT \"a\" FROM t"}} ok"#;
        let p = places(text);
        assert_eq!(&p[..16], "tttttttttttttttt", "{p}");
        let sql_at = text.find("SELECT").unwrap();
        assert_eq!(&p[sql_at..sql_at + 19], "sssssssssssssssssss", "{p}");
        assert_eq!(p.as_bytes()[sql_at - 1], b'c', "the opening quote is JSON: {p}");
        assert_eq!(p.as_bytes()[text.find("run_query").unwrap()], b'c');
        assert!(p.ends_with("ccaaa"), "{p}");
        assert_eq!(p.chars().filter(|&c| c == 's').count(), r#"SELECT \"a\" FROM t"#.len(), "{p}");
    }

    #[test]
    fn a_turn_without_a_closing_tag_is_all_thinking() {
        // The turn opened inside <think> and never left it.
        assert!(places(r#"{"tool": "list_tables"} done"#).chars().all(|c| c == 't'));
        // Braces and "sql" inside another argument's string do not open anything.
        let p = places(r#"</think>{"tool": "x", "args": {"note": "{sql: 1}", "sql": "S"}}"#);
        assert_eq!(p.matches('s').count(), 1, "{p}");
    }

    #[test]
    fn tokens_take_the_place_of_their_first_visible_byte() {
        let pieces: Vec<Vec<u8>> = ["<think>", "a", "</think>", " {\"", "sql", "\":", " \"", "SELECT", " 1", "\"}", ""]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let got = places_of_tokens(&pieces);
        use Place::*;
        assert_eq!(got, vec![Thinking, Thinking, Thinking, Call, Call, Call, Call, Sql, Sql, Call, Answer]);
    }
}
