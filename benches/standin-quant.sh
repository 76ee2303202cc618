#!/usr/bin/env bash
# The stand-in's quantisation table (docs/stand-in.md): q8_0, q4_k_m, q3_k_m and q2_k, each
# without and with an importance matrix from the stand-in's own episodes on training questions,
# against the committed f16 on held-out schemas. One `sqale eval --reference`: EX with paired
# intervals, calls, the share ended by submit_sql, teacher-forced KLD and file sizes, in
# OUT/summary.md and OUT/report.html.
#
#   benches/standin-quant.sh [OUT]        (default models/standin/quant)
#
# Makes the questions where WORK (default models/standin) has none. SHARD (default 1/8: every
# 8th held-out question, 68 of 544), IMATRIX_QUESTIONS (default 64 training questions played for
# the matrix), SEED (default 1), MODEL (default the committed f16), SQALE the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-models/standin/quant}
work=${WORK:-models/standin}
shard=${SHARD:-1/8} seed=${SEED:-1} calib=${IMATRIX_QUESTIONS:-64}
sqale=${SQALE:-./target/release/sqale}
f16=${MODEL:-tests/fixtures/standin/standin-f16.gguf}
[ -n "${SQALE:-}" ] || cargo build --release -q
if [ ! -f "$work/data/heldout.jsonl" ]; then
  python3 scripts/standin_data.py "$work/data" --seed 1
fi
files=$out/files
mkdir -p "$files"
[ -f "$files/imatrix.gguf" ] ||
  "$sqale" imatrix -m "$f16" --bench "$work/data/train.jsonl" --limit "$calib" --seed "$seed" -o "$files/imatrix.gguf"
models=()
for t in q8_0 q4_k_m q3_k_m q2_k; do
  [ -f "$files/standin-$t.gguf" ] || "$sqale" quantize "$f16" "$files/standin-$t.gguf" --type "$t"
  [ -f "$files/standin-$t-imatrix.gguf" ] ||
    "$sqale" quantize "$f16" "$files/standin-$t-imatrix.gguf" --type "$t" --imatrix "$files/imatrix.gguf"
  models+=(-m "$files/standin-$t.gguf" -m "$files/standin-$t-imatrix.gguf")
done
"$sqale" eval --bench "$work/data/heldout.jsonl" --shard "$shard" --seed "$seed" --reference "$f16" \
  "${models[@]}" -o "$out/eval"
echo "table: $out/eval/summary.md, report: $out/eval/report.html"
