//! Reading a database's schema: tables, columns, and the foreign-key graph `join_path` walks.

use std::collections::{HashMap, VecDeque};

use rusqlite::Connection;

/// A table or view as declared in `sqlite_schema`.
#[derive(Debug, Clone)]
pub(crate) struct Relation {
    pub name: String,
    pub is_view: bool,
}

/// One column as `PRAGMA table_xinfo` reports it.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    pub name: String,
    pub decl_type: String,
    pub not_null: bool,
    pub default: Option<String>,
    /// 1-based position in the primary key, 0 when not part of it.
    pub pk: i64,
    /// `Some("VIRTUAL")` or `Some("STORED")` for a generated column.
    pub generated: Option<&'static str>,
}

/// One foreign key, possibly over several columns, from `from_table` to `to_table`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForeignKey {
    pub from_table: String,
    pub from_columns: Vec<String>,
    pub to_table: String,
    pub to_columns: Vec<String>,
}

impl ForeignKey {
    /// `orders.customer_id → customers.customer_id`.
    pub(crate) fn describe(&self) -> String {
        format!("{} → {}", qualified(&self.from_table, &self.from_columns), qualified(&self.to_table, &self.to_columns))
    }

    /// `orders.customer_id = customers.customer_id` (AND-joined for composite keys).
    pub(crate) fn join_condition(&self) -> String {
        self.from_columns
            .iter()
            .zip(&self.to_columns)
            .map(|(f, t)| format!("{}.{} = {}.{}", self.from_table, f, self.to_table, t))
            .collect::<Vec<_>>()
            .join(" AND ")
    }
}

fn qualified(table: &str, columns: &[String]) -> String {
    if columns.len() == 1 {
        format!("{table}.{}", columns[0])
    } else {
        format!("{table}.({})", columns.join(", "))
    }
}

/// Quotes an identifier for SQL text: `"my ""odd"" table"`.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Tables and views in schema order, without SQLite's internal tables.
pub(crate) fn relations(conn: &Connection) -> rusqlite::Result<Vec<Relation>> {
    let mut stmt = conn.prepare(
        "SELECT name, type FROM sqlite_schema \
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
    )?;
    let rows = stmt.query_map([], |r| Ok(Relation { name: r.get(0)?, is_view: r.get::<_, String>(1)? == "view" }))?;
    rows.collect()
}

/// Finds a relation by name, ignoring ASCII case as SQLite does.
pub(crate) fn resolve<'r>(rels: &'r [Relation], name: &str) -> Option<&'r Relation> {
    let name = name.trim();
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .or_else(|| name.strip_prefix('`').and_then(|n| n.strip_suffix('`')))
        .or_else(|| name.strip_prefix('[').and_then(|n| n.strip_suffix(']')))
        .unwrap_or(name);
    rels.iter().find(|r| r.name == name).or_else(|| rels.iter().find(|r| r.name.eq_ignore_ascii_case(name)))
}

/// Columns of a table or view, generated columns included, in declaration order: the columns
/// `SELECT *` returns. (`PRAGMA table_info` leaves generated columns out; the hidden columns of a
/// virtual table, which `SELECT *` leaves out too, are left out.)
pub(crate) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<Column>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_xinfo({})", quote_ident(table)))?;
    let rows = stmt.query_map([], |r| {
        // 0: ordinary, 1: hidden column of a virtual table, 2: generated VIRTUAL, 3: STORED.
        let hidden: i64 = r.get(6)?;
        let generated = match hidden {
            2 => Some("VIRTUAL"),
            3 => Some("STORED"),
            _ => None,
        };
        let column = Column {
            name: r.get(1)?,
            decl_type: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            not_null: r.get::<_, i64>(3)? != 0,
            default: r.get(4)?,
            pk: r.get(5)?,
            generated,
        };
        Ok(if hidden == 1 { None } else { Some(column) })
    })?;
    rows.filter_map(Result::transpose).collect()
}

/// Foreign keys declared on `table`, with implicit targets (`REFERENCES parent`) resolved to the
/// parent's primary key.
pub(crate) fn outgoing_keys(conn: &Connection, rels: &[Relation], table: &str) -> rusqlite::Result<Vec<ForeignKey>> {
    let mut stmt = conn.prepare(&format!("PRAGMA foreign_key_list({})", quote_ident(table)))?;
    let mut by_id: Vec<(i64, ForeignKey)> = Vec::new();
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let parent: String = r.get(2)?;
        let from: String = r.get(3)?;
        let to: Option<String> = r.get(4)?;
        let parent = resolve(rels, &parent).map_or(parent, |p| p.name.clone());
        let entry = match by_id.iter_mut().find(|(i, _)| *i == id) {
            Some((_, fk)) => fk,
            None => {
                by_id.push((
                    id,
                    ForeignKey {
                        from_table: table.to_string(),
                        from_columns: Vec::new(),
                        to_table: parent,
                        to_columns: Vec::new(),
                    },
                ));
                &mut by_id.last_mut().expect("just pushed").1
            }
        };
        entry.from_columns.push(from);
        entry.to_columns.push(to.unwrap_or_default());
    }
    drop(rows);
    let mut keys: Vec<ForeignKey> = by_id.into_iter().map(|(_, fk)| fk).collect();
    for fk in &mut keys {
        if fk.to_columns.iter().any(String::is_empty) {
            let pk = primary_key(conn, &fk.to_table)?;
            if pk.len() == fk.from_columns.len() {
                fk.to_columns = pk;
            } else {
                // No declared primary key to point at: SQLite would use rowid.
                fk.to_columns = vec!["rowid".to_string(); fk.from_columns.len()];
            }
        }
    }
    Ok(keys)
}

fn primary_key(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut cols: Vec<Column> = columns(conn, table)?.into_iter().filter(|c| c.pk > 0).collect();
    cols.sort_by_key(|c| c.pk);
    Ok(cols.into_iter().map(|c| c.name).collect())
}

/// Every foreign key in the database, table by table in schema order.
pub(crate) fn all_keys(conn: &Connection, rels: &[Relation]) -> rusqlite::Result<Vec<ForeignKey>> {
    let mut keys = Vec::new();
    for rel in rels.iter().filter(|r| !r.is_view) {
        keys.extend(outgoing_keys(conn, rels, &rel.name)?);
    }
    Ok(keys)
}

/// Shortest path from `from` to `to` along foreign keys followed in either direction
/// (breadth-first; ties broken by schema order, so the answer is deterministic). Returns the
/// tables visited and the key used for each step, or `None` when no path exists.
pub(crate) fn shortest_path<'k>(
    keys: &'k [ForeignKey],
    from: &str,
    to: &str,
) -> Option<(Vec<String>, Vec<&'k ForeignKey>)> {
    let mut prev: HashMap<&str, (&str, &'k ForeignKey)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = vec![from];
    while let Some(t) = queue.pop_front() {
        if t == to {
            break;
        }
        for fk in keys {
            let next = if fk.from_table == t {
                fk.to_table.as_str()
            } else if fk.to_table == t {
                fk.from_table.as_str()
            } else {
                continue;
            };
            if !seen.contains(&next) {
                seen.push(next);
                prev.insert(next, (t, fk));
                queue.push_back(next);
            }
        }
    }
    if from != to && !prev.contains_key(to) {
        return None;
    }
    let mut tables = vec![to.to_string()];
    let mut steps = Vec::new();
    let mut cur = to;
    while cur != from {
        let (p, fk) = prev[cur];
        steps.push(fk);
        tables.push(p.to_string());
        cur = p;
    }
    tables.reverse();
    steps.reverse();
    Some((tables, steps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fk(from: &str, to: &str) -> ForeignKey {
        ForeignKey {
            from_table: from.into(),
            from_columns: vec![format!("{to}_id")],
            to_table: to.into(),
            to_columns: vec!["id".into()],
        }
    }

    #[test]
    fn shortest_path_walks_keys_both_ways() {
        let keys = vec![fk("shipments", "suppliers"), fk("order_items", "shipments"), fk("order_items", "orders")];
        let (tables, steps) = shortest_path(&keys, "suppliers", "orders").unwrap();
        assert_eq!(tables, ["suppliers", "shipments", "order_items", "orders"]);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0].join_condition(), "shipments.suppliers_id = suppliers.id");
        assert!(shortest_path(&keys, "suppliers", "nowhere").is_none());
        let (same, none) = shortest_path(&keys, "orders", "orders").unwrap();
        assert_eq!(same, ["orders"]);
        assert!(none.is_empty());
    }

    #[test]
    fn resolve_ignores_case_and_quotes() {
        let rels = vec![Relation { name: "Order Items".into(), is_view: false }];
        assert!(resolve(&rels, "\"order items\"").is_some());
        assert!(resolve(&rels, "[Order Items]").is_some());
        assert!(resolve(&rels, "orders").is_none());
    }
}
