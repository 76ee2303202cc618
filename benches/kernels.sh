#!/usr/bin/env bash
# sqale against llama-bench on one file and depth: llama-bench builds that differ in one set of CPU
# kernels at a time, and sqale in several configurations, alternated round by round on the same
# file, depth and threads. Prints a Markdown table of pp256 and tgN (tokens/s): every round's value,
# the median over rounds, and the median against llama-bench's fastest configuration (the one with
# the highest median, separately for prefill and decoding).
#
#   [DEPTH=0] [ROUNDS=2] [REPS=1] [THREADS=2] [TG=64] [SQALE="default off no-repack repack-all f32"] \
#     [LLAMA="repack no-repack fa-auto"]
#     [SQALE_BUILDS="LABEL=SQALE_BINARY ..."] benches/kernels.sh MODEL.gguf LABEL=LLAMA_BIN_DIR [...]
#
# Each LLAMA_BIN_DIR holds a llama-bench from scripts/build-llama-tools (DIR/bin); its CMake options
# make the label, e.g.
#   avx512=models/llama.cpp/bin                  (the script's defaults: AVX-512, llamafile, repacking)
#   avx2=models/llama.cpp-avx2/bin               (LLAMA_CMAKE_ARGS="-DGGML_AVX512=OFF")
#   sqale-kernels=models/llama.cpp-kernels/bin   ("-DGGML_AVX512=OFF -DGGML_LLAMAFILE=OFF -DGGML_CPU_REPACK=OFF")
# Every build runs with flash attention off and with `--repack 1` and
# `--repack 0` where it has repacked weights, and once more with flash attention auto (its
# default); LLAMA picks among these three (`repack`, `no-repack`, `fa-auto`). SQALE picks sqale's
# configurations: `default` (prompt text on the fast kernels, generated tokens on the reference
# ones, `--speculate auto`), `off` (`--speculate off`: no drafter's state kept beside the
# model's), `no-repack` (SQALE_REPACK=0), `repack-all` (SQALE_REPACK=1) and `f32` (an f32 KV
# cache). SQALE_BUILDS adds other sqale binaries in their default configuration and with
# `--speculate off`, e.g. one built for this CPU's AVX-512 VNNI:
#   RUSTFLAGS="-C target-cpu=x86-64-v4 -C target-feature=+avx512vnni,+avx512bf16,+avx512vbmi,+avxvnni" \
#     CARGO_TARGET_DIR=target-v4 cargo build --release     (docs/backends.md)
#   SQALE_BUILDS="x86-64-v4=target-v4/release/sqale". REPS repetitions per configuration and round
# (their mean is the round's value). TG=0 measures prefill only (deep in the context the filler
# takes most of the time). Run on an otherwise idle machine: the rounds alternate because this
# one's speed drifts from minute to minute.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,30p "$0"; exit 2; }
model=$1
shift
depth=${DEPTH:-0} rounds=${ROUNDS:-2} reps=${REPS:-1} threads=${THREADS:-2} tg=${TG:-64}
sqale_sets=${SQALE:-default off no-repack repack-all f32}
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
  # A build without repacked weights runs `-fa off` once, as its `no-repack` row.
  repacks=no
  grep -q "GGML_CPU_REPACK:BOOL=ON" "$dir/../build/CMakeCache.txt" 2>/dev/null && repacks=yes
  for m in ${LLAMA:-repack no-repack fa-auto}; do
    case $m/$repacks in
      repack/yes) configs+=("$label, repacking|$dir|-fa off --repack 1") ;;
      repack/no) ;;
      no-repack/yes) configs+=("$label, no repacking|$dir|-fa off --repack 0") ;;
      no-repack/no) configs+=("$label|$dir|-fa off") ;;
      fa-auto/*) configs+=("$label, flash attention auto|$dir|") ;;
      *) echo "unknown LLAMA configuration: $m (repack, no-repack, fa-auto)" >&2; exit 2 ;;
    esac
  done
done
# sqale's configurations: the label, then (after an empty field) the environment, sqale's own
# flags and the binary (default: this tree's release build).
for s in $sqale_sets; do
  case $s in
    default) configs+=("sqale||") ;;
    off) configs+=("sqale, --speculate off|||--speculate off") ;;
    no-repack) configs+=("sqale, no repacking||SQALE_REPACK=0") ;;
    repack-all) configs+=("sqale, repacking every file||SQALE_REPACK=1") ;;
    f32) configs+=("sqale, f32 KV cache|||--kv-type f32") ;;
    *) echo "unknown SQALE configuration: $s (default, off, no-repack, repack-all, f32)" >&2; exit 2 ;;
  esac
done
for b in ${SQALE_BUILDS:-}; do
  [ -x "${b#*=}" ] || { echo "no sqale binary at ${b#*=} (SQALE_BUILDS)" >&2; exit 2; }
  configs+=("sqale ${b%%=*}||||${b#*=}" "sqale ${b%%=*}, --speculate off|||--speculate off|${b#*=}")
done
for round in $(seq "$rounds"); do
  i=0
  for c in "${configs[@]}"; do
    IFS='|' read -r label dir flags extra bin <<<"$c"
    if [ -z "$dir" ]; then
      env $flags "${bin:-./target/release/sqale}" bench -m "$model" --pp 256 --tg "$((tg > 0 ? tg : 1))" --depth "$depth" --reps "$reps" -t "$threads" $extra \
        --json >"$work/out.json" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(d["pp_tps_mean"],1), round(d["tg_tps_mean"],1) if int(sys.argv[2]) else "-")' \
        "$work/out.json" "$tg" >>"$work/row$i"
    else
      "$dir/llama-bench" -m "$model" -p 256 -n "$tg" -d "$depth" -r "$reps" -t "$threads" $flags -o json \
        >"$work/out.json" 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
      python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
pp = next(r["avg_ts"] for r in rows if r["n_prompt"] > 0)
tg = next((r["avg_ts"] for r in rows if r["n_gen"] > 0), None)
print(round(pp, 1), "-" if tg is None else round(tg, 1))' "$work/out.json" >>"$work/row$i"
    fi
    echo "$label" >"$work/label$i"
    echo "$dir" >"$work/kind$i"
    i=$((i + 1))
  done
done
echo "$(basename "$model"), depth $depth, $threads threads, $rounds rounds alternated, $reps repetitions each (tokens/s):"
echo
python3 - "$work" "$i" "$tg" <<'PY'
import statistics, sys
work, n, tg = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = []
for j in range(n):
    label = open(f"{work}/label{j}").read().strip()
    llama = open(f"{work}/kind{j}").read().strip() != ""
    vals = [line.split() for line in open(f"{work}/row{j}")]
    pp = [float(v[0]) for v in vals]
    tgv = [float(v[1]) for v in vals if v[1] != "-"]
    rows.append((label, llama, pp, tgv))
def med(xs):
    return statistics.median(xs) if xs else None
best_pp = max((med(r[2]) for r in rows if r[1]), default=None)
best_tg = max((med(r[3]) for r in rows if r[1] and r[3]), default=None)
def ratio(x, best):
    return f"{x / best:.2f}×" if x is not None and best else "–"
print(f"| configuration | pp256 per round | median | against the best | tg{tg} per round | median | against the best |")
print("|---|--:|--:|--:|--:|--:|--:|")
for label, _, pp, tgv in rows:
    mp, mt = med(pp), med(tgv)
    print(f"| {label} | {' / '.join(f'{x:.1f}' for x in pp)} | {mp:.1f} | {ratio(mp, best_pp)} | "
          f"{' / '.join(f'{x:.1f}' for x in tgv) or '–'} | {f'{mt:.1f}' if mt else '–'} | {ratio(mt, best_tg)} |")
PY
