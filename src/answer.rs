//! The answer to a question: the episode that played it, the model and sampling it ran with, and
//! the submitted query's first rows. What `sqale ask --json` prints and the service returns.

use std::path::Path;

use serde::Serialize;

use crate::agent::Episode;
use crate::env::{preview, Limits, RowsPreview};

/// An episode and its answer's first rows.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The model (a file, or a served model and its servers).
    pub model: String,
    /// The inference servers the episode ran on (none in-process).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers: Option<serde_json::Value>,
    /// Context tokens of one sequence.
    pub ctx: usize,
    /// Sampling temperature.
    pub temperature: f64,
    /// Nucleus sampling.
    pub top_p: f64,
    /// Top-k sampling.
    pub top_k: i32,
    /// The database: its name for a service, its file for `ask`.
    pub db: String,
    /// The whole episode.
    pub episode: Episode,
    /// The answer's first rows, when there is an answer and it ran.
    pub rows: Option<RowsPreview>,
    /// Why the answer's rows could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_error: Option<String>,
    /// The rows drawn as the chart they call for, as inline SVG ([`crate::plot`]); absent when
    /// they call for none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
}

impl Answer {
    /// Reads the first rows of the episode's answer from `db` (read-only, under `limits`):
    /// `rows` when it ran (and `chart` when they call for one), `rows_error` when it did not,
    /// neither without an answer.
    pub fn read_rows(&mut self, db: &Path, limits: &Limits) {
        (self.rows, self.rows_error) = match self.episode.sql.as_deref().map(|sql| preview(db, sql, limits)) {
            None => (None, None),
            Some(Ok(r)) => (Some(r), None),
            Some(Err(e)) => (None, Some(e.to_string())),
        };
        self.chart = self.rows.as_ref().and_then(|r| crate::plot::svg(&r.columns, &r.rows));
    }

    /// Whether there is an answer to show: a query was submitted and its rows were read.
    pub fn has_rows(&self) -> bool {
        self.rows.is_some()
    }
}

/// `x` as the decimal it was written as (0.6, not 0.6000000238418579).
pub fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}
