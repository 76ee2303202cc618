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
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", cli::error_text(&e));
            ExitCode::from(2)
        }
    }
}
