//! `sqale mcp`: the agent and its tools over the Model Context Protocol on stdio.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use sqale::serve::mcp::McpServer;

use super::serve::{runtime, ServiceArgs, DRAIN_AFTER_FAILURE};

/// Arguments of `sqale mcp`.
#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub(crate) service: ServiceArgs,
    /// Serve the eight tools and list_databases only: no model is loaded, no ask_database.
    #[arg(long)]
    tools_only: bool,
}

pub fn mcp(args: McpArgs) -> anyhow::Result<()> {
    let databases = args.service.databases()?;
    let limits = super::limits(args.service.sql_timeout)?;
    let service = if args.tools_only { None } else { Some(Arc::new(args.service.start(1, 4)?)) };
    eprintln!("sqale mcp: serving on stdio (databases: {})", databases.names());
    let server = McpServer::new(service.clone(), databases, limits);
    let svc = service.clone();
    let rt = runtime()?;
    let outcome = rt.block_on(async move {
        let serving = sqale::serve::mcp::serve_stdio(server);
        tokio::pin!(serving);
        tokio::select! {
            served = &mut serving => served.map_err(anyhow::Error::msg),
            error = async { match &svc { Some(s) => s.failed().await, None => std::future::pending().await } } => {
                // The tool call under way gets its answer before the process goes.
                let _ = tokio::time::timeout(DRAIN_AFTER_FAILURE, &mut serving).await;
                Err(anyhow::anyhow!("the engine failed: {error}"))
            }
        }
    });
    if outcome.is_err() {
        // Without waiting for stdin's reader thread: it blocks on a read until the client goes.
        rt.shutdown_background();
    }
    if let Some(s) = service {
        s.shutdown(Duration::ZERO);
    }
    outcome
}
