#!/usr/bin/env bash
# Conversion benchmark: sqale convert against llama.cpp's convert_hf_to_gguf.py on the same
# synthetic Qwen3.5-2B checkpoint (real dimensions, random weights, the real Qwen3.5 tokenizer),
# in one run: wall time and peak resident memory (GNU time), output sizes per type.
#
#   benches/convert.sh WORKDIR LLAMA_CPP_TREE PYTHON
# LLAMA_CPP_TREE: a full llama.cpp source tree (e.g. vendor/llama.cpp of the llama-cpp-python
# sdist on PyPI); PYTHON: an interpreter with torch, transformers, numpy.
set -euo pipefail
work=${1:?workdir}; tree=${2:?llama.cpp tree}; py=${3:?python}
root=$(cd "$(dirname "$0")/.." && pwd)
sqale="$root/target/release/sqale"
mkdir -p "$work"
ck="$work/qwen3.5-2b-synth"
[ -f "$ck/model.safetensors.index.json" ] || "$sqale" synth --preset qwen3.5-2b --tokenizer "$root/models/tokenizers/qwen3.5" -o "$ck"

measure() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/$label.log" 2>&1
  read -r secs kb < "$work/time.txt"
  printf '%-28s %8.1f s %8.2f GB peak RSS\n' "$label" "$secs" "$(echo "$kb/1048576" | bc -l)"
}

echo "== conversion to f16, same checkpoint"
measure "sqale convert f16" "$sqale" convert "$ck" --type f16 -o "$work/sqale-f16.gguf"
measure "convert_hf_to_gguf.py f16" env PYTHONPATH="$tree/gguf-py" "$py" "$tree/convert_hf_to_gguf.py" "$ck" --outtype f16 --no-mtp --outfile "$work/py-f16.gguf"
echo "== sqale, other types"
for t in bf16 q8_0 q6_k q5_k_m q4_k_m q4_0 iq4_nl; do
  measure "sqale convert $t" "$sqale" convert "$ck" --type "$t" -t 2 -o "$work/sqale-$t.gguf"
done
echo "== sizes"
stat -c '%s %n' "$work"/*.gguf | awk '{printf "%-40s %14s bytes\n", $2, $1}'
