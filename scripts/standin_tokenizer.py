#!/usr/bin/env python3
"""A small byte-level BPE vocabulary for the trained stand-in, trained on its played episodes,
with the Qwen3.5 tokenizer's pipeline (NFC; the Qwen3.5 split regex, isolated; byte level), so
that `sqale convert` writes it as a `qwen35` GGUF vocabulary exactly as for the real model.

    python3 scripts/standin_tokenizer.py DATA/train-episodes.jsonl OUT_DIR [--vocab 4096]

writes OUT_DIR/tokenizer.json and OUT_DIR/tokenizer_config.json. The added tokens are Qwen's
names: `<|endoftext|>`, `<|im_start|>`, `<|im_end|>` (special) and `<think>`, `</think>` (not
special, as in Qwen3.5's list), after the BPE vocabulary; `--vocab` counts them.

Needs `tokenizers` (PyPI). Deterministic for the same input and tokenizers version.
"""

import argparse
import json
import os
import sys
import tempfile

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

# convert/src/tokenizer.rs QWEN35_REGEX: the Qwen3.5 split pattern (letters and marks together).
QWEN35_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
ADDED = [("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<think>", False), ("</think>", False)]


def texts(path):
    """Each episode's conversation, with the added tokens cut out (they are never merged)."""
    with open(path) as f:
        for line in f:
            text = "".join(seg[0] for seg in json.loads(line)["segments"])
            for name, _ in ADDED:
                text = text.replace(name, "\n")
            yield text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("episodes")
    ap.add_argument("out")
    ap.add_argument("--vocab", type=int, default=4096)
    a = ap.parse_args()
    if a.vocab < 256 + len(ADDED) + 1:
        sys.exit(f"--vocab {a.vocab} is below the byte alphabet and the added tokens; pass at least 262")
    tok = Tokenizer(models.BPE(unk_token=None, byte_fallback=False, ignore_merges=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN35_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(vocab_size=a.vocab - len(ADDED), min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
    tok.train_from_iterator(texts(a.episodes), trainer=trainer)
    tok.add_tokens([AddedToken(n, special=s, normalized=False) for n, s in ADDED if not s])
    tok.add_special_tokens([AddedToken(n, special=True, normalized=False) for n, s in ADDED if s])
    # Keep the added tokens in Qwen's order (endoftext, im_start, im_end, think, /think).
    data = json.loads(tok.to_str())
    base = data["model"]["vocab"]
    n = len(base)
    data["added_tokens"] = [
        {"id": n + i, "content": name, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": special} for i, (name, special) in enumerate(ADDED)]
    os.makedirs(a.out, exist_ok=True)
    config = {
        "tokenizer_class": "Qwen2Tokenizer", "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
        "bos_token": None, "add_bos_token": False, "model_max_length": 16384,
        "added_tokens_decoder": {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip",
                                                                   "single_word", "special")}
                                 for t in data["added_tokens"]},
    }
    for name, value in (("tokenizer.json", data), ("tokenizer_config.json", config)):
        fd, tmp = tempfile.mkstemp(dir=a.out, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(value, f, ensure_ascii=False, indent=1 if name.endswith("config.json") else None)
        os.replace(tmp, os.path.join(a.out, name))
    check = Tokenizer.from_file(os.path.join(a.out, "tokenizer.json"))
    probe = "<|im_start|>assistant\n<think>\nI list the tables.\n</think>\n\n{\"tool\": \"list_tables\"}<|im_end|>"
    ids = check.encode(probe, add_special_tokens=False).ids
    assert check.decode(ids, skip_special_tokens=False) == probe, "the vocabulary does not round-trip"
    assert ids[0] == n + 1 and ids[-1] == n + 2, ids
    print(f"{n + len(ADDED)} tokens ({n} BPE + {len(ADDED)} added) written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
