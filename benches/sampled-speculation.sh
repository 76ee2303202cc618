#!/usr/bin/env bash
# Speculation as people run it: sampled agent episodes (the default temperature, 0.6) played with
# `--speculate off` and with the default drafting (`auto`) on the same seeds, alternately, and the
# generation speed of each pair, the drafts' acceptance, and whether the two episodes came out the
# same token for token. Prints a Markdown table.
#
#   [SEEDS="11 12 13 14 15 16"] [BUDGET=6000] [THREADS=2] benches/sampled-speculation.sh MODEL.gguf [DB] [QUESTION]
#
# DB defaults to the demo database. Generation speed is generated tokens over the seconds spent
# generating them (prefill of the tool results left out); "depth" is the context at the end.
# Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,11p "$0"; exit 2; }
model=$1
db=${2:-}
question=${3:-Which supplier shipped the most back-ordered items last quarter?}
seeds=${SEEDS:-11 12 13 14 15 16} budget=${BUDGET:-6000} threads=${THREADS:-2}
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dbargs=()
[ -z "$db" ] || dbargs=(--db "$db")
for seed in $seeds; do
  for mode in off auto; do
    ./target/release/sqale ask -m "$model" "${dbargs[@]}" --seed "$seed" --speculate "$mode" -t "$threads" \
      --max-episode-tokens "$budget" --no-prompt-cache --json "$question" >"$work/$seed-$mode.json" 2>"$work/log" || {
      status=$?
      # 1: the episode ended without an answer, still a measured episode.
      [ "$status" -eq 1 ] || { cat "$work/log" >&2; exit 1; }
    }
  done
done
python3 - "$work" $seeds <<'PY'
import json, sys
work, seeds = sys.argv[1], sys.argv[2:]
def load(seed, mode):
    e = json.load(open(f"{work}/{seed}-{mode}.json"))["episode"]
    t = e["tokens"]
    spec = t.get("speculation", {})
    drafted = sum(spec.get(d, {}).get("drafted", 0) for d in ("lookup", "mtp"))
    accepted = sum(spec.get(d, {}).get("accepted", 0) for d in ("lookup", "mtp"))
    steps = sum(spec.get(d, {}).get("steps", 0) for d in ("lookup", "mtp"))
    turns = [x["completion"] for x in e["turns"]]
    return dict(gen=t["generated_tokens"], secs=t["generate_seconds"], depth=t["context_tokens"],
                drafted=drafted, accepted=accepted, steps=steps, turns=turns)
print("| seed | depth at the end | generated | off tokens/s | auto tokens/s | gain | drafts checked | acceptance | same episode |")
print("|--:|--:|--:|--:|--:|--:|--:|--:|---|")
tot = dict(off_g=0, off_s=0.0, on_g=0, on_s=0.0, dr=0, ac=0)
for s in seeds:
    a, b = load(s, "off"), load(s, "auto")
    ra, rb = a["gen"] / a["secs"], b["gen"] / b["secs"]
    acc = b["accepted"] / b["drafted"] if b["drafted"] else 0.0
    same = "yes" if a["turns"] == b["turns"] else "no"
    print(f"| {s} | {b['depth']} | {b['gen']} | {ra:.1f} | {rb:.1f} | {rb / ra:.2f}× | {b['steps']} | {acc:.0%} | {same} |")
    tot["off_g"] += a["gen"]; tot["off_s"] += a["secs"]; tot["on_g"] += b["gen"]; tot["on_s"] += b["secs"]
    tot["dr"] += b["drafted"]; tot["ac"] += b["accepted"]
ra, rb = tot["off_g"] / tot["off_s"], tot["on_g"] / tot["on_s"]
acc = tot["ac"] / tot["dr"] if tot["dr"] else 0.0
print(f"| all | | {tot['on_g']} | {ra:.1f} | {rb:.1f} | {rb / ra:.2f}× | | {acc:.0%} | |")
PY
