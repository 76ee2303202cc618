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
    let start = find_assignment(source, name).ok_or_else(|| PyLiteralError::NotFound(name.to_string()))?;
    let mut p = Parser {
        src: source,
        pos: start,
        name,
    };
    let value = p.expression()?;
    p.skip_inline_space();
    match p.peek() {
        None | Some('\n') | Some('#') | Some('\r') | Some(';') => Ok(value),
        Some(c) => Err(p.unsupported(format!("unexpected {c:?} after the string (only literals, dedent() and .strip() are understood)"))),
    }
}

/// Byte offset just after `name =` in a line that starts at column 0.
fn find_assignment(source: &str, name: &str) -> Option<usize> {
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(name) {
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
            if after.starts_with('=') && !after.starts_with("==") {
                return Some(offset + (line.len() - after.len()) + 1);
            }
        }
        offset += line.len();
    }
    None
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
        PyLiteralError::Unsupported {
            name: self.name.to_string(),
            line: self.line(),
            reason,
        }
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
        let mut value = if let Some(after) = ["textwrap.dedent(", "dedent("]
            .iter()
            .find(|p| self.rest().starts_with(**p))
        {
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
            let method = ["strip", "lstrip", "rstrip"]
                .into_iter()
                .find(|m| rest.starts_with(&format!(".{m}(")));
            let Some(method) = method else { break };
            self.pos += method.len() + 2;
            self.skip_inline_space();
            let chars: Option<String> = if self.peek() == Some(')') {
                None
            } else {
                Some(self.literals(false)?)
            };
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
            if self.src[i..].starts_with(quote) {
                break;
            }
            match bytes[i] {
                b'\\' => i += 2,
                b'\n' if quote.len() == 1 => {
                    self.pos = i;
                    return Err(self.unsupported("newline inside a single-quoted string".into()));
                }
                _ => i += 1,
            }
        }
        let content = &self.src[start..i];
        self.pos = i + quote.len();
        let value = if raw {
            content.to_string()
        } else {
            unescape(content).map_err(|reason| self.unsupported(reason))?
        };
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
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                l.strip_prefix(margin).unwrap_or(l)
            }
        })
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
        assert!(matches!(string_constant(src, "C"), Err(PyLiteralError::Unsupported { reason, .. }) if reason.contains("f-string")));
        let d = string_constant(src, "D");
        assert!(matches!(&d, Err(PyLiteralError::Unsupported { reason, .. }) if reason.contains("unexpected '+'")), "{d:?}");
        assert_eq!(string_constant(src, "E"), Err(PyLiteralError::NotFound("E".into())));
    }

    #[test]
    fn indented_assignments_are_not_module_level() {
        let src = "def f():\n    X = 'inner'\nX = 'outer'\n";
        assert_eq!(string_constant(src, "X").unwrap(), "outer");
        assert_eq!(string_constant("XY = 'a'\nX == 'b'\n", "X"), Err(PyLiteralError::NotFound("X".into())));
    }
}
