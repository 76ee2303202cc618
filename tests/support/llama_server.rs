//! A real llama.cpp HTTP server for the tests (`tests/support/llama_server.py`: llama.cpp's
//! own server code from the PyPI wheel `xllamacpp`, which `.ci/fetch-models` installs into
//! models/.venv), on 127.0.0.1.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A llama.cpp server process, killed when dropped.
pub struct LlamaServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python() -> PathBuf {
    let p = std::env::var_os("SQALE_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models/.venv/bin/python"));
    let ok =
        Command::new(&p).args(["-c", "import xllamacpp"]).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    assert!(
        ok,
        "{} has no xllamacpp (the llama.cpp server the tests run): run `bash .ci/fetch-models` first",
        p.display()
    );
    p
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl LlamaServer {
    /// Serves `model` with `slots` slots sharing `ctx` tokens, on a free port of 127.0.0.1.
    pub fn start(model: &Path, slots: u32, ctx: u32, key: Option<&str>) -> Self {
        LlamaServer::start_on(free_port(), model, slots, ctx, key)
    }

    /// [`LlamaServer::start`] on `port` (e.g. the port of one that was killed).
    pub fn start_on(port: u16, model: &Path, slots: u32, ctx: u32, key: Option<&str>) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/llama_server.py");
        let mut cmd = Command::new(python());
        cmd.arg(script).arg(model).args([port.to_string(), slots.to_string(), ctx.to_string()]);
        if let Some(k) = key {
            cmd.arg(k);
        }
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start the llama.cpp server");
        let url = format!("http://127.0.0.1:{port}");
        let server = LlamaServer { child, url };
        let until = Instant::now() + Duration::from_secs(120);
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(2)).build();
        loop {
            match agent.get(&format!("{}/health", server.url)).call() {
                Ok(_) | Err(ureq::Error::Status(401, _)) => return server,
                _ if Instant::now() > until => panic!("the llama.cpp server on {} did not come up", server.url),
                _ => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }
}

impl LlamaServer {
    /// Its port.
    pub fn port(&self) -> u16 {
        self.url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port in the URL")
    }

    /// Kills it (SIGKILL: connections under way are cut) and waits until it is gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
