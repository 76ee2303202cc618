#!/usr/bin/env bash
# sqale's per-token KL divergence against llama.cpp's own (`llama-perplexity --kl-divergence`)
# on the same tokens and the same files; exits non-zero when they disagree beyond the tolerance.
#
#   [CHUNKS=n] benches/kld-vs-llama.sh LLAMA_BIN_DIR TEXT CTX REFERENCE.gguf MODEL.gguf [MODEL.gguf ...]
#
# LLAMA_BIN_DIR holds llama-perplexity, built from llama.cpp's sources (docs/evaluation.md, "Divergence from
# a reference", has the commands). Both sides score the first CHUNKS (1) chunks of CTX tokens of
# TEXT (in each, tokens CTX/2+1 .. CTX; llama-perplexity wants 2·CTX tokens of text at least), with
# an f32 KV cache and flash attention off, on 2 threads.
# Tolerance: mean, median and 99th percentile within 1 % + 1e-4 of llama.cpp's, same-top
# within 1 point. llama.cpp keeps the reference's log-probabilities as 16-bit values, sqale
# as f32 over the whole vocabulary here, so the two differ in the last digits; and the two cut
# the chunk into batches differently (llama-perplexity outputs every row of a 512-token batch,
# sqale at most 128 scored rows), which moves logits where the CPU backend repacks weights
# (Q4_0, Q4_K): on a random model's near-flat distributions a few argmaxes flip.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 5 ] || { sed -n 2,12p "$0"; exit 2; }
bin=$1 text=$2 ctx=$3 ref=$4
shift 4
perplexity="$bin/llama-perplexity"
[ -x "$perplexity" ] || { echo "no llama-perplexity in $bin: build it (docs/evaluation.md, \"Divergence from a reference\")" >&2; exit 2; }
cargo build --release --example kld_vs_llama -q
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
chunks=${CHUNKS:-1}
common=(-f "$text" -c "$ctx" -b "$ctx" --chunks "$chunks" -t 2 -fa off -ctk f32 -ctv f32)
# Through a pipe: written straight to a file, llama.cpp's log thread can lose the last lines.
"$perplexity" -m "$ref" "${common[@]}" --kl-divergence-base "$work/base.kld" 2>&1 | cat >"$work/base.log" \
  || { cat "$work/base.log" >&2; exit 1; }
status=0
printf '%-28s %-10s %12s %12s %12s %12s %10s\n' model tool "mean KLD" median p99 max "same top %"
for model in "$@"; do
  "$perplexity" -m "$model" "${common[@]}" --kl-divergence-base "$work/base.kld" --kl-divergence 2>&1 | cat >"$work/q.log" \
    || { cat "$work/q.log" >&2; exit 1; }
  ./target/release/examples/kld_vs_llama "$ref" "$model" "$text" "$ctx" "$chunks" 2>/dev/null >"$work/sqale.json"
  python3 - "$model" "$work/q.log" "$work/sqale.json" <<'EOF' || status=1
import json, re, sys, os
name, log, js = os.path.basename(sys.argv[1]), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
def grab(label):
    m = re.search(re.escape(label) + r"\s*:\s*([0-9.eE+-]+)", log)
    if not m:
        sys.exit(f"{name}: llama-perplexity printed no {label!r}; its log ends:\n" + log[-1500:])
    return float(m.group(1))
llama = {"mean_kld": grab("Mean    KLD"), "median_kld": grab("Median  KLD"), "p99_kld": grab("99.0%   KLD"),
         "max_kld": grab("Maximum KLD"), "same_top_pct": grab("Same top p")}
row = lambda tool, d: print(f"{name:<28} {tool:<10} {d['mean_kld']:12.6f} {d['median_kld']:12.6f} {d['p99_kld']:12.6f} {d['max_kld']:12.6f} {d['same_top_pct']:10.3f}")
row("llama.cpp", llama)
row("sqale", js)
bad = [k for k in ("mean_kld", "median_kld", "p99_kld") if abs(js[k] - llama[k]) > 0.01 * abs(llama[k]) + 1e-4]
if abs(js["same_top_pct"] - llama["same_top_pct"]) > 1.0:
    bad.append("same_top_pct")
if bad:
    print(f"{name}: sqale and llama.cpp differ beyond the tolerance in {', '.join(bad)}", file=sys.stderr)
    sys.exit(1)
EOF
done
exit $status
