//! Text made safe to print on a terminal: control characters written out as escapes.
//!
//! Names and values that reach a person's terminal come from archives, databases and the model.
//! A terminal obeys the control characters in them: `ESC [ 2 K` and a carriage return erase the
//! line, OSC sequences set the window title or write hyperlinks, bidirectional overrides reorder
//! what is read. Everything printed for people goes through [`escape_controls`]; `--json` output
//! is escaped by JSON itself.

use std::borrow::Cow;

/// Whether `c` is a character a terminal may act on rather than show: C0 controls other than
/// newline and tab, DEL, C1 controls, and the Unicode bidirectional overrides and isolates.
pub fn is_unsafe_char(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every character of [`is_unsafe_char`] written as a Rust-style escape (`\u{1b}`);
/// newlines and tabs are kept, so multi-line text stays readable. Borrowed when nothing changed.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`escape_controls`], and newlines and tabs escaped too: for a name printed on one line (an
/// archive entry, a table name).
pub fn escape_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe_char(c) || c == '\n' || c == '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_obeys_and_keeps_the_rest() {
        assert_eq!(escape_controls("plain text\nline two\tx"), "plain text\nline two\tx");
        assert!(matches!(escape_controls("ordinary"), Cow::Borrowed(_)));
        assert_eq!(escape_controls("a\x1b[2K\rinstalled OK"), "a\\u{1b}[2K\\u{d}installed OK");
        assert_eq!(escape_controls("\x1b]0;title\x07"), "\\u{1b}]0;title\\u{7}");
        assert_eq!(escape_controls("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape_controls("x\u{202e}cod.exe"), "x\\u{202e}cod.exe");
        assert_eq!(escape_controls("é, 表, 🙂"), "é, 表, 🙂");
        assert_eq!(escape_line("a\nb\tc\x1b"), "a\\nb\\tc\\u{1b}");
    }
}
