//! `sqale tools`: one tool call, as the agent would run it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale::env::Environment;
use sqale::printable::{escape_controls, escape_line};
use sqale::protocol::{extract_calls, Parsed};

/// Arguments of `sqale tools`.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// SQLite database, or a data file (.csv, .tsv, .jsonl, .parquet) or a folder of them,
    /// imported into a private cached database (default: the demo database).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Seconds a statement may run before it is stopped.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    sql_timeout: f64,
    /// Print `{"ok": bool, "result": "..."}`.
    #[arg(long)]
    json: bool,
    /// The call, e.g. '{"tool": "describe_table", "args": {"table_name": "orders"}}'.
    call: String,
}

pub fn run(args: ToolsArgs) -> anyhow::Result<()> {
    let db = super::db_or_demo(args.db)?;
    let mut env = Environment::with_limits(&db, super::limits(args.sql_timeout)?)?;
    let items = extract_calls(&args.call);
    let call = match items.as_slice() {
        [Parsed::Call(c)] => c.clone(),
        [Parsed::Malformed { error, .. }] => {
            anyhow::bail!("the call is not valid: {}", escape_line(error))
        }
        [] => anyhow::bail!(
            "no tool call found in {}; write it as JSON: '{}'",
            excerpt(&args.call),
            sqale::tools::Tool::ListTables.spec().example()
        ),
        _ => anyhow::bail!("give one tool call at a time"),
    };
    let result = env.call(&call.tool, &call.args);
    if args.json {
        println!("{}", serde_json::to_string(&result).context("serialising the result")?);
    } else {
        // What the model reads, unchanged, but a terminal must not obey the control characters
        // a database's names and values may hold.
        println!("{}", escape_controls(&result.result));
    }
    if !result.ok {
        // The call ran and failed (as the model would see it): exit 1, apart from usage errors (2).
        std::process::exit(1);
    }
    Ok(())
}

/// Characters of the given call quoted back in an error.
const EXCERPT_CHARS: usize = 60;

/// The start of `call`, quoted on one line with control characters escaped, and how much was
/// left out: an error quotes what it is about without echoing a whole pasted file.
fn excerpt(call: &str) -> String {
    let total = call.chars().count();
    let head: String = call.chars().take(EXCERPT_CHARS).collect();
    let quoted = format!("{:?}", head);
    let quoted = escape_line(&quoted);
    if total > EXCERPT_CHARS {
        format!("{quoted}… ({total} characters in all)")
    } else {
        quoted.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_printable() {
        let long = "[".repeat(30_000);
        let e = excerpt(&long);
        assert!(e.len() < 120, "{e}");
        assert!(e.ends_with("… (30000 characters in all)"), "{e}");
        assert_eq!(excerpt("hi"), "\"hi\"");
        assert!(!excerpt("a\u{1b}]0;x\u{7}").contains('\u{1b}'));
    }
}
