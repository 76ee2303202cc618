//! The eight tools over the real demo database, as the model sees them.

mod common;

use serde_json::json;
use sqale::env::Environment;

fn env() -> Environment {
    Environment::open(common::demo_db()).expect("open demo db")
}

#[test]
fn list_and_describe_show_tables_keys_and_counts() {
    let mut e = env();
    let r = e.call("list_tables", &json!({}));
    assert!(r.ok);
    assert!(r.result.starts_with("10 tables: suppliers, categories, products"), "{}", r.result);
    assert!(r.result.contains("1 views: order_totals"));

    let r = e.call("describe_table", &json!({"table_name": "Shipment_Items"}));
    assert!(r.ok, "{}", r.result);
    assert!(r.result.starts_with("table shipment_items (360 rows)"), "{}", r.result);
    assert!(r.result.contains("primary key: (shipment_id, product_id)"), "{}", r.result);
    assert!(r.result.contains("shipment_id INTEGER NOT NULL → shipments.shipment_id"), "{}", r.result);

    // `REFERENCES categories` without a column resolves to the parent's primary key.
    let r = e.call("describe_table", &json!({"table_name": "products"}));
    assert!(r.result.contains("category_id INTEGER NOT NULL → categories.category_id"), "{}", r.result);
}

#[test]
fn foreign_keys_and_join_paths_follow_declared_keys_both_ways() {
    let mut e = env();
    let r = e.call("foreign_keys", &json!({"table_name": "shipments"}));
    assert!(r.result.contains("shipments.supplier_id → suppliers.supplier_id"), "{}", r.result);
    assert!(r.result.contains("order_items.shipment_id → shipments.shipment_id"), "{}", r.result);

    let r = e.call("join_path", &json!({"table_a": "customers", "table_b": "suppliers"}));
    assert!(r.ok);
    let first = r.result.lines().next().unwrap();
    // No table touches both orders and suppliers: the shortest path has four joins.
    assert_eq!(first.matches(" → ").count(), 4, "{}", r.result);
    assert!(first.starts_with("customers → orders → ") && first.ends_with(" → suppliers"), "{}", r.result);
    assert_eq!(r.result.lines().count(), 2 + 4);
    assert!(r.result.contains("orders.customer_id = customers.customer_id"));

    let r = e.call("join_path", &json!({"table_a": "orders", "table_b": "orders"}));
    assert_eq!(r.result, "orders (same table)");
}

#[test]
fn samples_and_distinct_values_are_bounded_and_quoted() {
    let mut e = env();
    let r = e.call("sample_rows", &json!({"table_name": "customers", "limit": 500}));
    assert!(r.ok);
    assert!(r.result.contains("[limit capped at 20]"), "{}", r.result);
    assert!(r.result.contains("[20 rows]"));

    let r = e.call("distinct_values", &json!({"table_name": "suppliers", "column_name": "name", "limit": "3"}));
    assert!(r.ok, "{}", r.result);
    assert!(r.result.starts_with("distinct values of suppliers.name (3 of 12)"), "{}", r.result);
    assert_eq!(r.result.lines().count(), 4);
    let r = e.call("distinct_values", &json!({"table_name": "suppliers", "column_name": "NAME"}));
    assert!(r.result.starts_with("distinct values of suppliers.name (12 of 12)"), "{}", r.result);
    assert!(r.result.contains("'O''Brien Logistics'"), "{}", r.result);
}

#[test]
fn execute_and_check_run_queries_whole() {
    let mut e = env();
    let rows = e
        .execute("SELECT COUNT(*) AS n FROM (SELECT customer_id FROM orders WHERE order_date >= '2024-01-01' AND order_date < '2025-01-01' GROUP BY customer_id HAVING COUNT(*) > 3)")
        .unwrap();
    assert_eq!(rows.columns, ["n"]);
    assert_eq!(rows.rows, vec![vec![rusqlite::types::Value::Integer(7)]]);
    assert_eq!(e.check("SELECT * FROM order_items").unwrap(), 677);
    assert!(e.check("SELECT * FROM nope").unwrap_err().to_string().contains("no such table"));
    assert!(e.check("DELETE FROM orders").is_err());
}

#[test]
fn opened_tables_and_tables_read() {
    let mut e = env();
    e.call("list_tables", &json!({}));
    assert!(e.opened_tables().is_empty(), "listing opens nothing");
    e.call("describe_table", &json!({"table_name": "ORDERS"}));
    e.call("join_path", &json!({"table_a": "suppliers", "table_b": "order_items"}));
    e.call("describe_table", &json!({"table_name": "nope"}));
    assert!(e.call("run_query", &json!({"sql": "SELECT customer_id FROM customers LIMIT 1"})).ok);
    e.call("run_query", &json!({"sql": "SELECT * FROM warehouses WHERE nope = 1"}));
    assert_eq!(e.opened_tables(), ["customers", "order_items", "orders", "suppliers"]);
    // A view's base tables count as read.
    let mut t = e.tables_read("SELECT SUM(total_amount) FROM order_totals").unwrap();
    t.sort();
    assert!(t.contains(&"orders".to_string()) && t.contains(&"order_items".to_string()), "{t:?}");
    // A table read for no column (count(*)) is read all the same.
    assert_eq!(e.tables_read("SELECT COUNT(*) FROM employees").unwrap(), ["employees"]);
    assert!(e.call("run_query", &json!({"sql": "SELECT count(*) FROM shipments"})).ok);
    assert!(e.opened_tables().contains(&"shipments".to_string()));
}
