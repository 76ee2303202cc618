//! Property-based fuzzing of the parsers that read untrusted text: the tool-call reader (the
//! model's output) and the Python-literal reader (a user-supplied `sqale_agent.py`).
//!
//! Inputs are generated near-valid (real tool calls and real Python literals, rendered in many
//! ways, then cut and mutated) so that the parsers' deep paths are reached, not just their first
//! error. Every property also holds "never panics".
//!
//! CI runs the default case counts (well under a minute in all). A longer campaign:
//! `PROPTEST_CASES=20000 cargo test --release --test fuzz_parsers` (each target runs that many
//! cases; proptest picks a fresh random seed each run).

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Map, Value};
use sqale::prompt::{string_constant, PyLiteralError};
use sqale::protocol::{extract_calls, final_answer_sql, parse_completion, Parsed, ToolCall};

/// `PROPTEST_CASES` if set, else `default`; no regression files are written into the tree
/// (the regressions found are unit tests beside the code).
fn config(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, max_shrink_iters: 2048, ..Config::default() }
}

// ------------------------------------------------------------------------------------------
// Tool calls
// ------------------------------------------------------------------------------------------

/// Strings that hurt a JSON-in-prose scanner: JSON punctuation, quotes, backslashes, control
/// characters, markers the parser looks for, and any Unicode.
fn nasty_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z0-9_ ]{0,12}",
        3 => r#"[{}\[\]"'\\:,` \n\t\r/*<>]{0,16}"#,
        2 => "\\PC{0,10}",
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
        2 => prop::sample::select(vec![
            "{\"tool\": \"run_query\"}", "{'tool': 1}", "\"tool\"", "\"name\"", "```", "```sql\nSELECT 1\n```",
            "<think>", "SELECT * FROM t WHERE a = '}'", "WITH x AS (SELECT 1) SELECT * FROM x", "\\", "\\\"", "{",
            "}", "\u{0}", "\u{2028}", "é😀", "\u{feff}",
        ])
        .prop_map(str::to_string),
    ]
}

/// JSON values up to a few levels deep, with nasty strings as keys and values.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
        nasty_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((nasty_string(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["run_query", "submit_sql", "list_tables", "describe_table", "sample_rows"])
            .prop_map(str::to_string),
        1 => nasty_string(),
    ]
}

/// `args` as the model might write it: absent, an object with `sql`, or anything.
fn args() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        1 => Just(None),
        3 => nasty_string().prop_map(|sql| Some(json!({ "sql": sql }))),
        1 => (nasty_string(), json_value()).prop_map(|(k, v)| Some(json!({ "table_name": k, "extra": v }))),
        1 => json_value().prop_map(Some),
    ]
}

/// How one call is written.
#[derive(Debug, Clone, Copy)]
enum Style {
    Compact,
    Pretty,
    /// Qwen's native `{"name", "arguments"}`.
    Native,
    /// `"args": "<the args as a JSON string>"`.
    DoubleEncoded,
    /// Raw newlines, tabs and carriage returns inside strings.
    RawControls,
    /// An extra key the parser must ignore.
    ExtraKey,
}

fn style() -> impl Strategy<Value = Style> {
    prop::sample::select(vec![
        Style::Compact,
        Style::Pretty,
        Style::Native,
        Style::DoubleEncoded,
        Style::RawControls,
        Style::ExtraKey,
    ])
}

/// Turns the `\n`, `\t`, `\r` escapes inside JSON strings into the raw characters (the inverse
/// of what the parser repairs).
fn rawify(json: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut chars = json.chars();
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// The call as written, and what the parser must read from it.
fn render_call(tool: &str, args: &Option<Value>, style: Style) -> (String, ToolCall) {
    let mut obj = Map::new();
    let (tool_key, args_key) = match style {
        Style::Native => ("name", "arguments"),
        _ => ("tool", "args"),
    };
    obj.insert(tool_key.into(), Value::String(tool.into()));
    if let Some(a) = args {
        let a = match style {
            Style::DoubleEncoded if a.is_object() => Value::String(a.to_string()),
            _ => a.clone(),
        };
        obj.insert(args_key.into(), a);
    }
    if let Style::ExtraKey = style {
        obj.insert("id".into(), json!(7));
    }
    let obj = Value::Object(obj);
    let text = match style {
        Style::Pretty => serde_json::to_string_pretty(&obj).unwrap(),
        Style::RawControls => rawify(&obj.to_string()),
        _ => obj.to_string(),
    };
    // The documented reading of `args`: absent is null; a string that starts with `{` and is
    // JSON is decoded (double encoding).
    let expected_args = match args.clone().unwrap_or(Value::Null) {
        Value::String(s) if s.trim_start().starts_with('{') => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    };
    (text, ToolCall { tool: tool.into(), args: expected_args })
}

/// `s` without `</think>`, even one that removing another would form.
fn no_think_close(mut s: String) -> String {
    while s.contains("</think>") {
        s = s.replace("</think>", "");
    }
    s
}

/// Prose between calls: anything without `{` (which would start an object) or `<` (which could
/// spell `</think>`).
fn prose() -> impl Strategy<Value = String> {
    prop_oneof![
        "[^{<]{0,24}",
        prop::sample::select(vec![
            "",
            "\n",
            " ",
            "```json\n",
            "\n```\n",
            "Then: ",
            "} ] \" '",
            "```sql\nSELECT 1;\n```"
        ])
        .prop_map(str::to_string),
    ]
}

/// A think block (possibly with decoy calls and braces in it), or none.
fn think() -> impl Strategy<Value = Option<String>> {
    prop::option::of(
        prop::collection::vec(prop_oneof![nasty_string(), Just("{\"tool\": \"decoy\"}".to_string())], 0..5)
            .prop_map(|parts| no_think_close(parts.concat())),
    )
}

/// A whole completion: think block, then calls and prose, with the byte offset where each call
/// ends and where the answer starts.
#[derive(Debug, Clone)]
struct Completion {
    text: String,
    answer_start: usize,
    calls: Vec<ToolCall>,
    call_ends: Vec<usize>,
}

fn completion() -> impl Strategy<Value = Completion> {
    let call = (tool_name(), args(), style(), prose());
    (think(), prose(), prop::collection::vec(call, 0..5)).prop_map(|(think, lead, calls)| {
        let mut text = String::new();
        if let Some(t) = think {
            text.push_str("<think>");
            text.push_str(&t);
            text.push_str("</think>");
        }
        let answer_start = text.len();
        text.push_str(&lead);
        let mut out = Completion { text: String::new(), answer_start, calls: Vec::new(), call_ends: Vec::new() };
        for (tool, args, style, after) in calls {
            // `</think>` inside a call would move the split; that case is the mutation target's.
            let tool = no_think_close(tool);
            let args = args.map(|a| serde_json::from_str(&no_think_close(a.to_string())).unwrap());
            let (rendered, expected) = render_call(&tool, &args, style);
            text.push_str(&rendered);
            out.call_ends.push(text.len());
            out.calls.push(expected);
            text.push_str(&after);
        }
        out.text = text;
        out
    })
}

/// What holds of any parse, whatever the input.
fn check_invariants(text: &str) -> Result<(), TestCaseError> {
    let turn = parse_completion(text);
    let opens = text.matches('{').count();
    prop_assert!(turn.items.len() <= opens, "{} items from {} braces", turn.items.len(), opens);
    for item in &turn.items {
        if let Parsed::Malformed { text: t, error } = item {
            prop_assert!(t.chars().count() <= 201, "malformed text not shortened");
            prop_assert!(!error.is_empty());
        }
    }
    prop_assert!(text.contains(turn.answer.as_str()), "the answer is a part of the text");
    if let Some(sql) = final_answer_sql(&turn) {
        prop_assert!(!sql.is_empty());
        prop_assert_eq!(sql.trim(), sql.as_str());
        let from_call = turn
            .calls()
            .filter(|c| c.tool == "submit_sql" || c.tool == "run_query")
            .any(|c| c.args.get("sql").and_then(Value::as_str).map(str::trim) == Some(sql.as_str()));
        prop_assert!(
            from_call || text.contains(sql.as_str()),
            "final SQL {:?} is neither a call's nor in the text",
            sql
        );
    }
    // The lower-level entry point agrees.
    prop_assert_eq!(extract_calls(&text[text.rfind("</think>").map_or(0, |i| i + 8)..]), turn.items);
    Ok(())
}

/// Applies `edits` to `text` at character boundaries: insert a character, delete a run, or
/// duplicate a run.
fn mutate(text: &str, edits: &[(u8, usize, usize, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(op, at, len, c) in edits {
        let at = if chars.is_empty() { 0 } else { at % (chars.len() + 1) };
        let len = len % 8;
        match op % 3 {
            0 => chars.insert(at, c),
            1 => {
                let end = (at + len).min(chars.len());
                chars.drain(at..end);
            }
            _ => {
                let end = (at + len).min(chars.len());
                let run: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, run);
            }
        }
    }
    chars.into_iter().collect()
}

fn edit() -> impl Strategy<Value = (u8, usize, usize, char)> {
    let c = prop_oneof![
        3 => prop::sample::select(vec!['{', '}', '"', '\\', '\'', ':', ',', '\n', '\r', '\t', '`', '<', '/', '>', '[', ']', 'n']),
        1 => any::<char>(),
    ];
    (any::<u8>(), any::<usize>(), any::<usize>(), c)
}

proptest! {
    #![proptest_config(config(3000))]

    /// Well-formed calls in any style, between prose, after a think block with decoys, are read
    /// back exactly, in order; and the final SQL is the last `submit_sql`, else `run_query`.
    #[test]
    fn calls_round_trip(c in completion()) {
        let turn = parse_completion(&c.text);
        let items: Vec<Parsed> = c.calls.iter().cloned().map(Parsed::Call).collect();
        prop_assert_eq!(&turn.items, &items, "text: {:?}", c.text);
        let sql_of = |name: &str| c.calls.iter().filter(|k| k.tool == name)
            .filter_map(|k| k.args.get("sql").and_then(Value::as_str)).map(str::trim).rfind(|s| !s.is_empty());
        if let Some(expected) = sql_of("submit_sql").or_else(|| sql_of("run_query")) {
            let sql = final_answer_sql(&turn);
            prop_assert_eq!(sql.as_deref(), Some(expected));
        }
        check_invariants(&c.text)?;
    }

    /// A completion cut anywhere (generation stopped at the token limit): no panic, and every
    /// call that ended before the cut is still read, in order.
    #[test]
    fn truncated_completions(c in completion(), cut in any::<prop::sample::Index>()) {
        let mut at = cut.index(c.text.len() + 1);
        while !c.text.is_char_boundary(at) {
            at -= 1;
        }
        let text = &c.text[..at];
        check_invariants(text)?;
        if at >= c.answer_start {
            let whole = c.call_ends.iter().filter(|&&e| e <= at).count();
            let turn = parse_completion(text);
            let got: Vec<&ToolCall> = turn.items.iter().take(whole).filter_map(|p| match p {
                Parsed::Call(k) => Some(k),
                Parsed::Malformed { .. } => None,
            }).collect();
            let want: Vec<&ToolCall> = c.calls.iter().take(whole).collect();
            prop_assert_eq!(got, want, "cut at {} of {:?}", at, c.text);
        }
    }

    /// Completions mutated character by character (braces, quotes, backslashes, newlines,
    /// anything): no panic, and the invariants hold.
    #[test]
    fn mutated_completions(c in completion(), edits in prop::collection::vec(edit(), 1..12)) {
        check_invariants(&mutate(&c.text, &edits))?;
    }

    /// Soup of the characters and markers the parser cares about.
    #[test]
    fn token_soup(parts in prop::collection::vec(prop_oneof![
        nasty_string(),
        prop::sample::select(vec!["{", "}", "\"", "\\", "</think>", "<think>", "```", "\"tool\"", ":", "\"args\"", "\"sql\"", "\n"])
            .prop_map(str::to_string),
    ], 0..40)) {
        check_invariants(&parts.concat())?;
    }

    /// Any string at all.
    #[test]
    fn arbitrary_text(text in any::<String>()) {
        check_invariants(&text)?;
    }
}

// ------------------------------------------------------------------------------------------
// Python string constants
// ------------------------------------------------------------------------------------------

/// Values a prompt constant may hold: prose, quotes, backslashes, braces, newlines, control
/// characters, any Unicode.
fn py_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z {}.:\n]{0,30}",
        r#"[\\'"\n\r\t {}#()a0-9]{0,20}"#,
        "\\PC{0,16}",
        any::<String>().prop_map(|s| s.chars().take(16).collect()),
    ]
}

/// How one literal (one piece of the value) is written.
#[derive(Debug, Clone, Copy)]
struct LitStyle {
    /// 0 `'`, 1 `"`, 2 `'''`, 3 `"""`.
    quote: u8,
    /// 0 none, 1 `u`, 2 `U`, 3 `r`, 4 `R` (raw only where the piece allows it).
    prefix: u8,
    /// Which escape to use for a character that needs (or may take) one.
    escape: u8,
    /// Escape characters that need none, too.
    escape_more: bool,
    /// Put a backslash-newline continuation inside the literal.
    continuation: bool,
}

fn lit_style() -> impl Strategy<Value = LitStyle> {
    (0u8..4, 0u8..5, any::<u8>(), any::<bool>(), any::<bool>()).prop_map(
        |(quote, prefix, escape, escape_more, continuation)| LitStyle {
            quote,
            prefix,
            escape,
            escape_more,
            continuation,
        },
    )
}

/// A Python escape for `c`, picked by `k`.
fn escape_char(c: char, k: u8) -> String {
    let named = match c {
        '\n' => Some("\\n"),
        '\t' => Some("\\t"),
        '\r' => Some("\\r"),
        '\\' => Some("\\\\"),
        '\'' => Some("\\'"),
        '"' => Some("\\\""),
        '\x07' => Some("\\a"),
        '\x08' => Some("\\b"),
        '\x0c' => Some("\\f"),
        '\x0b' => Some("\\v"),
        _ => None,
    };
    let v = c as u32;
    match k % 5 {
        0 if named.is_some() => named.unwrap().to_string(),
        1 if v < 0x100 => format!("\\x{v:02x}"),
        2 if v < 0x200 => format!("\\{v:03o}"),
        3 if v < 0x10000 => format!("\\u{v:04X}"),
        _ => format!("\\U{v:08x}"),
    }
}

/// The literal for `piece` in `style`: Python evaluates it to `piece`.
fn render_literal(piece: &str, s: LitStyle) -> String {
    let (q, triple) = match s.quote {
        0 => ("'", false),
        1 => ("\"", false),
        2 => ("'''", true),
        _ => ("\"\"\"", true),
    };
    let qc = q.chars().next().unwrap();
    let raw_ok = !(piece.is_empty()
        || piece.contains(['\\', qc])
        || piece.chars().any(|c| c.is_control() && c != '\n')
        || (!triple && piece.contains('\n'))
        || (triple && piece.ends_with(qc)));
    let prefix = match s.prefix {
        1 => "u",
        2 => "U",
        3 if raw_ok => "r",
        4 if raw_ok => "R",
        _ => "",
    };
    let mut body = String::new();
    if prefix.eq_ignore_ascii_case("r") {
        body.push_str(piece);
    } else {
        for (i, c) in piece.chars().enumerate() {
            let needs = c == '\\' || c == qc || c == '\r' || (c == '\n' && !triple) || c.is_control();
            if needs || (s.escape_more && (i + s.escape as usize).is_multiple_of(3)) {
                body.push_str(&escape_char(c, s.escape.wrapping_add(i as u8)));
            } else {
                body.push(c);
            }
        }
        if s.continuation {
            body.insert_str(0, "\\\n");
        }
    }
    format!("{prefix}{q}{body}{q}")
}

/// What goes between two adjacent literals.
fn joiner(k: u8, in_parens: bool) -> &'static str {
    match (k % 4, in_parens) {
        (0, _) => " ",
        (1, _) => " \\\n    ",
        (2, true) => "\n    ",
        (3, true) => "  # a comment with 'quotes' and \"\"\"\n    ",
        _ => "\t",
    }
}

/// A module around the assignment: other code, look-alike names, decoys in strings, and earlier
/// assignments of the same name that the last one overrides.
fn surroundings() -> impl Strategy<Value = (String, String)> {
    let line = prop::sample::select(vec![
        "import textwrap\n",
        "# NAME = 'in a comment'\n",
        "NAME_2 = 'look-alike'\n",
        "NAMEX = 1\n",
        "def f():\n    NAME = 'indented'\n    return NAME\n",
        "DOC = \"\"\"\nNAME = 'inside a string'\n\"\"\"\n",
        "OTHER = ('x'\n         'y')\n",
        "NAME == 'comparison'\n",
        "x = {'a': (1,\n  2)}\n",
        "NAME = 'overridden later'\n",
        "y = 'it''s' \\\n  'z'\n",
        "",
    ]);
    (prop::collection::vec(line.clone(), 0..5), prop::collection::vec(line, 0..4))
        .prop_map(|(before, after)| (before.concat(), after.concat().replace("NAME = 'overridden later'\n", "")))
}

/// A Python module assigning `value` to `NAME`, written in one of many ways.
#[derive(Debug, Clone)]
struct PyModule {
    source: String,
    value: String,
}

fn py_module() -> impl Strategy<Value = PyModule> {
    (
        py_value(),
        prop::collection::vec((any::<prop::sample::Index>(), lit_style(), any::<u8>()), 1..5),
        any::<bool>(),
        0u8..4,
        surroundings(),
        any::<bool>(),
    )
        .prop_map(|(value, pieces, parens, head, (before, after), crlf)| {
            // Split the value into pieces at character boundaries, one literal each.
            let mut cuts: Vec<usize> = pieces.iter().map(|(i, _, _)| i.index(value.len() + 1)).collect();
            cuts.sort();
            let mut literals = Vec::new();
            let mut from = 0;
            for (k, (_, style, join)) in pieces.iter().enumerate() {
                let mut to = if k + 1 == pieces.len() { value.len() } else { cuts[k].max(from) };
                while !value.is_char_boundary(to) {
                    to += 1;
                }
                literals.push((render_literal(&value[from..to], *style), *join));
                from = to;
            }
            let mut rhs = String::new();
            for (k, (lit, join)) in literals.iter().enumerate() {
                if k > 0 {
                    rhs.push_str(joiner(*join, parens));
                }
                rhs.push_str(lit);
            }
            if parens {
                rhs = format!("(\n    {rhs}\n)");
            }
            let head = match head {
                0 => "NAME = ",
                1 => "NAME=",
                2 => "NAME: str = ",
                _ => "NAME =\t",
            };
            let mut source = format!("{before}{head}{rhs}  # the prompt\n{after}");
            if crlf {
                source = source.replace('\n', "\r\n");
            }
            PyModule { source, value }
        })
}

proptest! {
    #![proptest_config(config(10000))]

    /// Whatever the string, however it is written (quotes, prefixes, escapes, concatenation,
    /// parentheses, continuations, comments, CRLF, decoys), the reader returns it exactly.
    #[test]
    fn python_literal_round_trip(m in py_module()) {
        prop_assert_eq!(string_constant(&m.source, "NAME"), Ok(m.value.clone()), "source: {:?}", m.source);
    }

    /// The same modules cut or mutated anywhere: no panic; an error names a line of the file.
    #[test]
    fn python_literal_mutated(m in py_module(), edits in prop::collection::vec(edit(), 0..10), cut in any::<prop::sample::Index>()) {
        let mut source = mutate(&m.source, &edits);
        let mut at = cut.index(source.len() * 2 + 1);
        if at < source.len() {
            while !source.is_char_boundary(at) {
                at -= 1;
            }
            source.truncate(at);
        }
        match string_constant(&source, "NAME") {
            Ok(_) | Err(PyLiteralError::NotFound(_)) => {}
            Err(PyLiteralError::Unsupported { line, reason, .. }) => {
                let lines = source.replace("\r\n", "\n").replace('\r', "\n").split('\n').count();
                prop_assert!(line >= 1 && line <= lines, "line {} of {}", line, lines);
                prop_assert!(!reason.is_empty());
            }
            Err(e) => prop_assert!(false, "an error of another kind: {}", e),
        }
    }

    /// Soup of Python string syntax after `NAME = `.
    #[test]
    fn python_literal_soup(parts in prop::collection::vec(prop::sample::select(vec![
        "'", "\"", "'''", "\"\"\"", "r", "b", "f", "u", "rb", "\\", "\\\n", "\n", "\r\n", "(", ")", "#", " ", "x", "é",
        "\\x", "\\u", "\\U", "\\N{DASH}", "\\0", "\\777", ".strip(", ".lstrip()", "dedent(", "textwrap.dedent(", "+", ";",
        "😀", "\t", "NAME = ", "\u{0}",
    ]), 0..30)) {
        let source = format!("NAME = {}", parts.concat());
        let _ = string_constant(&source, "NAME");
        let _ = string_constant(&parts.concat(), "NAME");
    }
}
