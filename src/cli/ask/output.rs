//! How an answer is printed: the chosen format on stdout, the episode's summary on stderr.
//!
//! The SQL, the rows and their errors come from the model and the database: what is printed for
//! people (the table, stderr, and any format on a terminal) goes through
//! [`sqale::printable`]'s escaping. CSV and SQL written to a pipe or a file keep their bytes
//! (scripts read them); JSON escapes control characters itself.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};

use anyhow::Context;
use sqale::answer::Answer;
use sqale::printable::{escape_controls, escape_line};

use super::asker::Options;
use super::rows;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The SQL, then its first rows as a table and how many there are.
    Table,
    /// The rows as CSV, with a header line.
    Csv,
    /// The whole episode and its rows as JSON.
    Json,
    /// The SQL alone.
    Sql,
}

/// Who reads the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A person: a lone question's answer, or an interactive session's.
    Person,
    /// A script, one answer to each line of standard input: JSON on one line, SQL on one line
    /// (empty without an answer), a table's or CSV's block followed by an empty line.
    Lines,
}

/// Prints `answer` as `options.format` says.
pub fn print(answer: &Answer, options: &Options, mode: Mode) -> anyhow::Result<()> {
    let text = match options.format {
        Format::Json => return print_json(answer, mode),
        Format::Sql if mode == Mode::Lines => format!("{}\n", one_line(answer.episode.sql.as_deref().unwrap_or(""))),
        Format::Sql => format!("{}\n", answer.episode.sql.as_deref().unwrap_or("(no answer)")),
        Format::Table => table(answer, options.chart && std::io::stdout().is_terminal()),
        Format::Csv => csv(answer)?,
    };
    write(text, options.format, mode)?;
    summary(answer);
    Ok(())
}

/// Prints `value` as JSON: pretty for a person, on one line in [`Mode::Lines`].
pub fn print_json<T: serde::Serialize>(value: &T, mode: Mode) -> anyhow::Result<()> {
    let text = match mode {
        Mode::Lines => serde_json::to_string(value),
        Mode::Person => serde_json::to_string_pretty(value),
    }
    .context("serialising the answer")?;
    write(text + "\n", Format::Json, mode)
}

/// Says there is no answer in `format`: `why` (in parentheses) as the table (and for JSON, which
/// its caller prints itself), `(no answer)` as SQL (an empty line in [`Mode::Lines`]), `why` on
/// stderr and no row for CSV.
pub fn print_none(why: &str, format: Format, mode: Mode) -> anyhow::Result<()> {
    let text = match format {
        Format::Sql if mode == Mode::Lines => "\n".to_string(),
        Format::Sql => "(no answer)\n".to_string(),
        Format::Table | Format::Json => return write(format!("{why}\n"), Format::Table, mode),
        Format::Csv => {
            eprintln!("{}", escape_controls(why));
            String::new()
        }
    };
    write(text, format, mode)
}

/// Writes `text` (the answer in `format`) on stdout: escaped for a person when it is the table
/// or stdout is a terminal; a block of [`Mode::Lines`] followed by an empty line.
fn write(text: String, format: Format, mode: Mode) -> anyhow::Result<()> {
    let text = if mode == Mode::Lines && matches!(format, Format::Table | Format::Csv) { text + "\n" } else { text };
    let text = for_stdout(&text, format, std::io::stdout().is_terminal());
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).context("writing the answer")?;
    out.flush().context("writing the answer")
}

/// `text` in `format` as it goes to stdout: JSON as it is (escaped by JSON), the table always
/// escaped (it is for people), CSV and SQL escaped on a `terminal` and kept byte for byte in a
/// pipe or a file.
fn for_stdout(text: &str, format: Format, terminal: bool) -> Cow<'_, str> {
    match format {
        Format::Json => Cow::Borrowed(text),
        Format::Table => escape_controls(text),
        Format::Csv | Format::Sql if terminal => escape_controls(text),
        Format::Csv | Format::Sql => Cow::Borrowed(text),
    }
}

/// Blocks the longest bar of [`table`]'s chart takes.
const CHART_WIDTH: usize = 40;

/// The SQL, its rows and their count, and with `chart` a text bar chart of them when they call
/// for one; or why there are none. The rows' cells and the chart's labels are escaped one by one
/// (each on one line); the rest is escaped as a whole when it is written.
fn table(answer: &Answer, chart: bool) -> String {
    let Some(sql) = &answer.episode.sql else { return format!("{}\n", no_answer(answer)) };
    let mut s = format!("{sql}\n\n");
    if let Some(r) = &answer.rows {
        s.push_str(&format!("{}\n{}\n", rows::table(r), rows::count(r)));
        if let Some(bars) = chart.then(|| sqale::plot::text_bars(&r.columns, &r.rows, CHART_WIDTH)).flatten() {
            s.push_str(&format!("\n{bars}"));
        }
    }
    if let Some(e) = &answer.rows_error {
        s.push_str(&format!("the answer's rows could not be read: {}\n", escape_line(e)));
    }
    s
}

/// The rows as CSV; what is not a row goes to stderr.
fn csv(answer: &Answer) -> anyhow::Result<String> {
    match (&answer.rows, &answer.rows_error) {
        (Some(r), _) => {
            if r.truncated {
                eprintln!("{}", rows::count(r));
            }
            rows::csv(r)
        }
        (None, Some(e)) => {
            eprintln!("the answer's rows could not be read: {}", escape_line(e));
            Ok(String::new())
        }
        (None, None) => {
            eprintln!("{}", no_answer(answer));
            Ok(String::new())
        }
    }
}

fn no_answer(answer: &Answer) -> String {
    format!("(no answer: the episode ended by {} without a query that runs)", answer.episode.ended_by)
}

/// SQL on one line: its line breaks as spaces.
fn one_line(sql: &str) -> String {
    sql.trim().replace(['\r', '\n'], " ")
}

/// How the episode went, on stderr, in one write (stderr is unbuffered: `eprintln!` with
/// arguments writes piece by piece, and a reader of a terminal could see half a line). Numbers
/// and names of sqale's own: nothing to escape.
fn summary(answer: &Answer) {
    let ep = &answer.episode;
    let t = &ep.tokens;
    let line = format!(
        "ended_by: {} · {} tool turns, {} calls · {} tokens in context ({} decoded, {} reused, {} generated) · {:.1} s · seed {}",
        ep.ended_by,
        ep.tool_turns,
        ep.tool_calls,
        t.context_tokens,
        t.decoded_tokens,
        t.reused_tokens,
        t.generated_tokens,
        ep.seconds,
        ep.seed
    );
    eprintln!("{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_is_escaped_for_people_and_kept_for_scripts() {
        let text = "open\x1b]0;PWNED\x07,shipped\x1b[2J\n";
        let escaped = "open\\u{1b}]0;PWNED\\u{7},shipped\\u{1b}[2J\n";
        for terminal in [true, false] {
            assert_eq!(for_stdout(text, Format::Table, terminal), escaped, "the table is for people");
            assert_eq!(for_stdout(text, Format::Json, terminal), text, "JSON escapes itself");
        }
        for format in [Format::Csv, Format::Sql] {
            assert_eq!(for_stdout(text, format, true), escaped, "{format:?} on a terminal");
            assert_eq!(for_stdout(text, format, false), text, "{format:?} in a pipe");
        }
    }
}
