//! The tool catalogue: the eight tools the SQaLe models were trained with, their arguments, what
//! each does and how the system prompt presents it (`PROTOCOL.md`, "Tools").
//!
//! Names and arguments are fixed by training. The environment ([`crate::env`]) runs the tools,
//! the prompt ([`crate::prompt`]) lists them, the protocol and the agent recognise them, all from
//! this one table: adding a tool is a row here and its implementation in the environment.

use std::fmt::Write;

/// A tool the models were trained with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    /// Names of all tables.
    ListTables,
    /// Columns, types and keys of a table.
    DescribeTable,
    /// Foreign keys from and to a table.
    ForeignKeys,
    /// Shortest path between two tables along foreign keys.
    JoinPath,
    /// A few rows of a table.
    SampleRows,
    /// Distinct values of a column.
    DistinctValues,
    /// Runs a query and returns its rows or its error.
    RunQuery,
    /// Submits the final query and ends the episode.
    SubmitSql,
}

/// What kind of value an argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A table's (or view's) name.
    Table,
    /// A column's name.
    Column,
    /// A SQL query: the model's own, untrusted.
    Sql,
    /// An optional positive row count; `default` when absent (capped by the environment's
    /// limits).
    Limit {
        /// The count used when the call gives none, and the one the prompt shows.
        default: usize,
    },
}

/// One argument of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    /// Its name in `args`.
    pub name: &'static str,
    /// What it takes.
    pub kind: ArgKind,
}

/// A tool's entry in the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// Which tool.
    pub tool: Tool,
    /// Its name, as the model writes it.
    pub name: &'static str,
    /// Its arguments, in the order the prompt shows them.
    pub args: &'static [Arg],
    /// What it does, as the system prompt says it.
    pub does: &'static str,
}

const fn table(name: &'static str) -> Arg {
    Arg { name, kind: ArgKind::Table }
}

const fn column(name: &'static str) -> Arg {
    Arg { name, kind: ArgKind::Column }
}

const fn sql() -> Arg {
    Arg { name: "sql", kind: ArgKind::Sql }
}

const fn limit(default: usize) -> Arg {
    Arg { name: "limit", kind: ArgKind::Limit { default } }
}

/// Every tool, in the order the system prompt lists them.
pub const CATALOGUE: [ToolSpec; 8] = [
    ToolSpec { tool: Tool::ListTables, name: "list_tables", args: &[], does: "names of all tables." },
    ToolSpec {
        tool: Tool::DescribeTable,
        name: "describe_table",
        args: &[table("table_name")],
        does: "columns, types and keys of a table.",
    },
    ToolSpec {
        tool: Tool::ForeignKeys,
        name: "foreign_keys",
        args: &[table("table_name")],
        does: "foreign keys from and to a table.",
    },
    ToolSpec {
        tool: Tool::JoinPath,
        name: "join_path",
        args: &[table("table_a"), table("table_b")],
        does: "shortest path between two tables along foreign keys, with the join columns.",
    },
    ToolSpec {
        tool: Tool::SampleRows,
        name: "sample_rows",
        args: &[table("table_name"), limit(5)],
        does: "a few rows of a table.",
    },
    ToolSpec {
        tool: Tool::DistinctValues,
        name: "distinct_values",
        args: &[table("table_name"), column("column_name"), limit(20)],
        does: "distinct values of a column.",
    },
    ToolSpec {
        tool: Tool::RunQuery,
        name: "run_query",
        args: &[sql()],
        does: "runs a query and returns its rows or its error.",
    },
    ToolSpec {
        tool: Tool::SubmitSql,
        name: "submit_sql",
        args: &[sql()],
        does: "submits your final query and ends the episode.",
    },
];

impl Tool {
    /// Every tool, in catalogue order.
    pub const ALL: [Tool; 8] = [
        Tool::ListTables,
        Tool::DescribeTable,
        Tool::ForeignKeys,
        Tool::JoinPath,
        Tool::SampleRows,
        Tool::DistinctValues,
        Tool::RunQuery,
        Tool::SubmitSql,
    ];

    /// The tool a model names, if there is one by that name.
    pub fn from_name(name: &str) -> Option<Tool> {
        CATALOGUE.iter().find(|s| s.name == name).map(|s| s.tool)
    }

    /// Its catalogue entry.
    pub fn spec(self) -> &'static ToolSpec {
        &CATALOGUE[self as usize]
    }

    /// Its name, as the model writes it.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The argument called `name`, if the tool has one.
    pub fn arg(self, name: &str) -> Option<&'static Arg> {
        self.spec().args.iter().find(|a| a.name == name)
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl ToolSpec {
    /// A call as the prompt shows it: `{"tool": "sample_rows", "args": {"table_name": "...",
    /// "limit": 5}}`.
    pub fn example(&self) -> String {
        let mut s = format!("{{\"tool\": \"{}\", \"args\": {{", self.name);
        for (i, a) in self.args.iter().enumerate() {
            let sep = if i > 0 { ", " } else { "" };
            let _ = match a.kind {
                ArgKind::Table | ArgKind::Column | ArgKind::Sql => write!(s, "{sep}\"{}\": \"...\"", a.name),
                ArgKind::Limit { default } => write!(s, "{sep}\"{}\": {default}", a.name),
            };
        }
        s.push_str("}}");
        s
    }

    /// The tool's line in the system prompt's tool list.
    pub fn prompt_line(&self) -> String {
        format!("- {}: {}", self.example(), self.does)
    }
}

/// The tools' names, comma-separated, in catalogue order.
pub fn names() -> String {
    CATALOGUE.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_order_matches_the_enum() {
        for (i, t) in Tool::ALL.iter().enumerate() {
            assert_eq!(CATALOGUE[i].tool, *t);
            assert_eq!(Tool::from_name(t.name()), Some(*t));
        }
        assert_eq!(Tool::from_name("drop_table"), None);
    }

    #[test]
    fn examples_render_as_json_calls() {
        let e = Tool::DistinctValues.spec().example();
        assert_eq!(
            e,
            r#"{"tool": "distinct_values", "args": {"table_name": "...", "column_name": "...", "limit": 20}}"#
        );
        for s in &CATALOGUE {
            let v: serde_json::Value = serde_json::from_str(&s.example()).unwrap();
            assert_eq!(v["tool"], s.name);
            assert_eq!(v["args"].as_object().unwrap().len(), s.args.len());
        }
    }
}
