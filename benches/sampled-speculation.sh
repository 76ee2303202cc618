#!/usr/bin/env bash
# Speculation as people run it: sampled agent episodes (the default temperature, 0.6) played with
# `--speculate off` and with the default drafting (`auto`) on the same seeds, alternately, and the
# generation speed of each pair, the drafts' acceptance, and whether the two episodes came out the
# same token for token. Prints a Markdown table.
#
#   [SEEDS="11 12 13 14 15 16"] [BUDGET=6000] [THREADS=2] [COMPARE_BIN=SQALE] benches/sampled-speculation.sh MODEL.gguf [DB] [QUESTION]
#
# DB defaults to the demo database. Generation speed is generated tokens over the seconds spent
# generating them (prefill of the tool results left out); "depth" is the context at the end.
# COMPARE_BIN, a sqale built otherwise (e.g. `GGML_LLAMAFILE=ON CARGO_TARGET_DIR=DIR cargo build
# --release`), plays each seed a third time with `--speculate off`, and a second table gives each
# configuration's prefill and generation speed over all its episodes and their seconds.
# Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,14p "$0"; exit 2; }
model=$1
db=${2:-}
question=${3:-Which supplier shipped the most back-ordered items last quarter?}
seeds=${SEEDS:-11 12 13 14 15 16} budget=${BUDGET:-6000} threads=${THREADS:-2} compare=${COMPARE_BIN:-}
[ -z "$compare" ] || [ -x "$compare" ] || { echo "COMPARE_BIN: no executable $compare" >&2; exit 2; }
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dbargs=()
[ -z "$db" ] || dbargs=(--db "$db")
configs=(off auto)
[ -z "$compare" ] || configs+=(other)
for seed in $seeds; do
  for config in "${configs[@]}"; do
    bin=./target/release/sqale mode=$config
    [ "$config" != other ] || { bin=$compare mode=off; }
    "$bin" ask -m "$model" "${dbargs[@]}" --seed "$seed" --speculate "$mode" -t "$threads" \
      --max-episode-tokens "$budget" --no-prompt-cache --json "$question" >"$work/$seed-$config.json" 2>"$work/log" || {
      status=$?
      # 1: the episode ended without an answer, still a measured episode.
      [ "$status" -eq 1 ] || { cat "$work/log" >&2; exit 1; }
    }
  done
done
python3 - "$work" "$compare" $seeds <<'PY'
import json, os, sys
work, compare, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(seed, mode):
    e = json.load(open(f"{work}/{seed}-{mode}.json"))["episode"]
    t = e["tokens"]
    spec = t.get("speculation", {})
    drafted = sum(spec.get(d, {}).get("drafted", 0) for d in ("lookup", "mtp"))
    accepted = sum(spec.get(d, {}).get("accepted", 0) for d in ("lookup", "mtp"))
    steps = sum(spec.get(d, {}).get("steps", 0) for d in ("lookup", "mtp"))
    turns = [x["completion"] for x in e["turns"]]
    return dict(gen=t["generated_tokens"], secs=t["generate_seconds"], depth=t["context_tokens"],
                drafted=drafted, accepted=accepted, steps=steps, turns=turns,
                prefilled=t["decoded_tokens"] - t["generated_tokens"], prefill_secs=t["prefill_seconds"],
                episode_secs=e["seconds"])
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
if compare:
    print()
    print("| configuration | episodes' tokens | prefilled | prefill tokens/s | generated | generation tokens/s | episodes' seconds |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for config, name in (("off", "this build, off"), ("auto", "this build, auto"), ("other", "COMPARE_BIN, off")):
        runs = [load(s, config) for s in seeds]
        pre, pre_s = sum(r["prefilled"] for r in runs), sum(r["prefill_secs"] for r in runs)
        gen, gen_s = sum(r["gen"] for r in runs), sum(r["secs"] for r in runs)
        print(f"| {name} | {sum(r['depth'] for r in runs)} | {pre} | {pre / pre_s:.1f} | {gen} | {gen / gen_s:.1f} | {sum(r['episode_secs'] for r in runs):.1f} |")
PY
