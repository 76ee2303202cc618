//! The `sqale` command line: a thin layer over the `sqale` library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Before any thread starts: how llama.cpp's threads wait (see docs/backends.md, "A busy machine").
    sqale::engine::apply_thread_defaults();
    // Before anything else runs llama.cpp's kernels: a CPU without the build's SIMD features
    // would otherwise die with an illegal instruction.
    let missing = sqale::cpu::missing_features();
    if !missing.is_empty() {
        eprintln!(
            "error: this build of sqale uses CPU features this CPU lacks ({}). Rebuild for this machine: \
             RUSTFLAGS='-C target-cpu=x86-64' cargo build --release (see docs/backends.md).",
            missing.join(", ")
        );
        return ExitCode::from(2);
    }
    let args = cli::Cli::parse();
    let done = cli::run(args);
    if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        // A signal's handler is removing the temporary files (which may be why the command
        // failed) and exits with the signal's status: wait for it.
        loop {
            std::thread::park();
        }
    }
    match done {
        Ok(code) => code,
        Err(e) => {
            // Errors carry names from archives, databases and files: nothing in them may steer
            // the terminal (an entry name ending in `ESC [2K CR` would rewrite this line).
            eprintln!("error: {}", sqale::printable::escape_controls(&cli::error_text(&e)));
            ExitCode::from(2)
        }
    }
}

/// Set when a signal's handler has begun to stop the process.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// On SIGINT or SIGTERM, removes this process's temporary files and staging folders
/// ([`sqale::atomic::remove_pending`]) and exits with 130 or 143, as a shell reports those
/// signals. For the commands that write files and have no signal handling of their own; the
/// handlers are in place when this returns.
#[cfg(unix)]
pub(crate) fn remove_temporaries_on_signals() {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
    let streams = {
        let _inside = runtime.enter();
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    };
    let (Ok(mut interrupt), Ok(mut terminate)) = streams else { return };
    let watch = move || {
        let code = runtime.block_on(async {
            tokio::select! {
                _ = interrupt.recv() => 130,
                _ = terminate.recv() => 143,
            }
        });
        STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
        let removed = sqale::atomic::remove_pending();
        eprintln!("sqale: stopped by a signal; {removed} temporary file(s) or folder(s) removed");
        std::process::exit(code);
    };
    let _ = std::thread::Builder::new().name("sqale-signals".into()).spawn(watch);
}

/// No signal handling where there are no Unix signals.
#[cfg(not(unix))]
pub(crate) fn remove_temporaries_on_signals() {}
