#!/usr/bin/env bash
# Times a newcomer's path from clone to the first episode: a fresh clone with an empty models/,
# a fresh CARGO_HOME (every crate downloaded), no ccache; then the README's run command, whose model
# (the stand-in) comes with the clone. The apt packages and Rust are assumed
# installed (their time depends on the mirror, not on sqale).
#
#   bash benches/clone-to-first-episode.sh [REPO] [WORKDIR]   (default: this clone, a temp dir)
set -uo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
work=${2:-$(mktemp -d)}
mkdir -p "$work/cargo-home"
export CARGO_HOME="$work/cargo-home" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CCACHE_DISABLE=1
export PATH="$HOME/.cargo/bin:$PATH"
unset CC CXX CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER
now() { date +%s.%N; }
t0=$(now)
git clone -q "$repo" "$work/sqale" && cd "$work/sqale" || exit 1
t1=$(now)
t2=$(now)
cargo run --release -- ask --model tests/fixtures/standin/standin-f16.gguf \
  "How many orders are there for each status?" > "$work/answer.txt" 2> "$work/ask.log"
rc=$?
t3=$(now)
tail -1 "$work/ask.log"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v rc="$rc" 'BEGIN {
  printf "clone %.1f s; (no fetch) %.1f s; cargo run (build + episode) %.1f s (exit %d); total %.1f s\n", b-a, c-b, d-c, rc, d-a }'
