//! Reading tool calls out of a completion.
//!
//! The models write a `<think>` block, then one or more bare JSON objects
//! `{"tool": "<name>", "args": {...}}`. The parser is tolerant of what small models do around
//! them (whitespace, stray prose, code fences, raw newlines inside SQL strings) but never guesses
//! past the JSON: an object is taken whole by a real JSON parser, so braces inside SQL strings
//! cannot confuse it.

use crate::tools::Tool;
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
    let mut ends = ObjectEnds::default();
    // Where each marker of `looks_like_call` last occurs: an unclosed candidate runs to the end
    // of the text, and asking `contains` of each of them would be quadratic.
    let last_marker = ["\"tool\"", "'tool'", "\"name\""].map(|m| text.rfind(m));
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
                let end = ends.end_at(text, start);
                let candidate = &rest[..end.unwrap_or(rest.len())];
                pos = start + end.unwrap_or(1);
                // An object that never closes cannot parse, escaped or not: skip the attempt
                // (it would cost the rest of the text at every `{` of it).
                let escaped = match end {
                    Some(_) => serde_json::from_str(&escape_controls(candidate)).ok(),
                    None => None,
                };
                let looks_like_call = match end {
                    Some(_) => looks_like_call(candidate),
                    None => last_marker.iter().any(|m| m.is_some_and(|i| i >= start)),
                };
                if let Some(Value::Object(map)) = escaped {
                    items.push(to_call(map, candidate));
                } else if looks_like_call {
                    let error = match serde_json::from_str::<Value>(candidate) {
                        Err(e) => format!("invalid JSON: {e}"),
                        Ok(_) => "invalid JSON".to_string(),
                    };
                    let error =
                        if end.is_none() { "invalid JSON: the object is not closed".to_string() } else { error };
                    items.push(Parsed::Malformed { text: shorten(candidate), error });
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
    let args = map.remove("args").or_else(|| map.remove("arguments")).unwrap_or(Value::Null);
    let args = match args {
        // Some models double-encode: "args": "{\"sql\": ...}".
        Value::String(s) if s.trim_start().starts_with('{') => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    };
    match tool {
        Some(Value::String(tool)) => Parsed::Call(ToolCall { tool, args }),
        Some(_) => Parsed::Malformed { text: shorten(text), error: "\"tool\" must be a string".to_string() },
        None => Parsed::Malformed { text: shorten(text), error: "a tool call needs a \"tool\" field".to_string() },
    }
}

/// Offset of the next `{` followed (after whitespace) by `"tool"`.
fn next_call_start(text: &str) -> Option<usize> {
    text.match_indices('{').map(|(i, _)| i).find(|&i| text[i + 1..].trim_start().starts_with("\"tool\""))
}

fn looks_like_call(text: &str) -> bool {
    text.contains("\"tool\"") || text.contains("'tool'") || text.contains("\"name\"")
}

/// Remembers what scans for object ends learnt, so that a text full of unclosed `{` costs a
/// few passes in all rather than one per `{` (quadratic: a 200 kB completion of `{\"` took
/// 19 s).
#[derive(Default)]
struct ObjectEnds {
    /// Absolute position of a `{` → its length up to the closing `}`, or `None` if it never
    /// closes.
    known: std::collections::HashMap<usize, Option<usize>>,
    /// States (position, after a backslash) inside a string from which the string was found
    /// never to close.
    endless: std::collections::HashSet<(usize, bool)>,
}

impl ObjectEnds {
    /// `object_end(&text[start..])`, from what earlier scans learnt when they can tell.
    ///
    /// Two scans in the same state at the same position (outside a string; or inside one, with
    /// the same escape state) read the rest of the text alike. So a scan that meets a `{` an
    /// earlier scan saw outside a string jumps over its object (or, if that never closes,
    /// knows that neither does any enclosing one); and a scan that enters a state from which
    /// a string was found never to close stops there. Every `{` a scan sees outside a string
    /// is recorded: where it closes, or that it never does.
    fn end_at(&mut self, text: &str, start: usize) -> Option<usize> {
        if let Some(&end) = self.known.get(&start) {
            return end;
        }
        // Only ASCII bytes matter (braces, quotes, backslashes), and the bytes of multi-byte
        // characters are never ASCII: a byte scan reads the text as a char scan would.
        let bytes = text.as_bytes();
        let mut open: Vec<usize> = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        let mut string_states: Vec<(usize, bool)> = Vec::new();
        let mut i = start;
        let mut endless = false;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                if self.endless.contains(&(i, escaped)) {
                    endless = true;
                    break;
                }
                string_states.push((i, escaped));
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => {
                    in_string = true;
                    string_states.clear();
                }
                b'{' => match self.known.get(&i) {
                    Some(&Some(len)) => {
                        i += len;
                        continue;
                    }
                    Some(&None) => break, // it never closes, so neither does any around it
                    None => open.push(i),
                },
                b'}' => {
                    if let Some(o) = open.pop() {
                        self.known.insert(o, Some(i + 1 - o));
                        if open.is_empty() {
                            break;
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if in_string && (endless || i >= bytes.len()) {
            self.endless.extend(string_states);
        }
        for o in open {
            self.known.insert(o, None);
        }
        self.known.get(&start).copied().flatten()
    }
}

/// Byte offset just past the `}` that closes the object opening at `text[0]`, matching braces
/// outside JSON strings. `None` when it never closes. (The reference for [`ObjectEnds`].)
#[cfg(test)]
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
    if let Some(sql) = sql_of(Tool::SubmitSql.name()).or_else(|| sql_of(Tool::RunQuery.name())) {
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
        let text =
            r#"</think>{"tool": "run_query", "args": {"sql": "SELECT '}{' || name FROM t WHERE x = '{\"tool\": 1}'"}}"#;
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
        let items =
            calls("</think>{\"tool\": \"run_query\", \"args\": {\"sql\": \"SELECT 1\"} {\"tool\": \"list_tables\"}");
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

    /// Regression (quadratic time): every unclosed `{` used to rescan, re-escape and
    /// re-search the rest of the text: 200 kB of `{\"` took 19 s or more.
    #[test]
    fn unclosed_braces_take_linear_time() {
        let n = 200_000;
        for unit in ["{", "{\"", "\"{", "{\\\"", "{[", "{\"a\": {", "{ ]", "\\{\"\\"] {
            let text: String = unit.repeat(n / unit.len());
            let t = std::time::Instant::now();
            let items = extract_calls(&text);
            assert!(items.is_empty(), "{unit:?}: {:?}", items.first());
            assert!(t.elapsed() < std::time::Duration::from_secs(2), "{unit:?} took {:?}", t.elapsed());
        }
        // Unclosed calls are still reported, and the next call still runs.
        let text = format!("{}{{\"tool\": \"a\"{} {{\"tool\": \"b\"}}", "{".repeat(50_000), "{".repeat(50_000));
        let t = std::time::Instant::now();
        let items = extract_calls(&text);
        assert!(t.elapsed() < std::time::Duration::from_secs(2), "took {:?}", t.elapsed());
        assert!(matches!(&items[0], Parsed::Malformed { error, .. } if error.contains("not closed")), "{items:?}");
        assert_eq!(items.last(), Some(&call("b", Value::Null)));
    }

    proptest::proptest! {
        /// The memo of object ends agrees with a scan from each `{`, whatever order the `{` are
        /// asked in.
        #[test]
        fn object_ends_memo_matches_a_fresh_scan(
            text in "[{}\"\\\\a é\n]{0,80}",
            order in proptest::collection::vec(0usize..80, 0..30),
        ) {
            let opens: Vec<usize> = text.match_indices('{').map(|(i, _)| i).collect();
            let mut ends = ObjectEnds::default();
            let asked = order.iter().filter_map(|&k| opens.get(k % opens.len().max(1)).copied()).chain(opens.iter().copied());
            for start in asked {
                proptest::prop_assert_eq!(ends.end_at(&text, start), object_end(&text[start..]), "at {}", start);
            }
        }
    }

    #[test]
    fn final_answer_sql_prefers_submit_then_run_then_text() {
        let t = parse_completion(
            r#"</think>{"tool":"run_query","args":{"sql":"SELECT 1"}} {"tool":"submit_sql","args":{"sql":"SELECT 2"}}"#,
        );
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
