//! Reading tool calls out of a completion.
//!
//! The models write a `<think>` block, then one or more bare JSON objects
//! `{"tool": "<name>", "args": {...}}`. The parser is tolerant of what small models do around
//! them (whitespace, stray prose, code fences, raw newlines inside SQL strings) but never guesses
//! past the JSON: an object is taken whole by a real JSON parser, so braces inside SQL strings
//! cannot confuse it.

use serde_json::{Map, Value};

/// One tool call as the model wrote it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// The `args` object (`null` when the model wrote none).
    pub args: Value,
}

/// What was found at one `{` in the answer part of a completion.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A well-formed tool call.
    Call(ToolCall),
    /// Something that was meant as a call but is not one; the message says why.
    Malformed {
        /// The offending text (cut to a readable length).
        text: String,
        /// What is wrong with it.
        error: String,
    },
}

/// A completion split into its thinking and its answer, with the calls found in the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedTurn {
    /// Text before `</think>` (empty when the model wrote no closing tag).
    pub thinking: String,
    /// Text after the last `</think>`, or the whole completion when there is none.
    pub answer: String,
    /// Calls and malformed calls, in order of appearance.
    pub items: Vec<Parsed>,
}

impl ParsedTurn {
    /// The well-formed calls, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.items.iter().filter_map(|p| match p {
            Parsed::Call(c) => Some(c),
            Parsed::Malformed { .. } => None,
        })
    }
}

/// Splits a completion at `</think>` and extracts every tool call after it.
pub fn parse_completion(completion: &str) -> ParsedTurn {
    let (thinking, answer) = match completion.rfind("</think>") {
        Some(i) => (&completion[..i], &completion[i + "</think>".len()..]),
        None => ("", completion),
    };
    let thinking = thinking.strip_prefix("<think>").unwrap_or(thinking);
    ParsedTurn {
        thinking: thinking.trim().to_string(),
        answer: answer.trim().to_string(),
        items: extract_calls(answer),
    }
}

/// Finds every JSON object in `text` that is (or tries to be) a tool call.
pub fn extract_calls(text: &str) -> Vec<Parsed> {
    let mut items = Vec::new();
    let mut pos = 0;
    while let Some(off) = text[pos..].find('{') {
        let start = pos + off;
        let rest = &text[start..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(map))) => {
                pos = start + stream.byte_offset();
                items.push(to_call(map, &rest[..stream.byte_offset()]));
            }
            _ => {
                // Not valid JSON as written. Find where the object would end (string-aware
                // brace matching), and retry once with raw control characters escaped:
                // small models often put real newlines inside SQL strings.
                let end = object_end(rest);
                let candidate = &rest[..end.unwrap_or(rest.len())];
                pos = start + end.unwrap_or(1);
                if let Ok(Value::Object(map)) = serde_json::from_str(&escape_controls(candidate)) {
                    items.push(to_call(map, candidate));
                } else if looks_like_call(candidate) {
                    let error = match serde_json::from_str::<Value>(candidate) {
                        Err(e) => format!("invalid JSON: {e}"),
                        Ok(_) => "invalid JSON".to_string(),
                    };
                    let error = if end.is_none() {
                        "invalid JSON: the object is not closed".to_string()
                    } else {
                        error
                    };
                    items.push(Parsed::Malformed {
                        text: shorten(candidate),
                        error,
                    });
                    // An object that never closes swallows the rest of the text; resume at the
                    // next thing that starts like a call instead, so later calls still run.
                    pos = match end {
                        Some(e) => start + e,
                        None => next_call_start(&text[start + 1..]).map_or(text.len(), |i| start + 1 + i),
                    };
                }
            }
        }
    }
    items
}

fn to_call(mut map: Map<String, Value>, text: &str) -> Parsed {
    // Qwen's native function-calling shape ({"name", "arguments"}) is accepted as well.
    let tool = map.remove("tool").or_else(|| map.remove("name"));
    let args = map
        .remove("args")
        .or_else(|| map.remove("arguments"))
        .unwrap_or(Value::Null);
    let args = match args {
        // Some models double-encode: "args": "{\"sql\": ...}".
        Value::String(s) if s.trim_start().starts_with('{') => {
            serde_json::from_str(&s).unwrap_or(Value::String(s))
        }
        other => other,
    };
    match tool {
        Some(Value::String(tool)) => Parsed::Call(ToolCall { tool, args }),
        Some(_) => Parsed::Malformed {
            text: shorten(text),
            error: "\"tool\" must be a string".to_string(),
        },
        None => Parsed::Malformed {
            text: shorten(text),
            error: "a tool call needs a \"tool\" field".to_string(),
        },
    }
}

/// Offset of the next `{` followed (after whitespace) by `"tool"`.
fn next_call_start(text: &str) -> Option<usize> {
    text.match_indices('{')
        .map(|(i, _)| i)
        .find(|&i| text[i + 1..].trim_start().starts_with("\"tool\""))
}

fn looks_like_call(text: &str) -> bool {
    text.contains("\"tool\"") || text.contains("'tool'") || text.contains("\"name\"")
}

/// Byte offset just past the `}` that closes the object opening at `text[0]`, matching braces
/// outside JSON strings. `None` when it never closes.
fn object_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Escapes raw newlines, carriage returns and tabs inside JSON strings.
fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                    continue;
                }
                '\\' => escaped = true,
                '"' => in_string = false,
                '\n' => {
                    out.push_str("\\n");
                    continue;
                }
                '\r' => {
                    out.push_str("\\r");
                    continue;
                }
                '\t' => {
                    out.push_str("\\t");
                    continue;
                }
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

fn shorten(text: &str) -> String {
    const MAX: usize = 200;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let s: String = text.chars().take(MAX).collect();
        format!("{s}…")
    }
}

/// The SQL of a final answer: the last `submit_sql` call, else the last `run_query` call, else a
/// fenced or bare query in the answer text. `None` when the answer holds no SQL.
pub fn final_answer_sql(turn: &ParsedTurn) -> Option<String> {
    let sql_of = |name: &str| {
        turn.calls()
            .filter(|c| c.tool == name)
            .filter_map(|c| c.args.get("sql").and_then(Value::as_str))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .last()
            .map(str::to_string)
    };
    if let Some(sql) = sql_of("submit_sql").or_else(|| sql_of("run_query")) {
        return Some(sql);
    }
    let answer = turn.answer.as_str();
    if let Some(start) = answer.find("```") {
        let body = &answer[start + 3..];
        let body = body.strip_prefix("sql").or_else(|| body.strip_prefix("SQL")).unwrap_or(body);
        if let Some(end) = body.find("```") {
            let sql = body[..end].trim();
            if !sql.is_empty() {
                return Some(sql.to_string());
            }
        }
    }
    let trimmed = answer.trim();
    let head: String = trimmed.chars().take(6).collect::<String>().to_ascii_uppercase();
    if head.starts_with("SELECT") || head.starts_with("WITH") {
        return Some(trimmed.to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(text: &str) -> Vec<Parsed> {
        parse_completion(text).items
    }

    fn call(tool: &str, args: Value) -> Parsed {
        Parsed::Call(ToolCall { tool: tool.into(), args })
    }

    #[test]
    fn several_calls_with_whitespace_and_stray_text() {
        let text = "<think>\nI will look {maybe} at tables {\"tool\": \"x\"}\n</think>\n\n\
                    {\"tool\": \"list_tables\"}\nthen\n  {\"tool\":\"describe_table\",\"args\":{\"table_name\":\"orders\"}} ";
        assert_eq!(
            calls(text),
            vec![call("list_tables", Value::Null), call("describe_table", json!({"table_name": "orders"}))]
        );
        assert!(parse_completion(text).thinking.contains("{maybe}"));
    }

    #[test]
    fn braces_inside_sql_strings_do_not_confuse() {
        let text = r#"</think>{"tool": "run_query", "args": {"sql": "SELECT '}{' || name FROM t WHERE x = '{\"tool\": 1}'"}}"#;
        assert_eq!(
            calls(text),
            vec![call("run_query", json!({"sql": "SELECT '}{' || name FROM t WHERE x = '{\"tool\": 1}'"}))]
        );
    }

    #[test]
    fn raw_newlines_in_strings_and_code_fences_are_tolerated() {
        let text = "</think>```json\n{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT 1\nFROM t\"}}\n```";
        assert_eq!(calls(text), vec![call("run_query", json!({"sql": "SELECT 1\nFROM t"}))]);
    }

    #[test]
    fn malformed_calls_are_reported_once() {
        let items = calls("</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT 1\"}");
        assert_eq!(items.len(), 1);
        let items = calls("</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT 1\"} {\"tool\": \"list_tables\"}");
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(items[1], call("list_tables", Value::Null));
        assert!(matches!(&items[0], Parsed::Malformed { error, .. } if error.contains("not closed")));
        let items = calls("</think>{'tool': 'list_tables'} {\"tool\": \"list_tables\"}");
        assert!(matches!(&items[0], Parsed::Malformed { .. }));
        assert_eq!(items[1], call("list_tables", Value::Null));
        let items = calls("</think>{\"sql\": \"SELECT 1\"}");
        assert!(matches!(&items[0], Parsed::Malformed { error, .. } if error.contains("\"tool\"")));
    }

    #[test]
    fn qwen_native_shape_and_double_encoded_args() {
        assert_eq!(
            calls(r#"</think>{"name": "sample_rows", "arguments": "{\"table_name\": \"t\"}"}"#),
            vec![call("sample_rows", json!({"table_name": "t"}))]
        );
    }

    #[test]
    fn no_think_close_means_whole_text_is_answer() {
        let turn = parse_completion("{\"tool\": \"list_tables\"}");
        assert_eq!(turn.thinking, "");
        assert_eq!(turn.items, vec![call("list_tables", Value::Null)]);
    }

    #[test]
    fn final_answer_sql_prefers_submit_then_run_then_text() {
        let t = parse_completion(r#"</think>{"tool":"run_query","args":{"sql":"SELECT 1"}} {"tool":"submit_sql","args":{"sql":"SELECT 2"}}"#);
        assert_eq!(final_answer_sql(&t).as_deref(), Some("SELECT 2"));
        let t = parse_completion(r#"</think>{"tool":"run_query","args":{"sql":"SELECT 1"}}"#);
        assert_eq!(final_answer_sql(&t).as_deref(), Some("SELECT 1"));
        let t = parse_completion("</think>\n```sql\nSELECT 3;\n```");
        assert_eq!(final_answer_sql(&t).as_deref(), Some("SELECT 3;"));
        let t = parse_completion("</think> with x as (select 1) select * from x");
        assert_eq!(final_answer_sql(&t).as_deref(), Some("with x as (select 1) select * from x"));
        assert_eq!(final_answer_sql(&parse_completion("</think>  ")), None);
        assert_eq!(final_answer_sql(&parse_completion("</think>I don't know")), None);
    }
}
