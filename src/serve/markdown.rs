//! Markdown made inert: what the OpenAI face writes from the data and the model's text, so that a
//! chat UI that renders it shows the text as written and never an HTML element, a link or an
//! image built from it (an image a UI loads is how a query's result leaks to another site).
//!
//! - [`text`]: a table cell or a phrase: every character that can begin Markdown or HTML
//!   backslash-escaped (CommonMark lets any ASCII punctuation be), newlines made spaces, and the
//!   beginnings of GFM's bare autolinks (`http://`, `www.`, `a@b`) broken;
//! - [`code_block`]: a fenced code block whose fence is longer than any run of backticks inside,
//!   so that no line of the code can close it;
//! - [`prose`]: longer text (the model's thinking, tool results) that keeps its line breaks and
//!   code: only what begins HTML, a link or an image is escaped.

/// Characters escaped wherever they are in [`text`]: those that begin HTML, links, images,
/// code, emphasis, strikethrough, math, entities, and a table's cell boundary.
const INLINE: &[char] = &['\\', '`', '*', '[', ']', '<', '>', '!', '&', '|', '~', '$', '@'];

/// `s` as inline Markdown that renders as `s` itself, on one line.
pub fn text(s: &str) -> String {
    let chars: Vec<char> = s.chars().map(|c| if matches!(c, '\r' | '\n') { ' ' } else { c }).collect();
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let after = chars.get(i + 1).copied();
        let escape = INLINE.contains(&c)
            // `_` between two letters or digits can neither open nor close emphasis
            // (`company_name` stays as it is).
            || (c == '_' && !(before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric)))
            // `http://`, `ftp://`: GFM's bare URL autolinks.
            || (c == ':' && after == Some('/'))
            // `www.`: GFM's www autolinks.
            || (c == '.' && i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www"));
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `code` as a fenced code block of `language`: the fence is one backtick longer than the
/// longest run of backticks in the code (at least three), so the code cannot end it.
pub fn code_block(language: &str, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{language}\n{code}\n{fence}\n")
}

/// `s` with what begins HTML (`<`), a link or an image (`[`) escaped, and backslashes doubled
/// so that an escape cannot be undone: line breaks, code and emphasis are left as they are.
/// Character by character, so a stream's pieces can be escaped one by one.
pub fn prose(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '<' | '[') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_and_keeps_plain_words() {
        assert_eq!(text("company_name"), "company_name");
        assert_eq!(text("Łódź, 12.5"), "Łódź, 12.5");
        assert_eq!(text("<img src=x>"), "\\<img src=x\\>");
        assert_eq!(text("![i](http://e/x.png)"), "\\!\\[i\\](http\\://e/x.png)");
        assert_eq!(text("_a_ *b* `c`"), "\\_a\\_ \\*b\\* \\`c\\`");
        assert_eq!(text("a|b\nc"), "a\\|b c");
        assert_eq!(text("see WWW.example.com"), "see WWW\\.example.com");
    }

    #[test]
    fn the_fence_outlasts_every_backtick_run() {
        assert_eq!(code_block("sql", "SELECT 1"), "```sql\nSELECT 1\n```\n");
        assert_eq!(code_block("sql", "SELECT '```' || '`````'"), "``````sql\nSELECT '```' || '`````'\n``````\n");
    }

    #[test]
    fn prose_escapes_html_links_and_images_only() {
        assert_eq!(prose("a < b and ![x](y) \\[z]\n`code`"), "a \\< b and !\\[x](y) \\\\\\[z]\n`code`");
    }
}
