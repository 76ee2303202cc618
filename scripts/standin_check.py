#!/usr/bin/env python3
"""Check that the committed stand-in is what this repository's scripts make: the training
episodes (tests/fixtures/standin/train-episodes.jsonl.gz) against their checksum, the vocabulary
that scripts/standin_tokenizer.py trains on them against the committed one's checksum, and the
first steps of scripts/standin_train.py, with every setting training.json records, against the
committed loss curve (loss.jsonl).

    python3 scripts/standin_check.py [--steps 3] [--fixtures tests/fixtures/standin]

Needs what standin_train.py needs (scripts/standin-requirements.txt); .ci/standin installs it into
a throwaway environment and runs this. Exits 1 naming the first thing that differs.
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

from make_qwen35_tokenizer import sha256_file  # noqa: E402  (scripts/, standard library only)

HERE = os.path.dirname(os.path.abspath(__file__))
# Losses are printed to 6 decimals; another CPU may sum in another order.
TOLERANCE = 2e-3
LEGACY = {"layers": 4, "hidden": 256, "ffn": 768, "full_every": 2, "batch": 4}


def sums(path):
    """SHA256SUMS as {name: hex}."""
    out = {}
    for line in open(path):
        digest, name = line.split()
        out[name] = digest
    return out


def train_flags(meta):
    """standin_train.py's flags for the settings training.json records. A setting it leaves out has
    the value the first committed stand-in was trained with (4 layers, feed-forward 768, batches of
    4 episodes), from before training.json recorded it."""
    flags = []
    for key in ("steps", "lr", "seed", "decay_steps", "warmup", "layers", "hidden", "ffn", "full_every", "heads",
                "tokens_per_step", "batch"):
        value = meta.get(key, LEGACY.get(key))
        if key == "decay_steps" and value is None:
            value = meta["steps"]
        if key == "batch" and meta.get("tokens_per_step"):
            value = None
        if value is not None:
            flags += ["--" + key.replace("_", "-"), str(value)]
    return flags


def fail(message):
    print(f"standin_check: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3, help="training steps to compare (default 3)")
    ap.add_argument("--fixtures", default=os.path.join(HERE, "..", "tests", "fixtures", "standin"))
    a = ap.parse_args()
    want = sums(os.path.join(a.fixtures, "SHA256SUMS"))
    curve = [json.loads(l) for l in open(os.path.join(a.fixtures, "loss.jsonl"))]
    meta = json.load(open(os.path.join(a.fixtures, "training.json")))
    if len(curve) < a.steps:
        fail(f"loss.jsonl has {len(curve)} steps, fewer than the {a.steps} asked for")
    work = tempfile.mkdtemp(prefix="standin-check-")
    try:
        episodes = os.path.join(work, "train-episodes.jsonl")
        with gzip.open(os.path.join(a.fixtures, "train-episodes.jsonl.gz")) as src, open(episodes, "wb") as out:
            shutil.copyfileobj(src, out)
        if sha256_file(episodes) != want["train-episodes.jsonl"]:
            fail("train-episodes.jsonl.gz does not hold the episodes SHA256SUMS names")
        tok = os.path.join(work, "tokenizer")
        subprocess.run([sys.executable, os.path.join(HERE, "standin_tokenizer.py"), episodes, tok],
                       check=True, stdout=subprocess.DEVNULL)
        if sha256_file(os.path.join(tok, "tokenizer.json")) != want["tokenizer.json"]:
            fail("standin_tokenizer.py made another vocabulary than the committed stand-in's")
        run = os.path.join(work, "run")
        subprocess.run([sys.executable, os.path.join(HERE, "standin_train.py"), episodes, tok, run,
                        *train_flags(meta), "--stop-at", str(a.steps)],
                       check=True)
        got = [json.loads(l) for l in open(os.path.join(run, "loss.jsonl"))]
        for g, w in zip(got, curve[: a.steps]):
            for key in ("loss", "mtp_loss"):
                if abs(g[key] - w[key]) > TOLERANCE:
                    fail(f"step {w['step']}: {key} {g[key]} here, {w[key]} in the committed curve")
        if len(got) != a.steps:
            fail(f"the training logged {len(got)} steps, not {a.steps}")
        print(f"standin_check: episodes, vocabulary and the first {a.steps} losses match "
              f"({', '.join(str(g['loss']) for g in got)})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
