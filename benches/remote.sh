#!/usr/bin/env bash
# The agent on inference servers against in-process, in one run: `sqale eval --parallel 1,4,8`
# in-process, through one llama.cpp server (8 slots, 2 threads) and through two (4 slots,
# 1 thread each), on the same 8 questions over the demo database; episodes per minute and
# generated tokens per second of wall-clock time (docs/remote.md).
#
#   benches/remote.sh WORKDIR [MODEL.gguf]
# The servers are llama.cpp's own (the PyPI wheel xllamacpp that `.ci/fetch-models` installs
# into models/.venv), on 127.0.0.1. MODEL defaults to the test model.
set -euo pipefail
work=${1:?workdir}
root=$(cd "$(dirname "$0")/.." && pwd)
model=${2:-$root/models/test/SmolLM2-135M-Instruct.Q4_1.gguf}
py=$root/models/.venv/bin/python
sqale=$work/sqale
mkdir -p "$work"
cp "$root/target/release/sqale" "$sqale"   # a copy: a rebuild during the run can't swap it
bench=$work/bench.jsonl
python3 - "$bench" "$root/data/demo.sqlite" <<'PY'
import json, sys
qs = ["How many customers are there?", "How many orders are there?", "How many products are there?",
      "How many suppliers are there?", "How many orders are back-ordered?", "Which supplier has the most products?",
      "How many customers placed an order in 2024?", "What is the most expensive product?"]
with open(sys.argv[1], "w") as f:
    for i, q in enumerate(qs):
        f.write(json.dumps({"id": f"q{i}", "db": sys.argv[2], "question": q, "gold_sql": "SELECT COUNT(*) FROM customers"}) + "\n")
PY
common=(--bench "$bench" --max-episode-tokens 1200 --seed 1 --json)
report() { # label, results folder
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[2] + "/summary.json"))
for e in d["runs"].values():
    r = e["last_run"]; s = r["seconds"]
    print(f"{sys.argv[1]:48s} {r['episodes']} episodes {s:7.1f} s {r['episodes'] * 60 / s:6.2f} episodes/min {r['generated_tokens'] / s:6.1f} gen tok/s")
PY
}
serve() { # port slots ctx threads
  SQALE_SERVER_THREADS=$4 "$py" "$root/tests/support/llama_server.py" "$model" "$1" "$2" "$3" >/dev/null 2>&1 &
  echo $!
  for _ in $(seq 120); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return; sleep 1; done
}
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for p in 1 4 8; do
  rm -rf "$work/local$p"
  "$sqale" eval --model "$model" --parallel $p -o "$work/local$p" "${common[@]}" >/dev/null 2>"$work/local$p.err"
  report "in-process --parallel $p" "$work/local$p"
done
p1=$(port); s1=$(serve "$p1" 8 16384 2 | head -1)
for p in 1 4 8; do
  rm -rf "$work/one$p"
  "$sqale" eval --server "127.0.0.1:$p1" --parallel $p -o "$work/one$p" "${common[@]}" >/dev/null 2>"$work/one$p.err"
  report "one llama-server (8 slots, 2 threads) --parallel $p" "$work/one$p"
done
kill "$s1"; wait "$s1" 2>/dev/null || true
p2=$(port); s2=$(serve "$p2" 4 8192 1 | head -1)
p3=$(port); s3=$(serve "$p3" 4 8192 1 | head -1)
for p in 1 4 8; do
  rm -rf "$work/two$p"
  "$sqale" eval --server "127.0.0.1:$p2" --server "127.0.0.1:$p3" --parallel $p -o "$work/two$p" "${common[@]}" >/dev/null 2>"$work/two$p.err"
  report "two llama-servers (4 slots, 1 thread each) --parallel $p" "$work/two$p"
done
kill "$s2" "$s3"; wait 2>/dev/null || true
