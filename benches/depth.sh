#!/usr/bin/env bash
# Prefill and decode at depth: `sqale bench --depth` against llama.cpp's own llama-bench (`-d`) on
# the same file, llama-bench in its default configuration (flash attention auto, f16 KV cache,
# repacked weights) and with flash attention off, on the same threads, and the ratios:
# sqale's prefill against llama-bench's default, its decoding against the faster of the two.
#
#   [DEPTHS=0,2048,8192] [REPS=2] [THREADS=2] benches/depth.sh LLAMA_BIN_DIR MODEL.gguf [MODEL.gguf ...]
#
# LLAMA_BIN_DIR holds llama-bench (scripts/build-llama-tools DIR llama-bench). pp256 and tg64
# as in the issue that asked for it; each depth's filler is decoded untimed before every
# repetition, by both tools. Run on an otherwise idle machine: both cores are measured.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,11p "$0"; exit 2; }
bin=$1
shift
depths=${DEPTHS:-0,2048,8192} reps=${REPS:-2} threads=${THREADS:-2}
[ -x "$bin/llama-bench" ] || { echo "no llama-bench in $bin: scripts/build-llama-tools $bin llama-bench" >&2; exit 2; }
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for model in "$@"; do
  ./target/release/sqale bench -m "$model" --pp 256 --tg 64 --depth "$depths" --reps "$reps" -t "$threads" --json \
    >"$work/sqale.json" 2>"$work/sqale.log" || { cat "$work/sqale.log" >&2; exit 1; }
  "$bin/llama-bench" -m "$model" -p 256 -n 64 -d "$depths" -r "$reps" -t "$threads" -o json \
    >"$work/default.json" 2>"$work/llama.log" || { cat "$work/llama.log" >&2; exit 1; }
  "$bin/llama-bench" -m "$model" -p 256 -n 64 -d "$depths" -r "$reps" -t "$threads" -fa off -o json \
    >"$work/fa-off.json" 2>>"$work/llama.log" || { cat "$work/llama.log" >&2; exit 1; }
  python3 - "$model" "$work" <<'PY'
import json, os, sys
model, work = os.path.basename(sys.argv[1]), sys.argv[2]
s = json.load(open(f"{work}/sqale.json"))
rows = s.get("depths") or [{"depth": s["depth"], "pp_tps_mean": s["pp_tps_mean"], "tg_tps_mean": s["tg_tps_mean"]}]
def llama(name):
    out = {}
    for r in json.load(open(f"{work}/{name}.json")):
        kind = "pp" if r["n_prompt"] > 0 else "tg"
        out[(kind, r["n_depth"])] = r["avg_ts"]
    return out
d, off = llama("default"), llama("fa-off")
print(f"{model}")
print(f"{'depth':>6} | {'pp256 sqale':>11} {'default':>8} {'ratio':>6} | {'tg64 sqale':>10} {'default':>8} {'fa off':>8} {'ratio to fastest':>16}")
for r in rows:
    k = r["depth"]
    pp, tg = r["pp_tps_mean"], r["tg_tps_mean"]
    best = max(d[("tg", k)], off[("tg", k)])
    print(f"{k:>6} | {pp:>11.1f} {d[('pp', k)]:>8.1f} {pp / d[('pp', k)]:>5.2f}x | {tg:>10.1f} {d[('tg', k)]:>8.1f} {off[('tg', k)]:>8.1f} {tg / best:>15.2f}x")
PY
done
