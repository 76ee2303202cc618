#!/usr/bin/env bash
# Prefill and decode at depth: `sqale bench --depth` (with its default f32 KV cache and with
# `--kv-type f16`) against llama.cpp's own llama-bench (`-d`) on the same file, llama-bench in its
# default configuration (flash attention auto, f16 KV cache, repacked weights) and with flash
# attention off, on the same threads, and the ratios: sqale's prefill against llama-bench's
# default, its decoding against the faster of the two.
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
  for kv in f32 f16; do
    ./target/release/sqale bench -m "$model" --pp 256 --tg 64 --depth "$depths" --reps "$reps" -t "$threads" \
      --kv-type "$kv" --json >"$work/sqale-$kv.json" 2>"$work/sqale.log" || { cat "$work/sqale.log" >&2; exit 1; }
  done
  "$bin/llama-bench" -m "$model" -p 256 -n 64 -d "$depths" -r "$reps" -t "$threads" -o json \
    >"$work/default.json" 2>"$work/llama.log" || { cat "$work/llama.log" >&2; exit 1; }
  "$bin/llama-bench" -m "$model" -p 256 -n 64 -d "$depths" -r "$reps" -t "$threads" -fa off -o json \
    >"$work/fa-off.json" 2>>"$work/llama.log" || { cat "$work/llama.log" >&2; exit 1; }
  python3 - "$model" "$work" <<'PY'
import json, os, sys
model, work = os.path.basename(sys.argv[1]), sys.argv[2]
def sqale(kv):
    s = json.load(open(f"{work}/sqale-{kv}.json"))
    rows = s.get("depths") or [s]
    return {r["depth"]: (r["pp_tps_mean"], r["tg_tps_mean"]) for r in rows}
def llama(name):
    out = {}
    for r in json.load(open(f"{work}/{name}.json")):
        out[("pp" if r["n_prompt"] > 0 else "tg", r["n_depth"])] = r["avg_ts"]
    return out
s32, s16, d, off = sqale("f32"), sqale("f16"), llama("default"), llama("fa-off")
print(model)
print("| depth | pp256 sqale f32 | f16 | llama-bench default | ratio f32 / f16 | tg64 sqale f32 | f16 | llama-bench default | -fa off | ratio to fastest f32 / f16 |")
print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for k in sorted(s32):
    (p32, t32), (p16, t16) = s32[k], s16[k]
    best = max(d[("tg", k)], off[("tg", k)])
    pd = d[("pp", k)]
    print(f"| {k} | {p32:.1f} | {p16:.1f} | {pd:.1f} | {p32 / pd:.2f}× / {p16 / pd:.2f}× | {t32:.1f} | {t16:.1f} | {d[('tg', k)]:.1f} | {off[('tg', k)]:.1f} | {t32 / best:.2f}× / {t16 / best:.2f}× |")
PY
done
