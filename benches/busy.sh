#!/usr/bin/env bash
# Decode speed on a busy machine, for each way llama.cpp's threads can wait: `sqale bench --busy N`
# (the same measurement idle and with 1..N spinning threads beside it, each against idle) for
#   OpenMP (sqale's default build) with OMP_WAIT_POLICY=ACTIVE, sqale's default (a short spin,
#   GOMP_SPINCOUNT=3000, then sleep), libgomp's default spin (GOMP_SPINCOUNT=300000, about 3 ms
#   before sleeping) and PASSIVE;
#   llama.cpp's own threadpool (a build without the `openmp` feature: target/no-openmp);
# at 2 threads and at 1. Prints a Markdown table.
#   CARGO_TARGET_DIR=target/no-openmp cargo build --release --no-default-features --bin sqale
#   bash benches/busy.sh models/test/SmolLM2-135M-Instruct.Q4_1.gguf [N=2] [TG=64]
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: benches/busy.sh MODEL [N] [TG]}
busy=${2:-2}
tg=${3:-64}
omp=target/release/sqale
pool=target/no-openmp/release/sqale
[ -x "$omp" ] || { echo "build first: cargo build --release" >&2; exit 1; }
[ -x "$pool" ] || { echo "build first: CARGO_TARGET_DIR=target/no-openmp cargo build --release --no-default-features --bin sqale" >&2; exit 1; }
row() {
  local label=$1 threads=$2; shift 2
  env "$@" bench --model "$model" --pp 64 --tg "$tg" --reps 3 --busy "$busy" --threads "$threads" --json 2>/dev/null |
    python3 -c '
import json, sys
r = json.load(sys.stdin)
cells = " | ".join("%.1f (%.2f)" % (l["tg_tps_mean"], l["tg_over_idle"]) for l in r["levels"])
print("| %s | %d | %s |" % (sys.argv[1], r["threads"], cells))' "$label"
}
header="| setting | threads | idle"
for n in $(seq 1 "$busy"); do header="$header | $n busy"; done
echo "$header |"
echo "|---|--:|$(for n in $(seq 0 "$busy"); do printf -- '--:|'; done)"
for t in 2 1; do
  row "OpenMP, OMP_WAIT_POLICY=ACTIVE" "$t" -u GOMP_SPINCOUNT OMP_WAIT_POLICY=ACTIVE "$omp"
  row "OpenMP, sqale's default (GOMP_SPINCOUNT=3000)" "$t" -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$omp"
  row "OpenMP, libgomp default (spin ~3 ms)" "$t" -u OMP_WAIT_POLICY GOMP_SPINCOUNT=300000 "$omp"
  row "OpenMP, OMP_WAIT_POLICY=PASSIVE" "$t" -u GOMP_SPINCOUNT OMP_WAIT_POLICY=PASSIVE "$omp"
  row "llama.cpp threadpool" "$t" "$pool"
done
