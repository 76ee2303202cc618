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
    /// Characters shown of one cell; longer values are cut and the cut is stated.
    pub max_cell_chars: usize,
    /// Characters of one tool result; rows past it are dropped and the drop is stated.
    pub max_result_chars: usize,
    /// Largest `limit` honoured by `sample_rows`.
    pub max_sample_rows: usize,
    /// Largest `limit` honoured by `distinct_values`.
    pub max_distinct_values: usize,
    /// Rows counted past `max_rows` to tell the model how large a result was.
    pub count_rows_up_to: usize,
    /// Characters of SQL accepted in one call.
    pub max_sql_chars: usize,
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
        }
    }
}

/// Largest string or blob one statement may build (SQLite's `SQLITE_LIMIT_LENGTH`).
pub(crate) const MAX_VALUE_BYTES: i32 = 8 << 20;

/// Process-wide ceiling on SQLite's heap, so that a sort over a runaway join can't exhaust memory.
pub(crate) const HARD_HEAP_LIMIT_BYTES: i64 = 1 << 30;
