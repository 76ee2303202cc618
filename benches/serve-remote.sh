#!/usr/bin/env bash
# `sqale serve` in-process and on inference servers, in one run: the bounded load of
# examples/serve_load.rs at `--parallel 1,4,8` against the model in-process, one llama.cpp
# server (8 slots, 2 threads) and two (4 slots, 1 thread each); episodes per minute, p50/p95
# latency, and each server's share of prompt tokens taken from its cache (docs/service.md).
#
#   benches/serve-remote.sh [MODEL.gguf] [CLIENTS] [BUDGET]
# The servers are llama.cpp's own (the PyPI wheel xllamacpp that `.ci/fetch-models` installs
# into models/.venv), on 127.0.0.1. MODEL defaults to the test model; CLIENTS (default 8) ask
# one question each at every N; BUDGET (default 900) tokens an episode.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
model=${1:-$root/models/test/SmolLM2-135M-Instruct.Q4_1.gguf}
clients=${2:-8}
budget=${3:-900}
py=$root/models/.venv/bin/python
cd "$root"
cargo build --release --example serve_load >/dev/null
load=(target/release/examples/serve_load "$model" --parallel 1,4,8 --clients "$clients" --budget "$budget")
serve() { # port slots ctx threads
  SQALE_SERVER_THREADS=$4 "$py" "$root/tests/support/llama_server.py" "$model" "$1" "$2" "$3" >/dev/null 2>&1 &
  echo $!
  for _ in $(seq 120); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return; sleep 1; done
}
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
echo "## in-process (2 threads)"
"${load[@]}"
p1=$(port); s1=$(serve "$p1" 8 16384 2 | head -1)
echo "## one llama-server (8 slots, 2 threads)"
"${load[@]}" --server "http://127.0.0.1:$p1"
kill "$s1"; wait "$s1" 2>/dev/null || true
p2=$(port); s2=$(serve "$p2" 4 8192 1 | head -1)
p3=$(port); s3=$(serve "$p3" 4 8192 1 | head -1)
echo "## two llama-servers (4 slots, 1 thread each)"
"${load[@]}" --server "http://127.0.0.1:$p2" --server "http://127.0.0.1:$p3"
kill "$s2" "$s3"; wait 2>/dev/null || true
