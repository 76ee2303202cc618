//! Extracting string constants from a Python module without running it.
//!
//! `sqale_agent.py` defines `SYSTEM_PROMPT` and `USER_TEMPLATE` as module-level string
//! constants. This reads the right-hand side of `NAME = ...` as Python would for the forms such
//! constants take: one or more adjacent string literals (any quote style, `r`/`u` prefixes,
//! implicit concatenation, inside parentheses or across backslash line continuations, with the
//! standard escapes), optionally wrapped in `textwrap.dedent(...)` / `dedent(...)` and followed by
//! `.strip()`, `.lstrip()`, `.rstrip()` or `.strip("\n")`. Anything else (f-strings, `+`, names,
//! `%` formatting) is refused with a message saying what was found.

/// Why a constant could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum PyLiteralError {
    /// No top-level `NAME = ...` assignment.
    #[error("no top-level assignment `{0} = ...` found")]
    NotFound(String),
    /// The assignment is not made of string literals this reader understands.
    #[error("`{name}` at line {line}: {reason}")]
    Unsupported {
        /// The constant.
        name: String,
        /// 1-based line of the problem.
        line: usize,
        /// What was found.
        reason: String,
    },
}

/// Reads the string value of the module-level constant `name` from Python `source`.
pub fn string_constant(source: &str, name: &str) -> Result<String, PyLiteralError> {
    // Python reads source with universal newlines: `\r\n` and a lone `\r` end lines, and a
    // raw line break inside a triple-quoted string is `\n` whatever the file's line endings.
    let normalized;
    let source = if source.contains('\r') {
        normalized = source.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        source
    };
    let start = find_assignment(source, name).ok_or_else(|| PyLiteralError::NotFound(name.to_string()))?;
    let mut p = Parser { src: source, pos: start, name };
    let value = p.expression()?;
    p.skip_inline_space();
    match p.peek() {
        None | Some('\n') | Some('#') | Some('\r') | Some(';') => Ok(value),
        Some(c) => Err(p.unsupported(format!(
            "unexpected {c:?} after the string (only literals, dedent() and .strip() are understood)"
        ))),
    }
}

/// Byte offset just after `name =` in the last statement that assigns `name` at column 0 (the
/// value Python ends up with), skipping lines that are inside a string literal, a comment, a
/// bracket or a backslash continuation (a `NAME = ...` line inside a docstring is not one).
fn find_assignment(source: &str, name: &str) -> Option<usize> {
    statement_starts(source)
        .into_iter()
        .filter_map(|offset| {
            let line = &source[offset..];
            let line = &line[..line.find('\n').unwrap_or(line.len())];
            let rest = line.strip_prefix(name)?;
            let after = rest.trim_start_matches([' ', '\t']);
            // `NAME: str = ...` is an annotated assignment.
            let after = if let Some(a) = after.strip_prefix(':') {
                match a.find('=') {
                    Some(i) => &a[i..],
                    None => a,
                }
            } else {
                after
            };
            (after.starts_with('=') && !after.starts_with("==")).then(|| offset + (line.len() - after.len()) + 1)
        })
        .next_back()
}

/// Offsets of the lines where a statement may start: not inside a string literal or brackets,
/// not after a backslash continuation. A rough tokenizer: enough to tell code from text.
fn statement_starts(source: &str) -> Vec<usize> {
    let bytes = source.as_bytes();
    let mut starts = vec![0];
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i += source[i..].find('\n').unwrap_or(source.len() - i),
            b'\\' => i += 2, // a continuation: the next line is not a statement start
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'\n' => {
                i += 1;
                if depth == 0 {
                    starts.push(i);
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes[i..].starts_with(&[q, q, q]);
                let close_len = if triple { 3 } else { 1 };
                i += close_len;
                loop {
                    match bytes.get(i) {
                        None => break,
                        Some(b'\\') => i += 2,
                        Some(b'\n') if !triple => break, // unterminated: the line ends it
                        Some(&c) if c == q && (!triple || bytes[i..].starts_with(&[q, q, q])) => {
                            i += close_len;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            _ => i += 1,
        }
    }
    // Steps of 2 past a backslash may land inside a multi-byte character; only offsets after
    // a newline are recorded, and those are always character boundaries.
    starts.retain(|&s| s <= source.len());
    starts
}

struct Parser<'s> {
    src: &'s str,
    pos: usize,
    name: &'s str,
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    fn line(&self) -> usize {
        self.src[..self.pos].matches('\n').count() + 1
    }

    fn unsupported(&self, reason: String) -> PyLiteralError {
        PyLiteralError::Unsupported { name: self.name.to_string(), line: self.line(), reason }
    }

    fn skip_inline_space(&mut self) {
        loop {
            let rest = self.rest();
            if rest.starts_with([' ', '\t']) {
                self.pos += 1;
            } else if rest.starts_with("\\\n") {
                self.pos += 2;
            } else if rest.starts_with("\\\r\n") {
                self.pos += 3;
            } else {
                break;
            }
        }
    }

    /// Inside parentheses newlines and comments are whitespace too.
    fn skip_space_in_parens(&mut self) {
        loop {
            self.skip_inline_space();
            match self.peek() {
                Some('\n') | Some('\r') => self.pos += 1,
                Some('#') => {
                    let n = self.rest().find('\n').unwrap_or(self.rest().len());
                    self.pos += n;
                }
                _ => break,
            }
        }
    }

    fn expression(&mut self) -> Result<String, PyLiteralError> {
        self.skip_inline_space();
        let mut value =
            if let Some(after) = ["textwrap.dedent(", "dedent("].iter().find(|p| self.rest().starts_with(**p)) {
                self.pos += after.len();
                self.skip_space_in_parens();
                let inner = self.literals(true)?;
                self.skip_space_in_parens();
                if self.peek() != Some(')') {
                    return Err(self.unsupported("expected `)` closing dedent(".into()));
                }
                self.pos += 1;
                dedent(&inner)
            } else if self.peek() == Some('(') {
                self.pos += 1;
                self.skip_space_in_parens();
                let inner = self.expression_in_parens()?;
                self.skip_space_in_parens();
                if self.peek() != Some(')') {
                    return Err(self.unsupported("expected `)`".into()));
                }
                self.pos += 1;
                inner
            } else {
                self.literals(false)?
            };
        // Trailing string methods.
        loop {
            self.skip_inline_space();
            let rest = self.rest();
            let method = ["strip", "lstrip", "rstrip"].into_iter().find(|m| rest.starts_with(&format!(".{m}(")));
            let Some(method) = method else { break };
            self.pos += method.len() + 2;
            self.skip_inline_space();
            let chars: Option<String> = if self.peek() == Some(')') { None } else { Some(self.literals(false)?) };
            self.skip_inline_space();
            if self.peek() != Some(')') {
                return Err(self.unsupported(format!("expected `)` closing .{method}(")));
            }
            self.pos += 1;
            value = strip(&value, method, chars.as_deref());
        }
        Ok(value)
    }

    fn expression_in_parens(&mut self) -> Result<String, PyLiteralError> {
        // String methods inside the parentheses are not read; after `)` they are.
        self.literals(true)
    }

    /// One or more adjacent string literals. Newlines separate them only inside parentheses.
    fn literals(&mut self, in_parens: bool) -> Result<String, PyLiteralError> {
        let mut out = String::new();
        let mut count = 0;
        loop {
            if in_parens {
                self.skip_space_in_parens();
            } else {
                self.skip_inline_space();
            }
            match self.string_literal()? {
                Some(s) => {
                    out.push_str(&s);
                    count += 1;
                }
                None => break,
            }
        }
        if count == 0 {
            let found: String = self.rest().chars().take(20).collect();
            return Err(self.unsupported(format!("expected a string literal, found {found:?}")));
        }
        Ok(out)
    }

    fn string_literal(&mut self) -> Result<Option<String>, PyLiteralError> {
        let rest = self.rest();
        let prefix_len = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphabetic())
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or(0);
        let prefix = rest[..prefix_len].to_ascii_lowercase();
        let body = &rest[prefix_len..];
        if !(body.starts_with('"') || body.starts_with('\'')) {
            return Ok(None);
        }
        if prefix.contains('f') {
            return Err(self.unsupported("f-strings are evaluated at run time and cannot be read statically".into()));
        }
        if prefix.contains('b') {
            return Err(self.unsupported("bytes literals are not strings".into()));
        }
        if !matches!(prefix.as_str(), "" | "r" | "u") {
            return Ok(None);
        }
        let raw = prefix == "r";
        let quote = if body.starts_with("\"\"\"") {
            "\"\"\""
        } else if body.starts_with("'''") {
            "'''"
        } else if body.starts_with('"') {
            "\""
        } else {
            "'"
        };
        let start = self.pos + prefix_len + quote.len();
        let mut i = start;
        let bytes = self.src.as_bytes();
        loop {
            if i >= self.src.len() {
                self.pos = start;
                return Err(self.unsupported("unterminated string literal".into()));
            }
            // Compared as bytes: `i` steps over the bytes of multi-byte characters (whose bytes
            // are never ASCII, so never a quote), where slicing the str would panic.
            if bytes[i..].starts_with(quote.as_bytes()) {
                break;
            }
            match bytes[i] {
                // Skip the backslash and the whole character it escapes (which may be several
                // bytes long: stepping 2 bytes could land inside it).
                b'\\' => i += 1 + self.src[i + 1..].chars().next().map_or(1, char::len_utf8),
                b'\n' if quote.len() == 1 => {
                    self.pos = i;
                    return Err(self.unsupported("newline inside a single-quoted string".into()));
                }
                _ => i += 1,
            }
        }
        let content = &self.src[start..i];
        self.pos = i + quote.len();
        let value =
            if raw { content.to_string() } else { unescape(content).map_err(|reason| self.unsupported(reason))? };
        Ok(Some(value))
    }
}

/// Python's escape sequences in a non-raw string literal.
fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).ok_or("invalid octal escape")?);
            }
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                // Exactly n hex digits, as Python requires (`from_str_radix` alone would take a
                // sign, and fewer digits).
                if hex.len() != n || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(format!("truncated \\{e} escape (needs {n} hex digits)"));
                }
                let v = u32::from_str_radix(&hex, 16).map_err(|_| format!("invalid \\{e} escape"))?;
                out.push(char::from_u32(v).ok_or(format!("invalid \\{e} escape"))?);
            }
            'N' => return Err("\\N{...} escapes are not supported".into()),
            other => {
                // Python keeps unknown escapes as written.
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

/// `textwrap.dedent`: removes the longest common leading whitespace of non-blank lines, and
/// turns whitespace-only lines into empty lines.
fn dedent(text: &str) -> String {
    let margin = text
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .reduce(|a, b| {
            let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            &a[..common]
        })
        .unwrap_or("");
    text.split('\n')
        .map(|l| if l.trim().is_empty() { "" } else { l.strip_prefix(margin).unwrap_or(l) })
        .collect::<Vec<_>>()
        .join("\n")
}

fn strip(value: &str, method: &str, chars: Option<&str>) -> String {
    let is_strip = |c: char| match chars {
        Some(set) => set.contains(c),
        None => c.is_whitespace(),
    };
    match method {
        "lstrip" => value.trim_start_matches(is_strip).to_string(),
        "rstrip" => value.trim_end_matches(is_strip).to_string(),
        _ => value.trim_matches(is_strip).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_common_forms() {
        let src = r#"
import textwrap
SYSTEM_PROMPT = """You are an agent.
Use {"tool": ...} calls.\n"""
USER_TEMPLATE = (
    "Schema not shown.\n"  # comment
    'Question: {question}'
)
A = textwrap.dedent("""
    one
      two
    """).strip()
B: str = r"raw\n" "\x41\u00e9\101" \
    '''x'''
C = f"no {x}"
D = "a" + "b"
"#;
        assert_eq!(string_constant(src, "SYSTEM_PROMPT").unwrap(), "You are an agent.\nUse {\"tool\": ...} calls.\n");
        assert_eq!(string_constant(src, "USER_TEMPLATE").unwrap(), "Schema not shown.\nQuestion: {question}");
        assert_eq!(string_constant(src, "A").unwrap(), "one\n  two");
        assert_eq!(string_constant(src, "B").unwrap(), "raw\\nAéAx");
        assert!(
            matches!(string_constant(src, "C"), Err(PyLiteralError::Unsupported { reason, .. }) if reason.contains("f-string"))
        );
        let d = string_constant(src, "D");
        assert!(
            matches!(&d, Err(PyLiteralError::Unsupported { reason, .. }) if reason.contains("unexpected '+'")),
            "{d:?}"
        );
        assert_eq!(string_constant(src, "E"), Err(PyLiteralError::NotFound("E".into())));
    }

    /// Found by fuzzing (`python_literal_round_trip`; panic: byte index is not a char boundary):
    /// the scan for the closing quote stepped byte by byte and sliced the str at each step, so
    /// any non-ASCII character inside a literal (`NAME = '𛰀'`, `'é'`) panicked.
    #[test]
    fn non_ascii_characters_in_a_literal_do_not_panic() {
        assert_eq!(string_constant("NAME = '𛰀'  # the prompt\n", "NAME").unwrap(), "𛰀");
        assert_eq!(string_constant("X = \"\"\"Café — naïve 😀\n\"\"\"", "X").unwrap(), "Café — naïve 😀\n");
        assert_eq!(string_constant("X = r'é'", "X").unwrap(), "é");
    }

    /// Regression (panic: byte index is not a char boundary): the scan for the closing
    /// quote stepped 2 bytes past a backslash, into the middle of a multi-byte character.
    #[test]
    fn backslash_before_a_multibyte_character_does_not_panic() {
        assert_eq!(string_constant("X = \"\\é\"\n", "X").unwrap(), "\\é");
        assert_eq!(string_constant("X = '''a\\😀'''", "X").unwrap(), "a\\😀");
        assert_eq!(string_constant("X = r'\\é'", "X").unwrap(), "\\é");
        assert!(string_constant("X = '\\é", "X").is_err());
    }

    /// Regression: Python reads source with universal newlines, so a
    /// triple-quoted string in a file with CRLF line endings has `\n`, not `\r\n`.
    #[test]
    fn crlf_line_endings_read_as_python_does() {
        let src = "A = '''one\r\ntwo'''\r\nB = (\r\n  'x'  # c\r\n  'y'\r\n)\r\nC = 'a' \\\r\n  'b'\rD = '\\r'\r\n";
        assert_eq!(string_constant(src, "A").unwrap(), "one\ntwo");
        assert_eq!(string_constant(src, "B").unwrap(), "xy");
        assert_eq!(string_constant(src, "C").unwrap(), "ab");
        assert_eq!(string_constant(src, "D").unwrap(), "\r");
    }

    /// Regression: `\x+1` was read as `\x01` (a sign taken
    /// as a digit) and `\x4'` as `\x04`; Python refuses both.
    #[test]
    fn hex_escapes_need_exactly_their_digits() {
        for bad in ["'\\x+1'", "'\\x4'", "'\\u12'", "'\\U0001F60'", "'\\xé0'"] {
            let src = format!("X = {bad}\n");
            assert!(matches!(string_constant(&src, "X"), Err(PyLiteralError::Unsupported { .. })), "{bad}");
        }
        assert_eq!(string_constant("X = '\\x41\\u00e9\\U0001F600'", "X").unwrap(), "Aé😀");
    }

    /// Regression: lines were matched without regard to strings, so a `NAME = ...` line inside
    /// a docstring (or another constant, or after a backslash continuation) was taken for the
    /// assignment; and the first assignment was read where Python keeps the last.
    #[test]
    fn only_real_statements_count_and_the_last_one_wins() {
        let src = "\"\"\"Docs.\nX = 'in a docstring'\n\"\"\"\nX = 'first'\nY = ('a'\nX = 'in brackets')\nZ = 1 + \\\nX = 'continued'\nX = 'last'  # the value\nW = '''\nX = 'in another string'\n'''\n";
        assert_eq!(string_constant(src, "X").unwrap(), "last");
        let src = "X = '''\nX = 'fake'\n'''\n";
        assert_eq!(string_constant(src, "X").unwrap(), "\nX = 'fake'\n");
        assert_eq!(string_constant("S = 'X = 1'\n", "X"), Err(PyLiteralError::NotFound("X".into())));
    }

    #[test]
    fn indented_assignments_are_not_module_level() {
        let src = "def f():\n    X = 'inner'\nX = 'outer'\n";
        assert_eq!(string_constant(src, "X").unwrap(), "outer");
        assert_eq!(string_constant("XY = 'a'\nX == 'b'\n", "X"), Err(PyLiteralError::NotFound("X".into())));
    }
}
