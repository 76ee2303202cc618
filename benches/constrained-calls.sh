#!/usr/bin/env bash
# Constrained calls and voting measured on what is here (docs/constrained-calls.md, "Measured"):
# SmolLM2-135M-Instruct as shipped (Q4_1) and quantised to q3_k_m and q2_k from its exact f32
# dequantisation, each under free and constrained calls, each as a lone episode and as a vote of
# 5, over benches/simple-calls.jsonl (counts, lookups, one join on the demo database): twelve
# entries of one `sqale eval` run, paired.
#
#   benches/constrained-calls.sh WORKDIR
#
# MAX_EPISODE_TOKENS (default 1000) and THOUGHT_CHARS (default 300) set the budget and the
# thought's bound; SQALE the binary (default: target/release/sqale, built). Prints the summary's
# calls table and the paired comparisons; the results folder is WORKDIR/results.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,12p "$0"; exit 2; }
work=$1
tokens=${MAX_EPISODE_TOKENS:-1000} thought=${THOUGHT_CHARS:-300}
sqale=${SQALE:-./target/release/sqale}
model=models/test/SmolLM2-135M-Instruct.Q4_1.gguf
[ -n "${SQALE:-}" ] || cargo build --release -q
mkdir -p "$work"
ref=$work/SmolLM2-f32.gguf
[ -f "$ref" ] || "$sqale" quantize "$model" "$ref" --type f32 --allow-requantize
models=(--model "$model")
for ty in q3_k_m q2_k; do
  [ -f "$work/SmolLM2-$ty.gguf" ] || "$sqale" quantize "$ref" "$work/SmolLM2-$ty.gguf" --type "$ty"
  models+=(--model "$work/SmolLM2-$ty.gguf")
done
"$sqale" eval --bench benches/simple-calls.jsonl "${models[@]}" --calls free,constrained --vote 5 \
  --max-thought-chars "$thought" --max-episode-tokens "$tokens" --seed 1 -o "$work/results"
