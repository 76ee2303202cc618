//! `sqale tools`: one tool call, as the agent would run it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use sqale::env::Environment;
use sqale::protocol::{extract_calls, Parsed};

/// Arguments of `sqale tools`.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// SQLite database (default: the demo database).
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
        [Parsed::Malformed { error, .. }] => anyhow::bail!("the call is not valid: {error}"),
        [] => anyhow::bail!(
            "no tool call found in {:?}; write it as JSON: '{}'",
            args.call,
            sqale::tools::Tool::ListTables.spec().example()
        ),
        _ => anyhow::bail!("give one tool call at a time"),
    };
    let result = env.call(&call.tool, &call.args);
    if args.json {
        println!("{}", serde_json::to_string(&result).context("serialising the result")?);
    } else {
        println!("{}", result.result);
    }
    if !result.ok {
        // The call ran and failed (as the model would see it): exit 1, apart from usage errors (2).
        std::process::exit(1);
    }
    Ok(())
}
