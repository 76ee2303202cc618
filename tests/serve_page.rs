//! The web page of `sqale serve` in a real browser: Debian's Chromium, headless, driven over
//! the DevTools protocol (a WebSocket on 127.0.0.1). It loads the page, asks a question on the
//! real SmolLM2 GGUF, waits for the SQL and the rows to appear, takes a screenshot, and finds no
//! console error. SmolLM2 is steered by `tests/fixtures/copy_prompt.py` into submitting the query
//! the question gives (it cannot follow the real protocol).

#[path = "support/chromium.rs"]
mod chromium;
mod common;
#[path = "support/serve_client.rs"]
mod serve_client;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chromium::chromium;
use serde_json::{json, Value};
use serve_client::{post, Server};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// Headless Chromium with its DevTools endpoint on 127.0.0.1, killed when dropped.
struct Browser {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    fn start() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1200,1400",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("DevTools listening on ws://127.0.0.1:").nth(1) {
                    let _ = tx.send(rest.split('/').next().unwrap_or_default().parse::<u16>().unwrap_or(0));
                }
            }
        });
        let port = rx.recv_timeout(Duration::from_secs(60)).expect("chromium's DevTools endpoint");
        Browser { child, port, _profile: profile }
    }

    /// A DevTools session on the browser's page.
    fn page(&self) -> Page {
        let (_, list) = serve_client::get(&format!("http://127.0.0.1:{}/json/list", self.port), None);
        let targets: Value = serde_json::from_str(&list).unwrap();
        let ws = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let (socket, _) = tungstenite::connect(ws).expect("DevTools WebSocket");
        if let MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        }
        Page { socket, next: 0, errors: Vec::new() }
    }
}

/// One page over the DevTools protocol; console errors and exceptions are collected.
struct Page {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    errors: Vec<String>,
}

impl Page {
    /// Sends `method` and returns its result, noting any error event that arrives meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let msg = json!({ "id": id, "method": method, "params": params }).to_string();
        self.socket.send(Message::Text(msg.into())).unwrap();
        loop {
            let m = self.socket.read().expect("DevTools message");
            let Ok(text) = m.into_text() else { continue };
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            if v["id"] == id {
                assert!(v["error"].is_null(), "{method}: {v}");
                return v["result"].clone();
            }
            self.note(&v);
        }
    }

    fn note(&mut self, v: &Value) {
        let p = &v["params"];
        match v["method"].as_str() {
            Some("Runtime.exceptionThrown") => self.errors.push(format!("exception: {}", p["exceptionDetails"])),
            Some("Runtime.consoleAPICalled") if p["type"] == "error" => {
                self.errors.push(format!("console.error: {}", p["args"]))
            }
            Some("Log.entryAdded") if p["entry"]["level"] == "error" => {
                self.errors.push(format!("log: {}", p["entry"]))
            }
            _ => {}
        }
    }

    /// Evaluates `expr` in the page; returns its value.
    fn eval(&mut self, expr: &str) -> Value {
        let r =
            self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }));
        assert!(r["exceptionDetails"].is_null(), "{expr}: {r}");
        r["result"]["value"].clone()
    }
}

/// Clicks Ask after setting `window.sawLive`: whether a turn was on the page while the episode
/// still ran, seen by the page itself at every change of the trace (polling alone misses it when
/// the episode ends within a poll).
fn ask_watching_live(page: &mut Page) {
    page.eval(
        "window.sawLive = false; new MutationObserver(() => { \
           if (document.querySelectorAll('.turn').length > 0 \
               && document.getElementById('status').textContent !== 'done') window.sawLive = true; \
         }).observe(document.getElementById('trace'), { childList: true, subtree: true, characterData: true }); true",
    );
    page.eval("document.getElementById('ask').click()");
}

/// A copy of the demo database in `dir`, and `sqale serve` over it with `args` before `--db`.
fn serve_demo(dir: &Path, args: &[&str]) -> (std::path::PathBuf, Server) {
    let demo = dir.join("demo.sqlite");
    std::fs::copy(common::demo_db(), &demo).unwrap();
    let db = format!("demo={}", demo.display());
    let all: Vec<&str> = args.iter().copied().chain(["--db", &db]).collect();
    let s = Server::start(Path::new(env!("CARGO_BIN_EXE_sqale")), &all);
    (demo, s)
}

#[test]
fn the_page_asks_and_shows_the_sql_and_rows_live() {
    let dir = tempfile::tempdir().unwrap();
    let model = common::test_model();
    let prompt = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copy_prompt.py");
    let args = ["--model", model.to_str().unwrap(), "--ctx", "2048", "--max-episode-tokens", "900"];
    let (_demo, s) = serve_demo(dir.path(), &[&args[..], &["--prompt-from", prompt]].concat());
    // The API's answer for this question and seed, to compare with what the page shows.
    let sql = "SELECT company_name, city FROM customers ORDER BY company_name LIMIT 5";
    let question = json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string();
    let seed = 2;
    let api =
        post(&format!("{}/v1/ask", s.url), &json!({"question": question, "db": "demo", "seed": seed}).to_string(), &[]);
    assert_eq!(api.status, 200, "{}", api.body);
    let api = api.json();
    assert_eq!(api["episode"]["sql"], sql, "{api}");
    let api_rows = api["rows"]["rows"].as_array().expect("its rows").len();
    assert_eq!(api_rows, 5);

    let browser = Browser::start();
    let mut page = browser.page();
    for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
        page.call(domain, json!({}));
    }
    let encoded: String = question.bytes().map(|b| format!("%{b:02X}")).collect();
    let url = format!("{}/?db=demo&seed={seed}&q={encoded}", s.url);
    page.call("Page.navigate", json!({ "url": url }));
    let start = Instant::now();
    while page.eval("document.querySelectorAll('#db option').length").as_u64() != Some(1) {
        assert!(start.elapsed() < Duration::from_secs(30), "the databases never loaded");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(page.eval("document.getElementById('question').value"), question.as_str());
    ask_watching_live(&mut page);
    let mut seen_live = false;
    let state = loop {
        let v = page.eval(
            "JSON.stringify({status: document.getElementById('status').textContent, \
             error: document.getElementById('status').className, \
             sql: document.getElementById('sql').textContent, \
             rows: document.querySelectorAll('#rows-table tr').length, \
             turns: document.querySelectorAll('.turn').length, \
             thinking: Array.from(document.querySelectorAll('.thinking')).map(e => e.textContent.length).reduce((a, b) => a + b, 0), \
             calls: document.querySelectorAll('.call').length})",
        );
        let v: Value = serde_json::from_str(v.as_str().unwrap()).unwrap();
        if v["status"] == "done" || v["error"] == "error" {
            break v;
        }
        // The trace grows while the episode runs.
        seen_live |= v["turns"].as_u64() > Some(0);
        assert!(start.elapsed() < Duration::from_secs(600), "the episode never finished on the page: {v}");
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(state["status"], "done", "{state}");
    seen_live |= page.eval("window.sawLive").as_bool() == Some(true);
    assert!(seen_live, "the page showed the episode while it ran");
    assert_eq!(state["sql"], sql, "the page shows the same answer as the API for the same seed");
    let first_cell = page.eval("document.querySelector('#rows-table tr:nth-child(2) td').textContent");
    assert_eq!(first_cell, api["rows"]["rows"][0][0], "the results table holds the answer's rows");
    assert_eq!(state["rows"].as_u64(), Some(api_rows as u64 + 1), "a header row and the answer's rows: {state}");
    assert!(state["calls"].as_u64() > Some(0), "{state}");

    let shot = page.call("Page.captureScreenshot", json!({ "format": "png" }));
    let png = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, shot["data"].as_str().unwrap())
        .expect("a base64 screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-page.png");
    std::fs::write(&out, &png).unwrap();
    eprintln!("screenshot: {} ({} bytes)", out.display(), png.len());
    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}

/// Sets the page's viewport to `width` px (a phone's when `mobile`), takes a full-page
/// screenshot into the test's temporary folder, and returns the page's scroll width.
fn screenshot(page: &mut Page, width: u32, mobile: bool, name: &str) -> u64 {
    page.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": width, "height": if mobile { 844 } else { 900 }, "deviceScaleFactor": 1, "mobile": mobile }),
    );
    let scroll = page.eval("document.documentElement.scrollWidth").as_u64().unwrap();
    let shot = page.call("Page.captureScreenshot", json!({ "format": "png", "captureBeyondViewport": true }));
    let png = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, shot["data"].as_str().unwrap())
        .expect("a base64 screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&out, &png).unwrap();
    eprintln!("screenshot at {width} px: {} ({} bytes)", out.display(), png.len());
    scroll
}

/// The README's question on the trained stand-in, in the browser: the answer (SQL, rows, a bar
/// chart) comes above the trace; the chart has a bar a row, labelled by the row; the CSV
/// download holds the rows; the question is in the session's history and shows its answer
/// again; the schema panel lists the tables and their columns; nothing overflows at 390 px.
#[test]
fn the_page_puts_the_answer_and_its_chart_first_with_csv_history_and_schema() {
    let dir = tempfile::tempdir().unwrap();
    let standin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf");
    let (demo, s) = serve_demo(dir.path(), &["--model", standin.to_str().unwrap(), "--ctx", "4096"]);
    let question = "How many orders are there for each status?";
    let browser = Browser::start();
    let mut page = browser.page();
    for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
        page.call(domain, json!({}));
    }
    let encoded: String = question.bytes().map(|b| format!("%{b:02X}")).collect();
    page.call("Page.navigate", json!({ "url": format!("{}/?db=demo&seed=1&q={encoded}", s.url) }));
    let start = Instant::now();
    while page.eval("document.querySelectorAll('#schema details').length").as_u64() == Some(0) {
        assert!(start.elapsed() < Duration::from_secs(30), "the schema never loaded");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The schema panel: every table and view of the demo, with its columns.
    let conn = rusqlite::Connection::open(&demo).unwrap();
    let relations: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let shown = page.eval("Array.from(document.querySelectorAll('#schema summary')).map(e => e.textContent)");
    assert_eq!(shown, json!(relations));
    let orders = page.eval(
        "Array.from(document.querySelectorAll('#schema details')).find(d => d.querySelector('summary').textContent === 'orders').querySelector('ul').textContent",
    );
    assert!(orders.as_str().unwrap().contains("status TEXT"), "{orders}");

    ask_watching_live(&mut page);
    loop {
        let st = page
            .eval("document.getElementById('status').textContent + '|' + document.getElementById('status').className");
        let st = st.as_str().unwrap().to_string();
        if st.starts_with("done|") || st.ends_with("|error") {
            assert!(st.starts_with("done|"), "{st}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(600), "the episode never finished on the page: {st}");
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(page.eval("window.sawLive"), true, "the trace was live while the episode ran");

    // The answer first: above the trace, which is collapsible.
    let order = page.eval(
        "(() => { const a = document.getElementById('answer').getBoundingClientRect(); \
           const t = document.getElementById('trace-box').getBoundingClientRect(); \
           return a.height > 0 && a.bottom <= t.top; })()",
    );
    assert_eq!(order, true, "the answer is above the trace");
    assert_eq!(page.eval("document.getElementById('trace-box').tagName"), "DETAILS");
    assert!(page.eval("document.querySelectorAll('#trace .turn').length").as_u64() > Some(0));

    // The rows are what SQLite gives for the SQL shown.
    let sql = page.eval("document.getElementById('sql').textContent").as_str().unwrap().to_string();
    let expected: Vec<(String, i64)> = conn
        .prepare(&sql)
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(expected.len(), 5, "a row a status: {sql}");
    let table = page.eval(
        "Array.from(document.querySelectorAll('#rows-table tr')).slice(1).map(tr => Array.from(tr.children).map(td => td.textContent))",
    );
    let want: Vec<Value> = expected.iter().map(|(l, n)| json!([l, n.to_string()])).collect();
    assert_eq!(table, json!(want));

    // The chart: a bar a row, labelled by the row's label, its value beside it.
    let bars = page.eval("document.querySelectorAll('#chart svg rect.bar').length");
    assert_eq!(bars.as_u64(), Some(expected.len() as u64));
    let labels = page.eval("Array.from(document.querySelectorAll('#chart svg text.label')).map(e => e.textContent)");
    assert_eq!(labels, json!(expected.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>()));
    let values = page.eval("Array.from(document.querySelectorAll('#chart svg text.value')).map(e => e.textContent)");
    assert_eq!(values, json!(expected.iter().map(|(_, n)| n.to_string()).collect::<Vec<_>>()));
    let widths = page.eval("Array.from(document.querySelectorAll('#chart svg rect.bar')).map(e => e.getBBox().width)");
    let widths: Vec<f64> = widths.as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).collect();
    for (i, j) in [(0, 1), (1, 2), (2, 3), (3, 4)] {
        assert_eq!(
            widths[i] >= widths[j],
            expected[i].1 >= expected[j].1,
            "bars are as long as their values: {widths:?} {expected:?}"
        );
    }

    // The CSV download holds the rows.
    let csv = page.eval("fetch(document.getElementById('download-csv').href).then(r => r.text())");
    let columns =
        page.eval("Array.from(document.querySelectorAll('#rows-table th')).map(e => e.textContent).join(',')");
    let mut want_csv = format!("{}\r\n", columns.as_str().unwrap());
    for (l, n) in &expected {
        want_csv.push_str(&format!("{l},{n}\r\n"));
    }
    assert_eq!(csv.as_str().unwrap(), want_csv);
    assert_eq!(page.eval("document.getElementById('download-csv').getAttribute('download')"), "answer.csv");

    // The history lists the question, and shows its answer again.
    let history = page.eval("Array.from(document.querySelectorAll('#history li')).map(e => e.textContent)");
    assert_eq!(history, json!([question]));
    page.eval(
        "document.getElementById('sql').textContent = ''; document.getElementById('chart').textContent = ''; \
         document.getElementById('trace').replaceChildren(); document.querySelector('#history button').click(); true",
    );
    assert_eq!(page.eval("document.getElementById('sql').textContent"), sql.as_str());
    assert_eq!(page.eval("document.querySelectorAll('#chart svg rect.bar').length").as_u64(), Some(5));
    assert!(page.eval("document.querySelectorAll('#trace .turn').length").as_u64() > Some(0));

    let wide = screenshot(&mut page, 1280, false, "serve-page-1280.png");
    assert!(wide <= 1280, "no sideways scrolling at 1280 px: {wide}");
    let narrow = screenshot(&mut page, 390, true, "serve-page-390.png");
    assert!(narrow <= 390, "no sideways scrolling at 390 px: {narrow}");
    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}
