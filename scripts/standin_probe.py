#!/usr/bin/env python3
"""Does the stand-in copy? Teacher-forced top-1 accuracy of a checkpoint on the assistant's tokens
of some episodes: overall, on the tokens inside the SQL's string literals ('...'), and on the
tokens of identifiers in the JSON calls' arguments (the table_name, column_name, table_a, ...
values and the words of the SQL that are not keywords). Forward only: about a minute on 2 cores.

    python3 scripts/standin_probe.py MODEL EPISODES.jsonl [--limit 200] [--tokenizer DIR] [--json]

MODEL is a RUN_DIR of scripts/standin_train.py (its state.pt and config.json; the tokenizer from
--tokenizer, default RUN_DIR/../tokenizer as scripts/make-standin lays them out), a state.pt in
such a directory, or a checkpoint that `--export` wrote (its tokenizer with it). The tokens and the
scored rows are the training's (standin_train.encode_episode).

Needs what standin_train.py needs (scripts/standin-requirements.txt).
"""

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_train as st  # noqa: E402
import torch  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from transformers import Qwen3_5ForCausalLM  # noqa: E402

SQL_KEYWORDS = set("""
select from where group by order limit offset having join inner left right outer cross natural on using as
distinct count sum avg min max and or not in is null like glob between case when then else end asc desc
union all intersect except exists cast collate nocase lower upper length round abs coalesce ifnull substr
strftime date datetime julianday total true false
""".split())
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LITERAL = re.compile(r"'(?:[^']|'')*'")


def load_model(path, tokenizer):
    """(model, tokenizer) from a RUN_DIR, a state.pt in one, or an exported checkpoint."""
    if os.path.isfile(path):
        run, state = os.path.dirname(path) or ".", path
    else:
        run, state = path, os.path.join(path, "state.pt")
    if os.path.exists(state):
        conf_path = os.path.join(run, "config.json")
        if not os.path.exists(conf_path):
            sys.exit(f"standin_probe: {conf_path} is missing: the run's size is recorded there "
                     "(a run of an older standin_train.py: export it with its size flags and probe the export)")
        conf = json.load(open(conf_path))
        tok_dir = tokenizer or os.path.join(run, "..", "tokenizer")
        tok = Tokenizer.from_file(os.path.join(tok_dir, "tokenizer.json"))
        model, head, _ = st.build(conf, tok)
        st.load_state(model, head, None, state, conf)
        return model, tok
    weights = os.path.join(path, "model.safetensors")
    if not os.path.exists(weights):
        sys.exit(f"standin_probe: {path} is neither a training run (state.pt) nor an exported checkpoint "
                 "(model.safetensors)")
    from safetensors.torch import load_file
    text = json.load(open(os.path.join(path, "config.json")))["text_config"]
    model = Qwen3_5ForCausalLM(Qwen3_5ForCausalLM.config_class(**text))
    prefix = "model.language_model."
    tensors = {"model." + k[len(prefix):]: v.float() for k, v in load_file(weights).items() if k.startswith(prefix)}
    got = model.load_state_dict(tensors, strict=False)
    wrong = [k for k in got.missing_keys if k != "lm_head.weight"] + got.unexpected_keys
    if wrong:
        sys.exit(f"standin_probe: {weights} does not fit its config.json: {', '.join(wrong[:5])}")
    model.tie_weights()
    model.float()  # the export is bfloat16; the training computes in float32
    tok = Tokenizer.from_file(os.path.join(tokenizer or path, "tokenizer.json"))
    return model, tok


def call_regions(text):
    """(literal, identifier) character ranges of the JSON calls in one completion."""
    literal, ident = [], []
    decoder = json.JSONDecoder()
    pos = text.find('{"tool"')
    while pos >= 0:
        try:
            call, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find('{"tool"', pos + 1)
            continue
        args = call.get("args") if isinstance(call, dict) else None
        at = pos
        for key, value in (args.items() if isinstance(args, dict) else ()):
            if not isinstance(value, str):
                continue
            found = -1
            for ascii_only in (False, True):
                found = text.find(json.dumps(value, ensure_ascii=ascii_only), at, end)
                if found >= 0:
                    encoded = json.dumps(value, ensure_ascii=ascii_only)
                    break
            if found < 0:
                continue
            start, inner = found + 1, encoded[1:-1]
            at = found + len(encoded)
            if key != "sql":
                ident.append((start, start + len(inner)))
                continue
            blanked = list(inner)
            for m in LITERAL.finditer(inner):
                literal.append((start + m.start() + 1, start + m.end() - 1))
                blanked[m.start():m.end()] = " " * (m.end() - m.start())
            for m in WORD.finditer("".join(blanked)):
                escaped = m.start() > 0 and inner[m.start() - 1] == "\\"
                if m.group().lower() not in SQL_KEYWORDS and not escaped:
                    ident.append((start + m.start(), start + m.end()))
        pos = text.find('{"tool"', end)
    return literal, ident


def overlaps(span, regions):
    s, e = span
    return s >= 0 and any(s < re_ and e > rs for rs, re_ in regions)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("episodes")
    ap.add_argument("--limit", type=int, default=200, help="episodes probed, the file's first (default 200)")
    ap.add_argument("--tokenizer", help="the tokenizer's directory (default: the model's, as above)")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--tokens-per-batch", type=int, default=8192, help="padded tokens a forward pass (default 8192)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    model, tok = load_model(a.model, a.tokenizer)
    model.eval()
    im_end = tok.token_to_id("<|im_end|>")
    pad = tok.token_to_id("<|endoftext|>")
    counts = {k: [0, 0] for k in ("assistant", "literal", "identifier", "other")}
    started, probed = time.monotonic(), []
    with open(a.episodes) as f:
        for line in f:
            if len(probed) >= a.limit:
                break
            segments = json.loads(line)["segments"]
            ids, mask, spans = st.encode_episode(segments, tok, im_end)
            regions = {i: call_regions(text) for i, (text, generated) in enumerate(segments) if generated}
            probed.append((torch.tensor(ids), torch.tensor(mask, dtype=torch.bool), spans, regions))
    # Batches of episodes of about the same length, as in training (padding on the right).
    lengths = [len(p[0]) for p in probed]
    with torch.no_grad():
        for batch in st.token_batches(lengths, a.tokens_per_batch, 0, 0):
            n = max(lengths[i] for i in batch)
            ids = torch.full((len(batch), n), pad, dtype=torch.long)
            for b, i in enumerate(batch):
                ids[b, :lengths[i]] = probed[i][0]
            hidden = model.model(input_ids=ids, use_cache=False).last_hidden_state
            for b, i in enumerate(batch):
                seq, mask, spans, regions = probed[i]
                keep = mask[1:]
                right = (model.lm_head(hidden[b, :len(seq) - 1][keep]).argmax(-1) == seq[1:][keep]).tolist()
                targets = [j for j in range(1, len(seq)) if mask[j]]
                for j, ok in zip(targets, right):
                    seg, s, e = spans[j]
                    literal, ident = regions.get(seg, ([], []))
                    if overlaps((s, e), literal):
                        kind = "literal"
                    elif overlaps((s, e), ident):
                        kind = "identifier"
                    else:
                        kind = "other"
                    for k in ("assistant", kind):
                        counts[k][0] += ok
                        counts[k][1] += 1
    n = len(probed)
    result = {k: {"accuracy": round(c[0] / c[1], 4) if c[1] else None, "tokens": c[1]} for k, c in counts.items()}
    result["episodes"] = n
    result["seconds"] = round(time.monotonic() - started, 1)
    if a.json:
        print(json.dumps(result))
        return
    print(f"teacher-forced top-1 on {n} episodes ({result['seconds']} s):")
    for k in counts:
        r = result[k]
        acc = "-" if r["accuracy"] is None else f"{100 * r['accuracy']:.1f} %"
        print(f"  {k:<11} {acc:>8}  of {r['tokens']} tokens")


if __name__ == "__main__":
    main()
