#!/usr/bin/env bash
# Quantisation types each without an importance matrix, with llama.cpp's llama-imatrix on generic
# text, and with sqale's from agent episodes, measured by `sqale eval --reference --kld-only` on
# held-out episodes.
#
#   benches/imatrix-kld.sh WORKDIR LLAMA_BIN_DIR [MODEL.gguf]
#   TYPES="q4_0 iq4_nl q4_1 q5_0" benches/imatrix-kld.sh WORKDIR LLAMA_BIN_DIR
#
# TYPES (default: q3_k_m iq3_xxs q2_k) names the types. On SmolLM2, whose rows are 576 wide (not
# a multiple of 256), the K-quant and iq3 types fall back to q4_0, q5_0 and iq4_nl in most tensors
# (`sqale info --model` shows the mix); q4_0, iq4_nl, q4_1 and q5_0 apply as named.
# MODEL (default: the SmolLM2-135M-Instruct Q4_1 test model) is dequantised exactly to f32, the
# reference. The agent matrix is collected on the episodes the reference plays over
# benches/imatrix-calibrate.jsonl; the divergence is measured on its episodes over
# benches/imatrix-heldout.jsonl (other questions). Generic text: the GPL-3 and Apache-2.0 texts
# Debian ships in /usr/share/common-licenses (about 9,700 tokens, as many chunks of 512 as
# llama-imatrix makes of them). LLAMA_BIN_DIR holds llama-imatrix and llama-quantize
# (scripts/build-llama-tools). Prints the results folder's divergence table.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,18p "$0"; exit 2; }
work=$1 bin=$2 model=${3:-models/test/SmolLM2-135M-Instruct.Q4_1.gguf}
tokens=${MAX_EPISODE_TOKENS:-2500}
sqale=${SQALE:-./target/release/sqale}
[ -x "$bin/llama-imatrix" ] && [ -x "$bin/llama-quantize" ] || { echo "no llama-imatrix/llama-quantize in $bin: run scripts/build-llama-tools" >&2; exit 2; }
[ -n "${SQALE:-}" ] || cargo build --release -q
mkdir -p "$work"
ref=$work/reference-f32.gguf
[ -f "$ref" ] || "$sqale" quantize "$model" "$ref" --type f32 --allow-requantize
text=$work/generic.txt
cat /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/Apache-2.0 >"$text"
[ -f "$work/agent.imatrix.gguf" ] || /usr/bin/time -v "$sqale" imatrix --model "$ref" --bench benches/imatrix-calibrate.jsonl \
  --max-episode-tokens "$tokens" -o "$work/agent.imatrix.gguf" 2>"$work/agent.imatrix.log"
[ -f "$work/generic.imatrix.gguf" ] || /usr/bin/time -v "$bin/llama-imatrix" -m "$ref" -f "$text" -c 512 -t 2 \
  -o "$work/generic.imatrix.gguf" >"$work/generic.imatrix.log" 2>&1
models=()
for ty in ${TYPES:-q3_k_m iq3_xxs q2_k}; do
  for variant in none generic agent; do
    out=$work/$ty-$variant.gguf
    if [ ! -f "$out" ]; then
      args=()
      [ "$variant" = none ] || args=(--imatrix "$work/$variant.imatrix.gguf")
      if ! "$sqale" quantize "$ref" "$out" --type "$ty" "${args[@]}" >>"$work/quantize.log" 2>&1; then
        echo "$ty without an importance matrix: refused ($(tail -1 "$work/quantize.log"))"
        continue
      fi
    fi
    models+=(--model "$out")
  done
done
"$sqale" eval --bench benches/imatrix-heldout.jsonl --reference "$ref" "${models[@]}" --kld-only \
  --max-episode-tokens "$tokens" -o "$work/results"
