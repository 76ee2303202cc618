//! How an answer is printed: the chosen format on stdout, the episode's summary on stderr.

use std::io::Write;

use anyhow::Context;
use sqale::answer::Answer;

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
        Format::Json if mode == Mode::Lines => serde_json::to_string(answer).context("serialising the answer")? + "\n",
        Format::Json => serde_json::to_string_pretty(answer).context("serialising the answer")? + "\n",
        Format::Sql if mode == Mode::Lines => format!("{}\n", one_line(answer.episode.sql.as_deref().unwrap_or(""))),
        Format::Sql => format!("{}\n", answer.episode.sql.as_deref().unwrap_or("(no answer)")),
        Format::Table => table(answer),
        Format::Csv => csv(answer)?,
    };
    let text =
        if mode == Mode::Lines && matches!(options.format, Format::Table | Format::Csv) { text + "\n" } else { text };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).context("writing the answer")?;
    out.flush().context("writing the answer")?;
    if options.format != Format::Json {
        summary(answer);
    }
    Ok(())
}

/// The SQL, its rows and their count; or why there are none.
fn table(answer: &Answer) -> String {
    let Some(sql) = &answer.episode.sql else { return format!("{}\n", no_answer(answer)) };
    let mut s = format!("{sql}\n\n");
    if let Some(r) = &answer.rows {
        s.push_str(&format!("{}\n{}\n", rows::table(r), rows::count(r)));
    }
    if let Some(e) = &answer.rows_error {
        s.push_str(&format!("the answer's rows could not be read: {e}\n"));
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
            eprintln!("the answer's rows could not be read: {e}");
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
/// arguments writes piece by piece, and a reader of a terminal could see half a line).
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
