//! A session's lines: a question, or a command that changes what the next questions use.

use std::path::PathBuf;

use anyhow::bail;

/// What the session commands are, for `/help`.
pub const HELP: &str = "\
Type a question to ask it. Commands:
  /db FILE         ask about another SQLite database
  /evidence TEXT   give the next questions this evidence (a hint); /evidence alone clears it
  /trace on|off    show each episode as it happens (on stderr)
  /seed N          sample every question with seed N; /seed random for a new seed each
  /help            this list
  /bye             quit (or Ctrl-D)
Ctrl-C stops the running episode and keeps the session.";

/// One line of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Nothing to do.
    Empty,
    /// A question to ask.
    Question(String),
    /// A command.
    Command(Command),
}

/// A session command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Db(PathBuf),
    Evidence(Option<String>),
    Trace(bool),
    Seed(Option<u32>),
    Help,
    Bye,
}

/// Reads one line: `/name argument` is a command, other text a question.
pub fn parse(line: &str) -> anyhow::Result<Line> {
    let line = line.trim();
    let Some(command) = line.strip_prefix('/') else {
        return Ok(if line.is_empty() { Line::Empty } else { Line::Question(line.to_string()) });
    };
    let (name, arg) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
    let arg = arg.trim();
    let parsed = match name {
        "db" if arg.is_empty() => bail!("/db needs a file: /db library.sqlite"),
        "db" => Command::Db(PathBuf::from(arg)),
        "evidence" => Command::Evidence(Some(arg.to_string()).filter(|e| !e.is_empty())),
        "trace" => match arg {
            "on" => Command::Trace(true),
            "off" => Command::Trace(false),
            _ => bail!("/trace takes on or off, not {arg:?}"),
        },
        "seed" => match arg {
            "random" => Command::Seed(None),
            n => match n.parse() {
                Ok(n) => Command::Seed(Some(n)),
                Err(_) => bail!("/seed takes a number from 0 to {} or `random`, not {n:?}", u32::MAX),
            },
        },
        "help" | "?" => Command::Help,
        "bye" | "exit" | "quit" => Command::Bye,
        _ => bail!("unknown command /{name}; /help lists the commands"),
    };
    Ok(Line::Command(parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(line: &str) -> Command {
        match parse(line).unwrap() {
            Line::Command(c) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn questions_and_commands() {
        assert_eq!(
            parse("  Which branch opened first? ").unwrap(),
            Line::Question("Which branch opened first?".into())
        );
        assert_eq!(parse("   ").unwrap(), Line::Empty);
        assert_eq!(command("/db my data.sqlite"), Command::Db("my data.sqlite".into()));
        assert_eq!(
            command("/evidence  first means earliest opened_on "),
            Command::Evidence(Some("first means earliest opened_on".into()))
        );
        assert_eq!(command("/evidence"), Command::Evidence(None));
        assert_eq!(command("/trace on"), Command::Trace(true));
        assert_eq!(command("/trace off"), Command::Trace(false));
        assert_eq!(command("/seed 42"), Command::Seed(Some(42)));
        assert_eq!(command("/seed random"), Command::Seed(None));
        assert_eq!(command("/help"), Command::Help);
        assert_eq!(command("/bye"), Command::Bye);
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        for (line, says) in [
            ("/db", "needs a file"),
            ("/trace maybe", "on or off"),
            ("/seed -1", "a number"),
            ("/seed", "a number"),
            ("/dbx a", "unknown command /dbx"),
        ] {
            let e = parse(line).unwrap_err().to_string();
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
