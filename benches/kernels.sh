#!/usr/bin/env bash
# Where a difference from llama-bench comes from: llama-bench builds that differ in one set of CPU
# kernels at a time, and sqale, alternated round by round on the same file, depth and threads.
# Prints a Markdown table of pp256 and tg64 (tokens/s), one value per round.
#
#   [DEPTH=0] [ROUNDS=2] [THREADS=2] [TG=64] benches/kernels.sh MODEL.gguf LABEL=LLAMA_BIN_DIR [LABEL=LLAMA_BIN_DIR ...]
#
# Each LLAMA_BIN_DIR holds a llama-bench from scripts/build-llama-tools (DIR/bin); its CMake options
# make the label, e.g.
#   avx512=models/llama.cpp/bin                  (the script's defaults: AVX-512, llamafile, repacking)
#   avx2=models/llama.cpp-avx2/bin               (LLAMA_CMAKE_ARGS="-DGGML_AVX512=OFF")
#   sqale-kernels=models/llama.cpp-kernels/bin   ("-DGGML_AVX512=OFF -DGGML_LLAMAFILE=OFF -DGGML_CPU_REPACK=OFF")
# Every build runs with flash attention off (as sqale on the CPU) and with `--repack 1` and
# `--repack 0` where it has repacked weights, and once more with flash attention auto (its
# default). sqale runs in its default configuration (prompt text on the fast kernels, generated
# tokens on the reference ones), with SQALE_REPACK=0 and =1, and with an f32 KV cache. TG=0
# measures prefill only (deep in the context the filler takes most of the time). Run on an otherwise idle
# machine: the rounds alternate because this one's speed drifts from minute to minute.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,17p "$0"; exit 2; }
model=$1
shift
depth=${DEPTH:-0} rounds=${ROUNDS:-2} threads=${THREADS:-2} tg=${TG:-64}
for spec in "$@"; do
  dir=${spec#*=}
  [ -x "$dir/llama-bench" ] || { echo "no llama-bench in $dir: scripts/build-llama-tools ${dir%/bin} llama-bench" >&2; exit 2; }
done
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One row per configuration: its label, then "pp tg" per round.
configs=()
for spec in "$@"; do
  label=${spec%%=*} dir=${spec#*=}
  if grep -q "GGML_CPU_REPACK:BOOL=ON" "$dir/../build/CMakeCache.txt" 2>/dev/null; then
    configs+=("$label, repacking|$dir|-fa off --repack 1" "$label, no repacking|$dir|-fa off --repack 0")
  else
    configs+=("$label|$dir|-fa off")
  fi
  configs+=("$label, flash attention auto|$dir|")
done
# sqale in its default configuration, with no weights repacked (SQALE_REPACK=0), with every file's
# weights repacked (SQALE_REPACK=1), and with an f32 KV cache (the fields after the label:
# environment, then sqale's own flags).
configs+=("sqale||" "sqale, no repacking||SQALE_REPACK=0" "sqale, repacking every file||SQALE_REPACK=1"
  "sqale, f32 KV cache|||--kv-type f32")
for round in $(seq "$rounds"); do
  i=0
  for c in "${configs[@]}"; do
    IFS='|' read -r label dir flags extra <<<"$c"
    if [ -z "$dir" ]; then
      env $flags ./target/release/sqale bench -m "$model" --pp 256 --tg "$((tg > 0 ? tg : 1))" --depth "$depth" --reps 1 -t "$threads" $extra \
        --json >"$work/out.json" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(d["pp_tps_mean"],1), round(d["tg_tps_mean"],1) if int(sys.argv[2]) else "-")' \
        "$work/out.json" "$tg" >>"$work/row$i"
    else
      "$dir/llama-bench" -m "$model" -p 256 -n "$tg" -d "$depth" -r 1 -t "$threads" $flags -o json \
        >"$work/out.json" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
      python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
pp = next(r["avg_ts"] for r in rows if r["n_prompt"] > 0)
tg = next((r["avg_ts"] for r in rows if r["n_gen"] > 0), None)
print(round(pp, 1), "-" if tg is None else round(tg, 1))' "$work/out.json" >>"$work/row$i"
    fi
    echo "$label" >"$work/label$i"
    i=$((i + 1))
  done
done
echo "$(basename "$model"), depth $depth, $threads threads, rounds alternated: $rounds (tokens/s, one value per round):"
echo
echo "| configuration | pp256 | tg$tg |"
echo "|---|--:|--:|"
for j in $(seq 0 $((i - 1))); do
  python3 - "$(cat "$work/label$j")" "$work/row$j" <<'PY'
import sys
label, rows = sys.argv[1], [line.split() for line in open(sys.argv[2])]
print(f"| {label} | {' / '.join(r[0] for r in rows)} | {' / '.join(r[1] for r in rows)} |")
PY
done
