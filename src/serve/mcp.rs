//! `sqale mcp`: the agent and its eight tools over the Model Context Protocol, on stdio.
//!
//! Built on `rmcp`, the protocol's official Rust SDK. An assistant gets:
//! - `ask_database(question, db, evidence?, seed?)`: a whole episode on the loaded model (through the
//!   same [`Service`] as `sqale serve`), answered with the SQL and its first rows;
//! - `list_databases()`;
//! - the eight tools the models were trained with (`list_tables`, `describe_table`, …,
//!   `run_query`, `submit_sql`), each with a `db` argument, read-only and bounded exactly as
//!   in an episode ([`Environment`]).
//!
//! The tool list is written out by hand from [`crate::tools::CATALOGUE`] rather than with the
//! SDK's macros, so the MCP tools can never drift from the ones the model is trained on.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{json, Map, Value};

use super::databases::Databases;
use super::events::Answer;
use super::redact::Redactor;
use super::service::{Request, Service, Update};
use crate::env::{Environment, Limits};
use crate::tools::{ArgKind, CATALOGUE};

/// The MCP server's state.
pub struct McpServer {
    /// The episode service; `None` serves the eight tools only.
    service: Option<Arc<Service>>,
    databases: Databases,
    limits: Limits,
    /// The databases' paths, replaced by their names in every answer.
    redact: Redactor,
}

impl McpServer {
    /// A server over `databases`, answering questions with `service` when there is one.
    pub fn new(service: Option<Arc<Service>>, databases: Databases, limits: Limits) -> Self {
        let redact = Redactor::for_databases(&databases);
        McpServer { service, databases, limits, redact }
    }

    /// `text` for the client: the server's paths replaced by the databases' names (the whole
    /// text goes to stderr, the server's log, when it named one).
    fn shown(&self, text: String) -> String {
        match self.redact.text(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(shown) => {
                eprintln!("sqale mcp: {}", crate::printable::escape_controls(&text));
                shown
            }
        }
    }

    /// Every tool this server offers.
    pub fn tools(&self) -> Vec<McpTool> {
        let db = json!({ "type": "string", "description": "database name (list_databases)" });
        let object = |props: Map<String, Value>, required: Vec<&str>| {
            let schema = json!({ "type": "object", "properties": props, "required": required });
            Arc::new(schema.as_object().cloned().unwrap_or_default())
        };
        let read_only = ToolAnnotations::new().read_only(true);
        let mut tools = Vec::new();
        if self.service.is_some() {
            let mut p = Map::new();
            p.insert("question".into(), json!({ "type": "string", "description": "the question, in plain language" }));
            p.insert("db".into(), db.clone());
            p.insert("evidence".into(), json!({ "type": "string", "description": "an optional hint (as in BIRD)" }));
            p.insert(
                "seed".into(),
                json!({ "type": "integer", "minimum": 0, "maximum": u32::MAX, "description": "sampling seed, for a reproducible episode (default: drawn)" }),
            );
            tools.push(
                McpTool::new(
                    "ask_database",
                    "Answer a question about a database: the text-to-SQL agent explores it read-only, tests a query, and returns the SQL and its first rows.",
                    object(p, vec!["question", "db"]),
                )
                .annotate(read_only.clone()),
            );
        }
        tools.push(
            McpTool::new(
                "list_databases",
                "Names and tables of the databases this server answers over.",
                object(Map::new(), vec![]),
            )
            .annotate(read_only.clone()),
        );
        for spec in CATALOGUE {
            let mut p = Map::new();
            p.insert("db".into(), db.clone());
            let mut required = vec!["db"];
            for a in spec.args {
                let schema = match a.kind {
                    ArgKind::Table => json!({ "type": "string", "description": "a table's name" }),
                    ArgKind::Column => json!({ "type": "string", "description": "a column's name" }),
                    ArgKind::Sql => json!({ "type": "string", "description": "one read-only SQLite query" }),
                    ArgKind::Limit { default } => json!({ "type": "integer", "minimum": 1, "default": default }),
                };
                p.insert(a.name.into(), schema);
                if !matches!(a.kind, ArgKind::Limit { .. }) {
                    required.push(a.name);
                }
            }
            let does = format!("{} Read-only; results are bounded as in an agent episode.", capitalised(spec.does));
            tools.push(McpTool::new(spec.name, does, object(p, required)).annotate(read_only.clone()));
        }
        tools
    }

    /// Runs one tool call; errors the caller made are tool errors (`is_error`), as MCP asks.
    pub async fn call(&self, name: &str, args: Map<String, Value>) -> Result<CallToolResult, ErrorData> {
        let text = |t: String| CallToolResult::success(vec![ContentBlock::text(self.shown(t))]);
        let failed = |t: String| CallToolResult::error(vec![ContentBlock::text(self.shown(t))]);
        if name == "list_databases" {
            let list: Vec<_> = self.databases.iter().collect();
            return Ok(text(serde_json::to_string_pretty(&list).unwrap_or_default()));
        }
        let known = name == "ask_database" && self.service.is_some() || CATALOGUE.iter().any(|s| s.name == name);
        if !known {
            return Err(ErrorData::invalid_params(format!("unknown tool {name:?}"), None));
        }
        let Some(db_name) = args.get("db").and_then(Value::as_str) else {
            return Ok(failed(format!("missing argument \"db\": one of {}", self.databases.names())));
        };
        let Some(db) = self.databases.get(db_name).cloned() else {
            return Ok(failed(format!("unknown database {db_name:?}; this server has: {}", self.databases.names())));
        };
        if name == "ask_database" {
            return Ok(match self.ask(db, &args).await {
                Ok(t) => text(t),
                Err(t) => failed(t),
            });
        }
        let mut tool_args = args;
        tool_args.remove("db");
        let (limits, name) = (self.limits.clone(), name.to_string());
        let result = tokio::task::spawn_blocking(move || {
            Environment::with_limits(&db.path, limits).map(|mut env| env.call(&name, &Value::Object(tool_args)))
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the tool stopped: {e}"), None))?;
        Ok(match result {
            Ok(r) if r.ok => text(r.result),
            Ok(r) => failed(r.result),
            Err(e) => failed(e.to_string()),
        })
    }

    async fn ask(&self, db: super::databases::Database, args: &Map<String, Value>) -> Result<String, String> {
        let service = self.service.as_ref().ok_or("this server has no model (it serves the tools only)")?;
        let question = args.get("question").and_then(Value::as_str).unwrap_or("").trim().to_string();
        if question.is_empty() {
            return Err("missing argument \"question\"".into());
        }
        let evidence =
            args.get("evidence").and_then(Value::as_str).map(str::to_string).filter(|e| !e.trim().is_empty());
        let seed = match args.get("seed") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| format!("\"seed\" must be a whole number from 0 to {}, not {v}", u32::MAX))?,
            ),
        };
        let request = Request { question, evidence, db, seed, max_episode_tokens: None };
        let mut ticket = service.submit(request).map_err(|e| e.to_string())?;
        while let Some(update) = ticket.updates.recv().await {
            if let Update::Done(result) = update {
                return result.map(|a| summary(&a)).map_err(|e| e.to_string());
            }
        }
        Err("the engine stopped before answering".into())
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// An answer as text for an assistant: the SQL, its first rows, how the episode went.
pub fn summary(a: &Answer) -> String {
    let ep = &a.episode;
    let mut s = match &ep.sql {
        Some(sql) => format!("SQL:\n{sql}\n"),
        None => "No answer: the agent found no query that runs.\n".to_string(),
    };
    if let Some(rows) = &a.rows {
        s.push_str(&format!("\nRows ({}{}):\n", rows.rows.len(), if rows.truncated { ", more not shown" } else { "" }));
        s.push_str(&rows.columns.join("\t"));
        s.push('\n');
        for r in &rows.rows {
            let cells: Vec<String> =
                r.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect();
            s.push_str(&cells.join("\t"));
            s.push('\n');
        }
    }
    if let Some(e) = &a.rows_error {
        s.push_str(&format!("\nThe answer's rows could not be read: {e}\n"));
    }
    s.push_str(&format!(
        "\n(ended by {}; {} tool turns, {} tool calls, {:.1} s, seed {}; tables opened: {})\n",
        ep.ended_by,
        ep.tool_turns,
        ep.tool_calls,
        ep.seconds,
        ep.seed,
        ep.tables_opened.join(", ")
    ));
    s
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let what = if self.service.is_some() {
            "ask_database answers a question with the SQaLe text-to-SQL agent; "
        } else {
            ""
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sqale", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "{what}list_databases names the databases; the other tools explore one read-only (each takes a db name). Databases: {}.",
                self.databases.names()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name: Cow<'_, str> = request.name;
        self.call(&name, request.arguments.unwrap_or_default()).await.map(CallToolResponse::from)
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(server: McpServer) -> Result<(), String> {
    use rmcp::ServiceExt;
    let running =
        server.serve(rmcp::transport::stdio()).await.map_err(|e| format!("MCP initialisation failed: {e}"))?;
    running.waiting().await.map_err(|e| format!("the MCP session failed: {e}"))?;
    Ok(())
}
