#!/usr/bin/env bash
# What running the environment's statements on an abandonable worker thread costs ordinary calls:
# the demo database's tool calls and benches/eval-fixture.jsonl's gold queries (as run_query, and
# as scoring's `execute`), each timed on the caller's thread (`Limits { isolate: false }`, the
# behaviour before the worker) and on the worker, interleaved in one process. Prints a Markdown
# table of medians (docs/environment.md, "Every call is bounded"). GAP_US of idle time before each
# call (not timed) stands for the model writing its next call, so the worker is asleep when the
# call comes, as in an episode; 0 times calls back to back, as scoring runs them.
#   bash benches/env-overhead.sh [ROUNDS=300] [GAP_US=1000]
set -euo pipefail
cd "$(dirname "$0")/.."
SQALE_BENCH_ROUNDS=${1:-300} SQALE_BENCH_GAP_US=${2:-1000} cargo test --release --test hostile_env -- --ignored --nocapture --exact \
  bench_worker_overhead_on_ordinary_calls 2>/dev/null | sed -n '/^| call/,/medians; per call/p'
