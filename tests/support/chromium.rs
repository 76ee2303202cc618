//! Debian's headless Chromium for the tests that look at a page: where it is, and one run of it
//! on a file.

// Each test binary that includes this uses part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The Chromium binary (`apt-get install chromium`).
pub fn chromium() -> &'static str {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("headless Chromium is needed: apt-get install chromium")
}

/// Runs headless Chromium on `page` with `extra` arguments (a fresh profile, no network);
/// returns stdout, failing on page errors.
pub fn run_chromium(page: &Path, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,1600",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "chromium failed: {log}");
    assert!(!log.contains("Uncaught") && !log.contains("CONSOLE("), "page errors: {log}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}
