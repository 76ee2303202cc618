//! The protocol's reading side: turning completions into tool calls and final answers.
//! (Its writing side, the texts the model reads, lives in [`crate::prompt`].)

pub mod grammar;
mod parse;

pub use grammar::{CallGrammar, Calls};
pub use parse::{extract_calls, final_answer_sql, parse_completion, Parsed, ParsedTurn, ToolCall};
