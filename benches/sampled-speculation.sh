#!/usr/bin/env bash
# Speculation as people run it: sampled agent episodes (the default temperature, 0.6) played with
# `--speculate off` and with the default drafting (`auto`) on the same seeds, alternately, and the
# generation speed of each pair, the drafts' acceptance, and whether the two episodes came out the
# same token for token. Prints a Markdown table.
#
#   [SEEDS="11 12 13 14 15 16"] [BUDGET=6000] [THREADS=2] [COMPARE_BIN=SQALE] [SERVER=yes]
#     benches/sampled-speculation.sh MODEL.gguf [DB] [QUESTION]
#
# DB defaults to the demo database. Generation speed is generated tokens over the seconds spent
# generating them (prefill of the tool results left out); "depth" is the context at the end.
# COMPARE_BIN, a sqale built otherwise (e.g. `GGML_LLAMAFILE=ON CARGO_TARGET_DIR=DIR cargo build
# --release`), plays each seed a third time with `--speculate off`, and a second table gives each
# configuration's prefill and generation speed over all its episodes and their seconds.
# SERVER=yes also plays each seed through llama.cpp's own server (the xllamacpp wheel that
# `.ci/fetch-models` installs; one slot, THREADS threads, on 127.0.0.1, started afresh for each
# episode so that no configuration reuses another episode's prompt) with `sqale ask --server`:
# plainly, with its `ngram-mod` and with its `ngram-simple` speculation. A third table gives every
# configuration's whole-episode milliseconds per context token, and the server's draft acceptance
# from its own log. Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,20p "$0"; exit 2; }
model=$1
db=${2:-}
question=${3:-Which supplier shipped the most back-ordered items last quarter?}
seeds=${SEEDS:-11 12 13 14 15 16} budget=${BUDGET:-6000} threads=${THREADS:-2} compare=${COMPARE_BIN:-}
[ -z "$compare" ] || [ -x "$compare" ] || { echo "COMPARE_BIN: no executable $compare" >&2; exit 2; }
server=${SERVER:-}
py=models/.venv/bin/python
[ -z "$server" ] || "$py" -c "import xllamacpp" 2>/dev/null ||
  { echo "SERVER=yes needs llama.cpp's server: run bash .ci/fetch-models (it installs xllamacpp into models/.venv)" >&2; exit 2; }
cargo build --release -q
work=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
dbargs=()
[ -z "$db" ] || dbargs=(--db "$db")
configs=(off auto)
[ -z "$compare" ] || configs+=(other)
[ -z "$server" ] || configs+=(server-off server-ngram-mod server-ngram-simple)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for seed in $seeds; do
  for config in "${configs[@]}"; do
    bin=./target/release/sqale mode=$config
    [ "$config" != other ] || { bin=$compare mode=off; }
    target=(-m "$model" --speculate "$mode" -t "$threads" --no-prompt-cache)
    if [[ $config == server-* ]]; then
      p=$(port) spec=${config#server-}
      [ "$spec" != off ] || spec=
      SQALE_SERVER_THREADS=$threads SQALE_SERVER_SPECULATE=$spec \
        "$py" tests/support/llama_server.py "$model" "$p" 1 16384 >"$work/$seed-$config.log" 2>&1 &
      pid=$!
      for _ in $(seq 120); do curl -sf "http://127.0.0.1:$p/health" >/dev/null && break; sleep 0.5; done
      target=(--server "http://127.0.0.1:$p")
    fi
    "$bin" ask "${target[@]}" "${dbargs[@]}" --seed "$seed" \
      --max-episode-tokens "$budget" --json "$question" >"$work/$seed-$config.json" 2>"$work/log" || {
      status=$?
      # 1: the episode ended without an answer, still a measured episode.
      [ "$status" -eq 1 ] || { cat "$work/log" >&2; exit 1; }
    }
    if [ -n "$pid" ]; then kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; fi
  done
done
python3 - "$work" "$compare" "$server" $seeds <<'PY'
import json, os, re, sys
work, compare, server, seeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
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
if server:
    def accepted(config):
        # llama-server logs "draft acceptance = 0.81 (   52 accepted /    64 generated)" per request.
        a = g = 0
        for s in seeds:
            for m in re.finditer(r"\(\s*(\d+) accepted /\s*(\d+) generated\)", open(f"{work}/{s}-{config}.log").read()):
                a, g = a + int(m[1]), g + int(m[2])
        return f"{a / g:.0%} of {g}" if g else "–"
    names = [("off", "sqale, --speculate off"), ("auto", "sqale, --speculate auto (default)")]
    if compare:
        names.append(("other", "COMPARE_BIN, off"))
    names += [("server-off", "llama.cpp server, plain"), ("server-ngram-mod", "llama.cpp server, ngram-mod"),
              ("server-ngram-simple", "llama.cpp server, ngram-simple")]
    def ms_per_token(config):
        runs = [load(s, config) for s in seeds]
        return 1000 * sum(r["episode_secs"] for r in runs) / sum(r["depth"] for r in runs)
    auto_ms = ms_per_token("auto")
    print()
    print("| configuration | context tokens | generated | episodes' seconds | ms per context token | time against sqale's default | drafts kept |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for config, name in names:
        runs = [load(s, config) for s in seeds]
        ctx, secs = sum(r["depth"] for r in runs), sum(r["episode_secs"] for r in runs)
        ms = 1000 * secs / ctx
        if config.startswith("server-"):
            kept = accepted(config)
        else:
            kept = f"{sum(r['accepted'] for r in runs) / max(1, sum(r['drafted'] for r in runs)):.0%}" if config == "auto" else "–"
        print(f"| {name} | {ctx} | {sum(r['gen'] for r in runs)} | {secs:.1f} | {ms:.2f} | {ms / auto_ms:.2f}× | {kept} |")
PY
