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
# Tolerance: PPL(Q), PPL(base) and the mean KLD within 1 % + 1e-4 of llama.cpp's, the ln ratio
# of the perplexities within 0.01 (1 % of either), the mean and RMS Δp within 1 % + 0.01 points;
# each percentile, maximum and minimum (one token's figure) within 3 % + 1e-4 (Δp: + 0.01
# points); Cor(ln PPL) within 0.5 points; same top p within 1 point. llama.cpp keeps the
# reference's log-probabilities as 16-bit values (clamped 16 nats below the most probable), sqale
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
for model in "$@"; do
  "$perplexity" -m "$model" "${common[@]}" --kl-divergence-base "$work/base.kld" --kl-divergence 2>&1 | cat >"$work/q.log" \
    || { cat "$work/q.log" >&2; exit 1; }
  ./target/release/examples/kld_vs_llama "$ref" "$model" "$text" "$ctx" "$chunks" 2>/dev/null >"$work/sqale.json"
  python3 - "$model" "$work/q.log" "$work/sqale.json" <<'EOF' || status=1
import json, re, sys, os
name, log, js = os.path.basename(sys.argv[1]), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
def grab(label):
    m = re.search(r"^\s*" + re.escape(label) + r"\s*:\s*([0-9.eE+-]+)", log, re.M)
    if not m:
        sys.exit(f"{name}: llama-perplexity printed no {label!r}; its log ends:\n" + log[-1500:])
    return float(m.group(1))
# (llama-perplexity's label, sqale's key, scale to llama's unit, tolerance: relative, absolute)
checks = [("Mean PPL(Q)", "ppl", 1, 0.01, 1e-4), ("Mean PPL(base)", "ppl_base", 1, 0.01, 1e-4),
          ("Mean ln(PPL(Q)/PPL(base))", "ln_ratio", 1, 0, 0.01),
          ("Cor(ln(PPL(Q)), ln(PPL(base)))", "cor", 100, 0, 0.5),
          ("Mean    KLD", "mean_kld", 1, 0.01, 1e-4), ("Same top p", "same_top_pct", 1, 0, 1.0),
          ("Mean    Δp", "mean_dp", 100, 0.01, 0.01), ("RMS Δp", "rms_dp", 100, 0.01, 0.01)]
def label(p, what):
    return p + (f" {what}" if p in ("Maximum", "Minimum") else (f"  {what}" if p == "Median" else f"   {what}"))
for p in ["Maximum", "99.9%", "99.0%", "95.0%", "90.0%", "Median", "10.0%", "5.0%", "1.0%", "0.1%", "Minimum"]:
    checks.append((label(p, "KLD"), f"{p} KLD", 1, 0.03, 1e-4))
for p in ["Maximum", "99.9%", "99.0%", "95.0%", "90.0%", "75.0%", "Median", "25.0%", "10.0%", "5.0%", "1.0%", "0.1%", "Minimum"]:
    checks.append((label(p, "Δp"), f"{p} dp", 100, 0.03, 0.01))
bad = []
print(f"{name}: {'statistic':<34} {'llama.cpp':>12} {'sqale':>12}")
for lab, key, scale, rel, tol in checks:
    theirs, ours = grab(lab), scale * js[key]
    mark = "" if abs(ours - theirs) <= rel * abs(theirs) + tol else "  <- differs"
    print(f"{name}: {lab.strip():<34} {theirs:12.6f} {ours:12.6f}{mark}")
    if mark:
        bad.append(lab.strip())
if bad:
    print(f"{name}: sqale and llama.cpp differ beyond the tolerance in {', '.join(bad)}", file=sys.stderr)
    sys.exit(1)
EOF
done
exit $status
