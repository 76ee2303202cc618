#!/usr/bin/env bash
# The stand-in's MTP head through llama.cpp (docs/stand-in.md): the same held-out episodes played
# with `--speculate off`, `lookup`, `mtp` and `auto`, one sequence, the same seeds. Prints, per
# mode, the drafts kept, tokens per verify step, generation speed and its ratio to `off`, and
# how many episodes came out token for token the same as plain decoding's. Run it alone: it is
# timed.
#
#   benches/standin-mtp.sh [OUT]        (default models/standin/mtp)
#
# SHARD (default 1/8: 68 of the 544 held-out questions), SEED (default 1), MODEL (default the
# committed f16), WORK (default models/standin), SQALE the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-models/standin/mtp}
work=${WORK:-models/standin}
shard=${SHARD:-1/8} seed=${SEED:-1}
model=${MODEL:-tests/fixtures/standin/standin-f16.gguf}
sqale=${SQALE:-./target/release/sqale}
[ -n "${SQALE:-}" ] || cargo build --release -q
if [ ! -f "$work/data/heldout.jsonl" ]; then
  python3 scripts/standin_data.py "$work/data" --seed 1
fi
modes="off lookup mtp auto"
for mode in $modes; do
  rm -rf "$out/$mode"
  "$sqale" eval --bench "$work/data/heldout.jsonl" --shard "$shard" --seed "$seed" --parallel 1 \
    --speculate "$mode" -m "$model" -o "$out/$mode" >/dev/null
done
python3 - "$out" $modes <<'PY'
import json, sys
out, modes = sys.argv[1], sys.argv[2:]
def episodes(mode):
    rows = [json.loads(l) for l in open(f"{out}/{mode}/episodes.jsonl")]
    return {r["id"]: r for r in rows}
def speed(mode):
    gen = secs = 0
    for r in episodes(mode).values():
        t = r["episode"]["tokens"]
        gen += t["generated_tokens"]; secs += t["generate_seconds"]
    return gen, gen / secs
def text(r):
    return [t["completion"] for t in r["episode"]["turns"]], r["sql"], r["ended_by"]
plain = episodes("off")
base = speed("off")[1]
print(f"{len(plain)} held-out episodes per mode")
print("| --speculate | generated tokens | tokens/s | vs off | drafts kept (lookup) | tokens/step (lookup) | drafts kept (mtp) | tokens/step (mtp) | same as off |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for mode in modes:
    eps = episodes(mode)
    gen, tps = speed(mode)
    same = sum(text(eps[i]) == text(plain[i]) for i in plain if i in eps)
    spec = json.load(open(f"{out}/{mode}/summary.json"))["models"][0].get("speculation") or {}
    cells = []
    for d in ("lookup", "mtp"):
        s = spec.get(d) or {}
        if s.get("drafted"):
            cells += [f"{s['accepted']}/{s['drafted']} ({100 * s['accepted'] / s['drafted']:.0f} %)",
                      f"{1 + s['accepted'] / s['steps']:.2f}"]
        else:
            cells += ["–", "–"]
    print(f"| {mode} | {gen} | {tps:.1f} | {tps / base:.2f}× | {' | '.join(cells)} | {same}/{len(plain)} |")
PY
