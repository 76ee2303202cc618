//! Execution scoring: run the gold and the predicted query under the same read-only,
//! time-bounded environment and compare result sets.
//!
//! Correct means BIRD's rule: the rows as a *set* are equal (order and duplicates ignored;
//! columns compared in the order written). Values compare as SQLite values: `1` and `1.0` are
//! equal, text never equals a number, NULL equals NULL, and reals are compared after rounding
//! to 12 significant digits, so the same number computed two ways (`0.1 + 0.2` against `0.3`)
//! is equal. The multiset F1 of rows and the training reward tier (PROTOCOL.md) are reported
//! too.

use std::collections::HashMap;

use rusqlite::types::Value;
use serde::Serialize;

use crate::env::{Environment, Rows};

/// One value in a canonical, hashable form.
fn canonical(v: &Value) -> String {
    match v {
        Value::Null => "N".into(),
        Value::Integer(i) => format!("#{i}"),
        Value::Real(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => format!("#{}", *f as i64),
        Value::Real(f) => format!("#{:.11e}", f),
        Value::Text(t) => format!("T{t}"),
        Value::Blob(b) => format!("B{}", crate::hash::hex(b)),
    }
}

fn row_key(row: &[Value]) -> String {
    row.iter().map(canonical).collect::<Vec<_>>().join("\u{1f}")
}

fn counts(rows: &Rows) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for r in &rows.rows {
        *m.entry(row_key(r)).or_insert(0) += 1;
    }
    m
}

/// Whether two results are equal as sets of rows (BIRD's rule).
pub fn same_set(a: &Rows, b: &Rows) -> bool {
    let (ca, cb) = (counts(a), counts(b));
    ca.len() == cb.len() && ca.keys().all(|k| cb.contains_key(k))
}

/// Multiset F1 of predicted rows against gold rows (1.0 when both are empty).
pub fn multiset_f1(pred: &Rows, gold: &Rows) -> f64 {
    let (cp, cg) = (counts(pred), counts(gold));
    let (np, ng) = (pred.rows.len(), gold.rows.len());
    if np == 0 && ng == 0 {
        return 1.0;
    }
    let overlap: usize = cp.iter().map(|(k, n)| (*n).min(*cg.get(k).unwrap_or(&0))).sum();
    if overlap == 0 {
        return 0.0;
    }
    let (p, r) = (overlap as f64 / np as f64, overlap as f64 / ng as f64);
    2.0 * p * r / (p + r)
}

/// How a prediction fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// Result set equals the gold one.
    pub correct: bool,
    /// The prediction ran.
    pub executed: bool,
    /// Multiset F1 of rows (0 when it did not run).
    pub f1: f64,
    /// Training reward tier: 3.0 match; 1.0 + 0.9·F1 executes wrong; 0.5 parses but fails;
    /// 0 otherwise. (The paper's small bonus for joins along foreign keys and for agreeing with
    /// the group is not included: it needs the other candidates of a GRPO group.)
    pub reward: f64,
    /// The prediction's error, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Whether an SQLite error means the text is not SQL at all (as opposed to valid SQL that
/// fails: unknown table, runtime error, time limit).
pub(crate) fn is_syntax_error(message: &str) -> bool {
    message.contains("syntax error")
        || message.contains("incomplete input")
        || message.contains("unrecognized token")
        || message == "empty SQL"
}

/// Scores `pred` against gold rows already computed, in `env`.
pub fn score(env: &mut Environment, pred: Option<&str>, gold: &Rows) -> Score {
    let Some(sql) = pred.map(str::trim).filter(|s| !s.is_empty()) else {
        return Score { correct: false, executed: false, f1: 0.0, reward: 0.0, error: Some("no answer".into()) };
    };
    match env.execute(sql) {
        Ok(rows) => {
            let correct = same_set(&rows, gold);
            let f1 = multiset_f1(&rows, gold);
            let reward = if correct { 3.0 } else { 1.0 + 0.9 * f1 };
            Score { correct, executed: true, f1, reward, error: None }
        }
        Err(e) => Score {
            error: Some(e.to_string()),
            correct: false,
            executed: false,
            f1: 0.0,
            reward: if is_syntax_error(&e.to_string()) { 0.0 } else { 0.5 },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: Vec<Vec<Value>>) -> Rows {
        Rows { columns: vec![], rows: r }
    }
    use Value::{Integer as I, Null as N, Real as R, Text as T};

    #[test]
    fn sets_ignore_order_and_duplicates_but_not_columns() {
        let a = rows(vec![vec![I(1), T("a".into())], vec![I(2), T("b".into())]]);
        let b = rows(vec![vec![I(2), T("b".into())], vec![I(1), T("a".into())], vec![I(1), T("a".into())]]);
        assert!(same_set(&a, &b));
        let swapped = rows(vec![vec![T("a".into()), I(1)], vec![T("b".into()), I(2)]]);
        assert!(!same_set(&a, &swapped));
        assert!(same_set(&rows(vec![]), &rows(vec![])));
        assert!(!same_set(&rows(vec![]), &rows(vec![vec![N]])));
    }

    #[test]
    fn values_compare_as_sqlite_values() {
        assert!(same_set(&rows(vec![vec![I(1)]]), &rows(vec![vec![R(1.0)]])));
        assert!(same_set(&rows(vec![vec![R(0.1 + 0.2)]]), &rows(vec![vec![R(0.3)]])));
        assert!(!same_set(&rows(vec![vec![R(0.3)]]), &rows(vec![vec![R(0.31)]])));
        assert!(!same_set(&rows(vec![vec![T("1".into())]]), &rows(vec![vec![I(1)]])));
        assert!(same_set(&rows(vec![vec![N]]), &rows(vec![vec![N]])));
    }

    #[test]
    fn multiset_f1_counts_duplicates() {
        let gold = rows(vec![vec![I(1)], vec![I(1)], vec![I(2)]]);
        let pred = rows(vec![vec![I(1)], vec![I(3)]]);
        // overlap 1: precision 1/2, recall 1/3 → F1 0.4
        assert!((multiset_f1(&pred, &gold) - 0.4).abs() < 1e-12);
        assert_eq!(multiset_f1(&rows(vec![]), &rows(vec![])), 1.0);
    }
}
