#!/usr/bin/env bash
# Prefill and decode at depth: `sqale bench --depth` against llama.cpp's own llama-bench (`-d`) on
# the same file and threads, and the ratios: sqale's prefill against llama-bench's default, its
# decoding against the fastest llama-bench configuration measured.
#
#   [DEPTHS=0,2048,8192] [REPS=1] [THREADS=2] [KERNELS_BIN=DIR] benches/depth.sh LLAMA_BIN_DIR MODEL.gguf [MODEL.gguf ...]
#
# sqale runs twice: in its default configuration, and with sleeping threads and an f32 KV cache
# (OMP_WAIT_POLICY=PASSIVE --kv-type f32). llama-bench runs in its default configuration (flash
# attention auto, f16 KV cache, repacked weights, llamafile; LLAMA_BIN_DIR from
# scripts/build-llama-tools DIR llama-bench: AVX-512 where the CPU has it) and with flash
# attention off; with KERNELS_BIN, also that build's llama-bench with flash attention off (build
# it with sqale's CPU level and kernels: LLAMA_CMAKE_ARGS="-DGGML_AVX512=OFF -DGGML_LLAMAFILE=OFF
# -DGGML_CPU_REPACK=OFF" scripts/build-llama-tools DIR llama-bench). pp256 and tg64; each depth's
# filler is decoded untimed before every repetition, by both tools. Run on an otherwise idle
# machine: both cores are measured.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,15p "$0"; exit 2; }
bin=$1
shift
depths=${DEPTHS:-0,2048,8192} reps=${REPS:-1} threads=${THREADS:-2} kernels=${KERNELS_BIN:-}
[ -x "$bin/llama-bench" ] || { echo "no llama-bench in $bin: scripts/build-llama-tools $bin llama-bench" >&2; exit 2; }
[ -z "$kernels" ] || [ -x "$kernels/llama-bench" ] || { echo "no llama-bench in $kernels" >&2; exit 2; }
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sqale() {
  local name=$1 kv=$2
  shift 2
  env "$@" ./target/release/sqale bench -m "$model" --pp 256 --tg 64 --depth "$depths" --reps "$reps" -t "$threads" \
    --kv-type "$kv" --json >"$work/sqale-$name.json" 2>"$work/sqale.log" || { cat "$work/sqale.log" >&2; exit 1; }
}
llama() {
  local name=$1 dir=$2
  shift 2
  "$dir/llama-bench" -m "$model" -p 256 -n 64 -d "$depths" -r "$reps" -t "$threads" -o json "$@" \
    >"$work/$name.json" 2>"$work/llama.log" || { cat "$work/llama.log" >&2; exit 1; }
}
for model in "$@"; do
  sqale default auto
  sqale sleeping f32 -u GOMP_SPINCOUNT OMP_WAIT_POLICY=PASSIVE
  llama default "$bin"
  llama fa-off "$bin" -fa off
  [ -z "$kernels" ] || llama kernels "$kernels" -fa off
  python3 - "$model" "$work" <<'PY'
import json, os, sys
model, work = os.path.basename(sys.argv[1]), sys.argv[2]
def sqale(name):
    s = json.load(open(f"{work}/sqale-{name}.json"))
    rows = s.get("depths") or [s]
    return s["kv_type"], {r["depth"]: (r["pp_tps_mean"], r["tg_tps_mean"]) for r in rows}
def llama(name):
    path = f"{work}/{name}.json"
    if not os.path.exists(path):
        return None
    return {("pp" if r["n_prompt"] > 0 else "tg", r["n_depth"]): r["avg_ts"] for r in json.load(open(path))}
(kv, new), (_, old) = sqale("default"), sqale("sleeping")
d, off, ker = llama("default"), llama("fa-off"), llama("kernels")
print(f"{model} (sqale default: {kv} KV)")
extra = " | llama-bench sqale's kernels `-fa off`" if ker else ""
print(f"| depth | pp256 sqale sleeping, f32 | sqale default | llama-bench default | llama-bench `-fa off` | ratio to default | tg64 sqale sleeping, f32 | sqale default | llama-bench default | llama-bench `-fa off`{extra} | ratio to fastest |")
print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|" + ("--:|" if ker else "") + "--:|")
for k in sorted(new):
    (p0, t0), (p1, t1) = old[k], new[k]
    tgs = [d[("tg", k)], off[("tg", k)]] + ([ker[("tg", k)]] if ker else [])
    best = max(tgs)
    cells = " | ".join(f"{t:.1f}" for t in tgs)
    pd, po = d[("pp", k)], off[("pp", k)]
    print(f"| {k} | {p0:.1f} | {p1:.1f} | {pd:.1f} | {po:.1f} | {p1 / pd:.2f}× | {t0:.1f} | {t1:.1f} | {cells} | {t1 / best:.2f}× |")
PY
done
