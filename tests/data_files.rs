//! Data files as databases (`--db orders.csv`, `.tsv`, `.jsonl`, `.parquet`, `.xlsx`, a folder of them),
//! end to end through the `sqale` binary: the trained stand-in answers the README's question
//! over a CSV of the demo database's `orders`, with the demo's rows; the import is cached by
//! content; the file is never changed; hostile files get a clear error and leave nothing
//! behind; and `ask` draws a text bar chart under the table on a terminal (not with
//! `--no-chart`, not into a pipe).

mod common;
#[path = "support/serve_client.rs"]
mod serve_client;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::ParquetColumn;
use serde_json::{json, Value};

const QUESTION: &str = "How many orders are there for each status?";

fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `sqale` with its cache in `cache`.
fn sqale(cache: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqale"));
    c.env("XDG_CACHE_HOME", cache).env("NO_COLOR", "1");
    c
}

/// `sqale tools --json --db db call` with its cache in `cache`.
fn tools(cache: &Path, db: &Path, call: Value) -> Output {
    sqale(cache).arg("tools").arg("--json").arg("--db").arg(db).arg(call.to_string()).output().unwrap()
}

fn run_query(sql: &str) -> Value {
    json!({"tool": "run_query", "args": {"sql": sql}})
}

/// The tool result's text of a successful call.
fn result(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    v["result"].as_str().unwrap().to_string()
}

/// The demo database's `orders` table as CSV, written by the `csv` crate (reals in Rust's
/// shortest round-trip form; NULL as an empty field).
fn orders_csv(path: &Path) {
    let conn = rusqlite::Connection::open(common::demo_db()).unwrap();
    let mut stmt = conn.prepare("SELECT * FROM orders ORDER BY order_id").unwrap();
    let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(&names).unwrap();
    let mut rows = stmt.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let fields: Vec<String> = (0..names.len())
            .map(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Null => String::new(),
                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                rusqlite::types::ValueRef::Real(v) => v.to_string(),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8(t.to_vec()).unwrap(),
                rusqlite::types::ValueRef::Blob(_) => panic!("no blobs in orders"),
            })
            .collect();
        w.write_record(&fields).unwrap();
    }
    w.flush().unwrap();
}

/// The `.sqlite` files (and anything else) in the import cache.
fn imports(cache: &Path) -> Vec<String> {
    let dir = cache.join("sqale/imports");
    if !dir.exists() {
        return Vec::new();
    }
    common::dir_listing(&dir)
}

/// The stand-in answers the README's question over `orders.csv` as over the demo database: the
/// same rows, the CSV byte for byte as before, and the import done once.
#[test]
fn the_standin_answers_over_a_csv_with_the_demo_rows_and_the_file_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (cache, csv) = (dir.path().join("cache"), dir.path().join("orders.csv"));
    orders_csv(&csv);
    let before = std::fs::read(&csv).unwrap();

    let out = sqale(&cache)
        .args(["ask", "--model"])
        .arg(standin())
        .arg("--db")
        .arg(&csv)
        .args(["--seed", "1", "--ctx", "4096", "--format", "json", QUESTION])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sql = answer["episode"]["sql"].as_str().expect("an answer").to_string();
    assert_eq!(answer["episode"]["ended_by"], "submit_sql", "{answer}");
    // The rows it answered with are what SQLite gives for that SQL on the demo database.
    let demo = rusqlite::Connection::open(common::demo_db()).unwrap();
    let mut stmt = demo.prepare(&sql).unwrap();
    let expected: Vec<Value> = stmt
        .query_map([], |r| Ok(json!([r.get::<_, String>(0)?, r.get::<_, i64>(1)?])))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(answer["rows"]["rows"], Value::Array(expected.clone()), "{answer}");
    assert_eq!(expected.len(), 5, "one row a status: {expected:?}");
    // The answer carries its chart: a bar a status.
    let chart = answer["chart"].as_str().expect("a chart");
    assert_eq!(chart.matches("<rect class=\"bar\"").count(), 5, "{chart}");

    // Every row of the table is the demo's, value for value (read through the environment, as
    // the agent's tools read it; this test alone sets the process's cache folder).
    std::env::set_var("XDG_CACHE_HOME", &cache);
    let all = "SELECT * FROM orders ORDER BY order_id";
    let over_csv = sqale::env::Environment::open(&csv).unwrap().execute(all).unwrap();
    let over_demo = sqale::env::Environment::open(common::demo_db()).unwrap().execute(all).unwrap();
    assert_eq!(over_csv.rows.len(), 250);
    assert_eq!(over_csv, over_demo);
    let first = result(&tools(&cache, &csv, run_query(&format!("{all} LIMIT 5"))));
    assert_eq!(first, result(&tools(&cache, &common::demo_db(), run_query(&format!("{all} LIMIT 5")))));

    // Imported once: one database in the cache, not written again by later questions.
    let made = imports(&cache);
    assert_eq!(made.len(), 1, "{made:?}");
    let db = cache.join("sqale/imports").join(&made[0]);
    let modified = std::fs::metadata(&db).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    result(&tools(&cache, &csv, json!({"tool": "list_tables"})));
    assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), modified, "imported again");
    assert_eq!(imports(&cache), made);
    assert_eq!(std::fs::read(&csv).unwrap(), before, "the CSV file changed");

    // A changed file is imported afresh.
    std::fs::write(&csv, "status,n\nnew,1\n").unwrap();
    assert!(result(&tools(&cache, &csv, run_query("SELECT * FROM orders"))).contains("new | 1"));
    assert_eq!(imports(&cache).len(), 2);
}

/// `sqale serve --db orders=orders.csv`: the data file served by name, its columns listed, the
/// stand-in's answer over it the demo's rows with a chart, and the file unchanged.
#[test]
fn serve_answers_over_a_data_file_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("orders.csv");
    orders_csv(&csv);
    let before = std::fs::read(&csv).unwrap();
    let s = serve_client::Server::start_with_env(
        Path::new(env!("CARGO_BIN_EXE_sqale")),
        &["--model", standin().to_str().unwrap(), "--ctx", "4096", "--db", &format!("orders={}", csv.display())],
        &[("XDG_CACHE_HOME", dir.path().join("cache").to_str().unwrap())],
    );
    let (status, body) = serve_client::get(&format!("{}/v1/databases", s.url), None);
    assert_eq!(status, 200, "{body}");
    let dbs: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(dbs["databases"][0]["tables"], json!(["orders"]), "{body}");
    let columns = &dbs["databases"][0]["columns"][0]["columns"];
    assert!(columns.as_array().unwrap().contains(&json!({"name": "status", "type": "TEXT"})), "{body}");
    assert!(!body.contains(dir.path().to_str().unwrap()), "no path reaches a client: {body}");
    let reply = serve_client::post(
        &format!("{}/v1/ask", s.url),
        &json!({"question": QUESTION, "db": "orders", "seed": 1}).to_string(),
        &[],
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["db"], "orders");
    let statuses: Vec<&str> =
        answer["rows"]["rows"].as_array().unwrap().iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(statuses.len(), 5, "{answer}");
    assert_eq!(answer["chart"].as_str().unwrap().matches("<rect class=\"bar\"").count(), 5);
    assert_eq!(std::fs::read(&csv).unwrap(), before);
}

/// `sqale eval` over a manifest whose `db` is a CSV file: the stand-in's answer is scored
/// against the gold query run on the same imported table, and the file is unchanged.
#[test]
fn eval_scores_a_question_over_a_data_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("orders.csv");
    orders_csv(&csv);
    let before = std::fs::read(&csv).unwrap();
    let bench = dir.path().join("bench.jsonl");
    let line = json!({"id": "s1", "db": "orders.csv", "question": QUESTION,
                      "gold_sql": "SELECT status, COUNT(*) FROM orders GROUP BY status"});
    std::fs::write(&bench, format!("{line}\n")).unwrap();
    let out = sqale(&dir.path().join("cache"))
        .arg("eval")
        .arg("--bench")
        .arg(&bench)
        .arg("-m")
        .arg(standin())
        .args(["--seed", "1", "-o"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let episodes = std::fs::read_to_string(dir.path().join("results/episodes.jsonl")).unwrap();
    let record: Value = serde_json::from_str(episodes.lines().next().unwrap()).unwrap();
    assert_eq!(record["correct"], true, "{record}");
    assert_eq!(std::fs::read(&csv).unwrap(), before);
}

/// TSV, JSON Lines, Parquet and a folder of them: one table a file, types inferred, names kept.
#[test]
fn each_format_and_a_folder_become_tables_with_inferred_types() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("sales.tsv"), "region\tamount\tcode\nnorth\t12.5\t007\nsouth\t3\t010\n").unwrap();
    std::fs::write(
        data.join("events.jsonl"),
        "{\"day\": \"2024-01-01\", \"n\": 3, \"ok\": true}\n\n{\"day\": \"2024-01-02\", \"n\": 4, \"extra\": [1]}\n",
    )
    .unwrap();
    common::write_parquet(
        &data.join("people.parquet"),
        &[("name", ParquetColumn::Strings(vec![Some("ann".into()), None]))],
    );
    std::fs::write(data.join("README.md"), "not data").unwrap();
    let tables = result(&tools(&cache, &data, json!({"tool": "list_tables"})));
    for t in ["events", "people", "sales"] {
        assert!(tables.contains(t), "{tables}");
    }
    assert!(!tables.contains("README"), "{tables}");
    let sales = result(&tools(&cache, &data, json!({"tool": "describe_table", "args": {"table_name": "sales"}})));
    assert!(sales.contains("amount REAL") && sales.contains("code TEXT") && sales.contains("region TEXT"), "{sales}");
    let sum = result(&tools(&cache, &data, run_query("SELECT sum(amount), group_concat(code) FROM sales")));
    assert!(sum.contains("15.5 | 007,010"), "leading zeros stay text: {sum}");
    let events = result(&tools(&cache, &data, run_query("SELECT day, n, ok, extra FROM events ORDER BY day")));
    assert!(events.contains("2024-01-01 | 3 | 1 | NULL") && events.contains("2024-01-02 | 4 | NULL | [1]"), "{events}");
    let people = result(&tools(&cache, &data, run_query("SELECT count(*), count(name) FROM people")));
    assert!(people.contains("2 | 1"), "{people}");
    // A single file of each format works alone too.
    let one = result(&tools(&cache, &data.join("sales.tsv"), json!({"tool": "list_tables"})));
    assert!(one.contains("sales") && !one.contains("events"), "{one}");
}

/// An `.xlsx` workbook written part by part (the parts Excel writes that a reader needs): each
/// sheet a name and rows of cells, a cell `n:` a number, `d:` a date (an Excel serial number
/// with the built-in date format), `b:` a boolean, else inline text; `""` no cell.
fn write_xlsx(path: &Path, sheets: &[(&str, &[&[&str]])]) {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let mut part = |name: &str, body: &str| {
        zip.start_file(name, opts).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    };
    let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;
    let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let mut types = format!(
        r#"{xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>"#
    );
    let (mut list, mut rels) = (String::new(), String::new());
    for (i, (name, rows)) in sheets.iter().enumerate() {
        let n = i + 1;
        types += &format!(
            r#"<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"#
        );
        list += &format!(r#"<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>"#);
        rels += &format!(r#"<Relationship Id="rId{n}" Type="{rel}/worksheet" Target="worksheets/sheet{n}.xml"/>"#);
        let mut data = String::new();
        for (r, row) in rows.iter().enumerate() {
            data += &format!(r#"<row r="{}">"#, r + 1);
            for (c, cell) in row.iter().enumerate() {
                let at = format!("{}{}", (b'A' + c as u8) as char, r + 1);
                data += &match cell.split_once(':') {
                    _ if cell.is_empty() => String::new(),
                    Some(("n", v)) => format!(r#"<c r="{at}"><v>{v}</v></c>"#),
                    Some(("d", v)) => format!(r#"<c r="{at}" s="1"><v>{v}</v></c>"#),
                    Some(("b", v)) => format!(r#"<c r="{at}" t="b"><v>{v}</v></c>"#),
                    _ => format!(r#"<c r="{at}" t="inlineStr"><is><t>{cell}</t></is></c>"#),
                };
            }
            data += "</row>";
        }
        part(
            &format!("xl/worksheets/sheet{n}.xml"),
            &format!(r#"{xml}<worksheet xmlns="{main}"><sheetData>{data}</sheetData></worksheet>"#),
        );
    }
    rels += &format!(r#"<Relationship Id="rIdS" Type="{rel}/styles" Target="styles.xml"/>"#);
    part("[Content_Types].xml", &(types + "</Types>"));
    part(
        "_rels/.rels",
        &format!(
            r#"{xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
        ),
    );
    part(
        "xl/workbook.xml",
        &format!(r#"{xml}<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>{list}</sheets></workbook>"#),
    );
    part(
        "xl/_rels/workbook.xml.rels",
        &format!(
            r#"{xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>"#
        ),
    );
    part(
        "xl/styles.xml",
        &format!(
            r#"{xml}<styleSheet xmlns="{main}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>"#
        ),
    );
    zip.finish().unwrap();
}

/// A workbook's sheets become tables (named after the sheet alone, or after the file and the
/// sheet in a folder) with types inferred from the cells: whole numbers `INTEGER`, dates ISO
/// text, booleans 0 or 1; a blank sheet is left out; the file is never changed.
#[test]
fn a_workbooks_sheets_become_tables_with_inferred_types() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let book = data.join("shop.xlsx");
    write_xlsx(
        &book,
        &[
            (
                "Orders",
                &[
                    &["id", "customer", "total", "placed", "paid"],
                    &["n:1", "ann", "n:12.5", "d:45943", "b:1"],
                    &["n:2", "bob", "n:3", "d:45944.5", "b:0"],
                    &["n:3", "", "", "", ""],
                ],
            ),
            ("Blank", &[]),
            ("Stock", &[&["sku", "qty"], &["A-1", "n:4"], &["n:7", "n:5"]]),
        ],
    );
    let before = std::fs::read(&book).unwrap();
    let tables = result(&tools(&cache, &book, json!({"tool": "list_tables"})));
    assert!(tables.contains("Orders") && tables.contains("Stock"), "{tables}");
    assert!(!tables.contains("Blank") && !tables.contains("shop"), "{tables}");
    let orders = result(&tools(&cache, &book, json!({"tool": "describe_table", "args": {"table_name": "Orders"}})));
    for col in ["id INTEGER", "customer TEXT", "total REAL", "placed TEXT", "paid INTEGER"] {
        assert!(orders.contains(col), "{col} not in {orders}");
    }
    let rows =
        result(&tools(&cache, &book, run_query("SELECT id, customer, total, placed, paid FROM Orders ORDER BY id")));
    assert!(rows.contains("1 | ann | 12.5 | 2025-10-13 | 1"), "{rows}");
    assert!(rows.contains("2 | bob | 3.0 | 2025-10-14 12:00:00 | 0"), "{rows}");
    assert!(rows.contains("3 | NULL | NULL | NULL | NULL"), "{rows}");
    let stock = result(&tools(&cache, &book, json!({"tool": "describe_table", "args": {"table_name": "Stock"}})));
    assert!(stock.contains("sku TEXT") && stock.contains("qty INTEGER"), "{stock}");
    let sum = result(&tools(&cache, &book, run_query("SELECT count(*), sum(qty), group_concat(sku) FROM Stock")));
    assert!(sum.contains("2 | 9 | A-1,7"), "{sum}");
    assert_eq!(std::fs::read(&book).unwrap(), before, "the workbook changed");
    assert_eq!(imports(&cache).len(), 1, "{:?}", imports(&cache));
    // In a folder, beside a CSV, its tables are named after the file and the sheet.
    std::fs::write(data.join("notes.csv"), "a\n1\n").unwrap();
    let tables = result(&tools(&cache, &data, json!({"tool": "list_tables"})));
    for t in ["shop_Orders", "shop_Stock", "notes"] {
        assert!(tables.contains(t), "{t} not in {tables}");
    }
    let n = result(&tools(&cache, &data, run_query("SELECT count(*) FROM shop_Orders")));
    assert!(n.contains('3'), "{n}");
}

/// A `.xlsx` that is not a zip, a zip that is not a workbook, an encrypted workbook, a workbook
/// without a value, and sheets that would be the same table: each a clear error, nothing cached,
/// the file unchanged.
#[test]
fn hostile_workbooks_get_clear_errors_and_change_nothing() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    std::fs::write(d.join("text.xlsx"), "id,name\n1,ann\n").unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(d.join("archive.xlsx")).unwrap());
    zip.start_file("readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(b"not a workbook").unwrap();
    zip.finish().unwrap();
    // An encrypted workbook is an OLE compound file, not a zip.
    let mut ole = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    ole.resize(4096, 0);
    std::fs::write(d.join("locked.xlsx"), ole).unwrap();
    write_xlsx(&d.join("empty.xlsx"), &[("Sheet1", &[]), ("Sheet2", &[&["", ""]])]);
    let folder = d.join("clash");
    std::fs::create_dir(&folder).unwrap();
    write_xlsx(&folder.join("a.xlsx"), &[("b", &[&["x"], &["n:1"]])]);
    std::fs::write(folder.join("a_b.csv"), "x\n1\n").unwrap();
    write_xlsx(&d.join("sqlite.xlsx"), &[("sqlite_master", &[&["x"], &["n:1"]])]);

    let cases: &[(&str, &[&str])] = &[
        ("text.xlsx", &["not an .xlsx workbook (not a zip archive)", "give it the extension of its format"]),
        ("archive.xlsx", &["a zip archive but not an .xlsx workbook", "save it again as .xlsx"]),
        ("locked.xlsx", &["password-protected (encrypted)", "remove the password"]),
        ("empty.xlsx", &["no sheet with a value", "column names in its first row"]),
        ("clash", &["sheet \"b\" of", "would both be table \"a_b\"", "rename one of them"]),
        ("sqlite.xlsx", &["SQLite's own", "rename the sheet"]),
    ];
    for (name, says) in cases {
        let path = d.join(name);
        let before = path.is_file().then(|| std::fs::read(&path).unwrap());
        let out = tools(&cache, &path, json!({"tool": "list_tables"}));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(&format!("cannot import {}", path.display())), "{name}: {err}");
        for s in *says {
            assert!(err.contains(s), "{name}: {s:?} not in {err}");
        }
        if let Some(b) = before {
            assert_eq!(std::fs::read(&path).unwrap(), b, "{name} changed");
        }
        assert_eq!(imports(&cache), Vec::<String>::new(), "{name} left something in the cache");
    }
}

/// Column names holding quotes and SQL are kept as written and quoted wherever they are used.
#[test]
fn column_names_holding_quotes_or_sql_are_kept_and_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let csv = dir.path().join("t.csv");
    let body = "\"a\"\"b\",\"x); DROP TABLE t; --\",'c'\n1,2,3\n";
    std::fs::write(&csv, body).unwrap();
    let described = result(&tools(&cache, &csv, json!({"tool": "describe_table", "args": {"table_name": "t"}})));
    assert!(
        described.contains("a\"b INTEGER")
            && described.contains("x); DROP TABLE t; -- INTEGER")
            && described.contains("'c' INTEGER"),
        "{described}"
    );
    let row = result(&tools(&cache, &csv, run_query("SELECT \"a\"\"b\" + \"x); DROP TABLE t; --\" + \"'c'\" FROM t")));
    assert!(row.contains("6"), "{row}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), body);
}

/// Each hostile file: `sqale tools` exits 2 with a message naming the problem and the fix; the
/// file is unchanged and the cache holds no database, finished or half-written.
#[test]
fn hostile_files_get_clear_errors_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");

    // 2 GB of CSV, sparse: nothing is written.
    let huge = d.join("huge.csv");
    std::fs::File::create(&huge).unwrap().set_len(2 << 30).unwrap();
    std::fs::write(d.join("ragged.csv"), "a,b\n1,2\n3\n").unwrap();
    std::fs::write(d.join("latin1.csv"), b"name,n\ncaf\xe9,1\n").unwrap();
    std::fs::write(d.join("control.csv"), "ok,bad\x1b[2Jname\n1,2\n").unwrap();
    std::fs::write(d.join("notjson.jsonl"), "{\"a\": 1}\n[1, 2]\n").unwrap();
    std::fs::write(d.join("fake.parquet"), "a,b\n1,2\n").unwrap();
    common::write_parquet(&d.join("nested.parquet"), &[("tags", ParquetColumn::Lists(vec![vec!["x".into()]]))]);
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.csv")).unwrap();
    let fifo = d.join("pipe.csv");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());

    let cases: &[(&str, &[&str])] = &[
        ("huge.csv", &["2147483648 bytes of data", "at most 1073741824 bytes", "import a smaller file"]),
        ("ragged.csv", &["line 3 has 1 fields where the header has 2", "same number of fields"]),
        ("latin1.csv", &["line 2 is not UTF-8 text", "save the file as UTF-8"]),
        ("control.csv", &["column 2's name", "\\u{1b}[2Jname", "control characters", "rename it"]),
        ("notjson.jsonl", &["line 2 is not a JSON object"]),
        ("fake.parquet", &["it is not a Parquet file"]),
        ("nested.parquet", &["column \"tags\" is nested", "flatten it first"]),
        ("zero.csv", &["is a character device, not a regular file"]),
        ("pipe.csv", &["is a named pipe (FIFO), not a regular file"]),
    ];
    for (name, says) in cases {
        let path = d.join(name);
        let before = if path.is_file() && *name != "huge.csv" { Some(std::fs::read(&path).unwrap()) } else { None };
        let start = std::time::Instant::now();
        let out = tools(&cache, &path, json!({"tool": "list_tables"}));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "{name} took {:?}", start.elapsed());
        assert!(err.contains(&format!("cannot import {}", path.display())), "{name}: {err}");
        for s in *says {
            assert!(err.contains(s), "{name}: {s:?} not in {err}");
        }
        assert!(!err.contains('\x1b'), "{name}: {err:?}");
        if let Some(b) = before {
            assert_eq!(std::fs::read(&path).unwrap(), b, "{name} changed");
        }
        assert_eq!(imports(&cache), Vec::<String>::new(), "{name} left something in the cache");
    }
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), 2 << 30);
    // The device itself is no data file and no database.
    let out = tools(&cache, Path::new("/dev/zero"), json!({"tool": "list_tables"}));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is a character device"), "{}", text(&out.stderr));
}

#[cfg(unix)]
mod terminal {
    use super::*;
    use rexpect::session::spawn_command;

    /// What rexpect read (a char a byte) as the UTF-8 it was.
    fn utf8(s: &str) -> String {
        String::from_utf8(s.chars().map(|c| c as u32 as u8).collect()).unwrap()
    }

    /// `ask` with the stand-in on the README's question over `orders.csv`.
    fn ask(cache: &Path, csv: &Path, extra: &[&str]) -> Command {
        let mut c = sqale(cache);
        c.args(["ask", "--model"]).arg(standin()).arg("--db").arg(csv);
        c.args(["--seed", "1", "--ctx", "4096"]).args(extra).arg(QUESTION);
        c
    }

    /// On a terminal the table is followed by a text bar chart, a bar a status, the longest for
    /// the most orders; `--no-chart` and a pipe have none.
    #[test]
    fn ask_draws_text_bars_on_a_terminal_only() {
        let _g = common::one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let (cache, csv) = (dir.path().join("cache"), dir.path().join("orders.csv"));
        orders_csv(&csv);
        let mut p = spawn_command(ask(&cache, &csv, &[]), Some(300_000)).unwrap();
        let out = utf8(&p.exp_eof().unwrap());
        let lines: Vec<&str> = out.lines().collect();
        let title = lines.iter().position(|l| l.ends_with(" by status")).unwrap_or_else(|| panic!("no chart: {out}"));
        let table_end = lines.iter().position(|l| l.trim() == "5 rows").unwrap_or_else(|| panic!("the table: {out}"));
        assert!(table_end < title, "the chart is under the table: {out}");
        let bars = &lines[title + 1..title + 6];
        for status in ["delivered", "cancelled", "back-ordered", "pending", "shipped"] {
            assert_eq!(bars.iter().filter(|l| l.starts_with(status)).count(), 1, "{status}: {out}");
        }
        let delivered = bars.iter().find(|l| l.starts_with("delivered ")).unwrap();
        assert!(delivered.trim_end().ends_with(" 188"), "{delivered}");
        assert_eq!(delivered.matches('█').count(), 40, "the most orders, the longest bar: {delivered}");
        let shipped = bars.iter().find(|l| l.starts_with("shipped ")).unwrap();
        assert!(shipped.trim_end().ends_with(" 2") && !shipped.contains('█'), "{shipped}");

        let mut p = spawn_command(ask(&cache, &csv, &["--no-chart"]), Some(300_000)).unwrap();
        let out = utf8(&p.exp_eof().unwrap());
        assert!(out.contains("delivered") && !out.contains('█'), "{out}");

        let piped = ask(&cache, &csv, &[]).output().unwrap();
        let stdout = text(&piped.stdout);
        assert!(stdout.contains("delivered") && !stdout.contains('█'), "{stdout}");
    }
}
