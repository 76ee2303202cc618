#!/usr/bin/env bash
# What a vote costs: K sampled episodes of one question batched in one context (`ask --vote K`)
# against the same K episodes one after the other (`ask --seed S+i`, each its own process), and
# against one episode. Free calls, so every episode runs to the same budget (SmolLM2 never
# submits) and the work is the same. Run it alone: it is timed.
#
#   benches/vote-throughput.sh [K] [ROUNDS]
#
# K (default 5) episodes, ROUNDS (default 2) alternated rounds; MAX_EPISODE_TOKENS (default
# 1000), SPECULATE (default auto: `--speculate` for every way), SQALE the binary. Prints wall seconds and generated tokens per second per way, and the
# ratios against one after the other.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-5} rounds=${2:-2}
tokens=${MAX_EPISODE_TOKENS:-1000}
speculate=${SPECULATE:-auto}
sqale=${SQALE:-./target/release/sqale}
model=models/test/SmolLM2-135M-Instruct.Q4_1.gguf
question="How many products are there?"
[ -n "${SQALE:-}" ] || cargo build --release -q
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gen() { python3 -c 'import json,sys
t=0
for p in sys.argv[1:]:
    a=json.load(open(p))
    for e in a.get("episodes") or [a.get("episode", a)]:
        t+=e["tokens"]["generated_tokens"]
print(t)' "$@"; }
now() { date +%s.%N; }
declare -A secs toks
for r in $(seq "$rounds"); do
  t0=$(now)
  "$sqale" ask --model "$model" --json --seed 100 --vote "$k" --max-episode-tokens "$tokens" --speculate "$speculate" "$question" >"$out/vote.json" || true
  t1=$(now)
  for i in $(seq 0 $((k - 1))); do
    "$sqale" ask --model "$model" --json --seed $((100 + i)) --max-episode-tokens "$tokens" --speculate "$speculate" "$question" >"$out/one$i.json" || true
  done
  t2=$(now)
  secs[batched]=$(python3 -c "print(${secs[batched]:-0} + $t1 - $t0)")
  secs[sequential]=$(python3 -c "print(${secs[sequential]:-0} + $t2 - $t1)")
  toks[batched]=$(( ${toks[batched]:-0} + $(gen "$out/vote.json") ))
  toks[sequential]=$(( ${toks[sequential]:-0} + $(gen "$out"/one*.json) ))
  t3=$(now)
  "$sqale" ask --model "$model" --json --seed 100 --max-episode-tokens "$tokens" --speculate "$speculate" "$question" >"$out/single.json" || true
  t4=$(now)
  secs[single]=$(python3 -c "print(${secs[single]:-0} + $t4 - $t3)")
  toks[single]=$(( ${toks[single]:-0} + $(gen "$out/single.json") ))
done
echo "K=$k, $rounds rounds, --max-episode-tokens $tokens, --speculate $speculate, $(nproc) cores"
for w in single sequential batched; do
  python3 -c "s=${secs[$w]}/$rounds; t=${toks[$w]}/$rounds; seq=${secs[sequential]}/$rounds
print(f'$w: {s:.1f} s a round, {t:.0f} generated tokens, {t/s:.1f} tokens/s, {seq/s:.2f}x the wall speed of one after the other')"
done
