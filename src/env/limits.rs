//! Bounds on what one tool call may cost and return.

use std::time::Duration;

/// Bounds applied to every tool call, so that nothing the model writes can stall an episode or
/// flood its context.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock time one statement may run before SQLite is interrupted.
    pub timeout: Duration,
    /// Rows shown by `run_query` and `submit_sql`.
    pub max_rows: usize,
    /// Characters shown of one cell, and of one name in `list_tables`; longer values are cut and
    /// the cut is stated.
    pub max_cell_chars: usize,
    /// Characters of one tool result, whatever the tool: rows past it are dropped, and any other
    /// result (a schema listing, a wide header, an error listing names) is cut; the cut is stated.
    pub max_result_chars: usize,
    /// Largest `limit` honoured by `sample_rows`.
    pub max_sample_rows: usize,
    /// Largest `limit` honoured by `distinct_values`.
    pub max_distinct_values: usize,
    /// Rows counted past `max_rows` to tell the model how large a result was.
    pub count_rows_up_to: usize,
    /// Characters of SQL accepted in one call.
    pub max_sql_chars: usize,
    /// Run statements on a worker thread, abandoned (with its connection) when a statement
    /// outlives its deadline by [`STOP_GRACE`], so that a call returns on time even while one
    /// long function call (`instr`, `trim`, `LIKE` on long strings) holds SQLite. `false` runs
    /// them on the caller's thread, where only SQLite's progress handler stops them: between
    /// VM steps, not inside a function call. For measuring the worker's cost.
    pub isolate: bool,
    /// Stopped statements still running on abandoned workers, across the process, past which
    /// new calls are refused (with [`crate::env::ToolError::Busy`]) until one ends.
    pub max_abandoned: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(5),
            max_rows: 30,
            max_cell_chars: 200,
            max_result_chars: 6000,
            max_sample_rows: 20,
            max_distinct_values: 50,
            count_rows_up_to: 100_000,
            max_sql_chars: 20_000,
            isolate: true,
            max_abandoned: 4,
        }
    }
}

/// Largest string or blob one statement may build or read (SQLite's `SQLITE_LIMIT_LENGTH`,
/// which also refuses reading a stored value longer than it: so it stays above any value a
/// database holds in practice).
pub(crate) const MAX_VALUE_BYTES: i32 = 8 << 20;

/// Longest LIKE or GLOB pattern (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`, SQLite's default 50,000):
/// matching costs up to the pattern's length times the text's.
pub(crate) const MAX_LIKE_PATTERN_BYTES: i32 = 1000;

/// How long past its deadline a statement may take to stop before its worker is abandoned.
pub const STOP_GRACE: Duration = Duration::from_millis(250);

/// Process-wide ceiling on SQLite's heap, so that a sort over a runaway join can't exhaust memory.
pub(crate) const HARD_HEAP_LIMIT_BYTES: i64 = 1 << 30;
