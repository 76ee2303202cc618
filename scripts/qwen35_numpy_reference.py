#!/usr/bin/env python3
"""Independent NumPy forward pass of a Qwen3.5 text model, checked against reference.json.

Usage: python scripts/qwen35_numpy_reference.py [VARIANT_DIR ...]
(default: every variant under convert/fixtures/qwen35-tiny/).

Needs numpy only (no torch/transformers/safetensors). It reads config.json
and the safetensors files directly, drops model.visual.* / mtp.*, strips the
"model.language_model." / "model." prefixes, and recomputes the logits of
reference.json in float64. This is written out from the maths, not by calling
transformers, so it pins down what a converter + inference engine must do:

* Qwen3_5RMSNorm (input/post-attention layernorm, final norm, q_norm, k_norm)
  scales by (1 + weight): the stored weights are zero-centred.
* The gated RMSNorm inside linear attention (linear_attn.norm) scales by weight
  (not 1 + weight), then multiplies by silu(z).
* Full attention: q_proj outputs [num_heads, 2*head_dim] per token; per head the
  first head_dim values are the query, the next head_dim the output gate; the
  attention output is multiplied by sigmoid(gate) before o_proj. q_norm/k_norm
  are per-head RMSNorms; RoPE (rotate-half style, NeoX) on the first
  head_dim*partial_rotary_factor dims only; GQA: kv head j serves query heads
  j*g .. j*g+g-1.
* Linear attention (gated delta net): in_proj_qkv -> causal depthwise conv1d
  (kernel K, left zero padding, weight [C,1,K]) -> silu -> split [q | k | v]
  (key_dim, key_dim, value_dim); q,k L2-normalised per head (eps 1e-6), q scaled
  by 1/sqrt(head_k_dim); key head i serves value heads i*r .. i*r+r-1
  (repeat_interleave, r = num_v/num_k); beta = sigmoid(in_proj_b);
  g = -exp(A_log) * softplus(in_proj_a + dt_bias); per token
  S = S*exp(g); S += k (x) ((v - k^T S) * beta); o = q^T S.
* Tied models have no lm_head.weight: logits use embed_tokens.weight.
"""

import json
import sys
from pathlib import Path

import numpy as np


def load_text_weights(folder):
    """All tensors of the checkpoint as float64, text weights only, prefixes stripped."""
    # Parse safetensors by hand (numpy has no bfloat16): 8-byte header length, JSON header, data.
    import struct
    res = {}
    for f in sorted(Path(folder).glob("*.safetensors")):
        data = f.read_bytes()
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + n])
        base = 8 + n
        for name, info in header.items():
            if name == "__metadata__":
                continue
            s, e = info["data_offsets"]
            raw = data[base + s: base + e]
            if info["dtype"] == "BF16":
                u16 = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
                arr = u16.view(np.float32)
            elif info["dtype"] == "F32":
                arr = np.frombuffer(raw, dtype="<f4")
            else:
                raise ValueError(info["dtype"])
            res[name] = arr.reshape(info["shape"]).astype(np.float64)
    out = {}
    for k, v in res.items():
        if k.startswith("model.visual.") or k.startswith("mtp."):
            continue
        for p in ("model.language_model.", "model."):
            if k.startswith(p):
                k = k[len(p):]
                break
        out[k] = v
    return out


def rms(x, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)


def silu(x):
    return x / (1.0 + np.exp(-x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def forward(cfg, W, tokens):
    tc = cfg.get("text_config", cfg)
    eps = tc["rms_norm_eps"]
    H = tc["hidden_size"]
    T = len(tokens)
    x = W["embed_tokens.weight"][tokens]
    for i, kind in enumerate(tc["layer_types"]):
        p = f"layers.{i}."
        h = rms(x, eps) * (1 + W[p + "input_layernorm.weight"])
        if kind == "linear_attention":
            nk, nv = tc["linear_num_key_heads"], tc["linear_num_value_heads"]
            dk, dv = tc["linear_key_head_dim"], tc["linear_value_head_dim"]
            K = tc["linear_conv_kernel_dim"]
            a = p + "linear_attn."
            qkv = h @ W[a + "in_proj_qkv.weight"].T  # [T, C]
            cw = W[a + "conv1d.weight"][:, 0, :]  # [C, K]
            padded = np.concatenate([np.zeros((K - 1, qkv.shape[1])), qkv], 0)
            conv = np.stack([(padded[t:t + K] * cw.T).sum(0) for t in range(T)])
            conv = silu(conv)
            q = conv[:, :nk * dk].reshape(T, nk, dk)
            k = conv[:, nk * dk:2 * nk * dk].reshape(T, nk, dk)
            v = conv[:, 2 * nk * dk:].reshape(T, nv, dv)
            z = (h @ W[a + "in_proj_z.weight"].T).reshape(T, nv, dv)
            beta = sigmoid(h @ W[a + "in_proj_b.weight"].T)  # [T, nv]
            g = -np.exp(W[a + "A_log"]) * softplus(h @ W[a + "in_proj_a.weight"].T + W[a + "dt_bias"])
            r = nv // nk
            q = np.repeat(q, r, axis=1)
            k = np.repeat(k, r, axis=1)
            q = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6) / np.sqrt(dk)
            k = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
            S = np.zeros((nv, dk, dv))
            o = np.zeros((T, nv, dv))
            for t in range(T):
                S = S * np.exp(g[t])[:, None, None]
                kv_mem = np.einsum("hk,hkv->hv", k[t], S)
                delta = (v[t] - kv_mem) * beta[t][:, None]
                S = S + np.einsum("hk,hv->hkv", k[t], delta)
                o[t] = np.einsum("hk,hkv->hv", q[t], S)
            o = rms(o, eps) * W[a + "norm.weight"] * silu(z)
            out = o.reshape(T, nv * dv) @ W[a + "out_proj.weight"].T
        else:
            nh, nkv, hd = tc["num_attention_heads"], tc["num_key_value_heads"], tc["head_dim"]
            a = p + "self_attn."
            qg = (h @ W[a + "q_proj.weight"].T).reshape(T, nh, 2 * hd)
            q, gate = qg[..., :hd], qg[..., hd:].reshape(T, nh * hd)
            q = rms(q, eps) * (1 + W[a + "q_norm.weight"])
            k = rms((h @ W[a + "k_proj.weight"].T).reshape(T, nkv, hd), eps) * (1 + W[a + "k_norm.weight"])
            v = (h @ W[a + "v_proj.weight"].T).reshape(T, nkv, hd)
            rp = tc["rope_parameters"]
            rd = int(hd * rp.get("partial_rotary_factor", 1.0))
            inv = 1.0 / (rp["rope_theta"] ** (np.arange(0, rd, 2) / rd))
            ang = np.arange(T)[:, None] * inv[None]  # text-only: T/H/W positions equal, mrope is plain rope
            cos = np.concatenate([np.cos(ang)] * 2, -1)[:, None, :]
            sin = np.concatenate([np.sin(ang)] * 2, -1)[:, None, :]

            def rope(u):
                r_, pass_ = u[..., :rd], u[..., rd:]
                half = rd // 2
                rot = np.concatenate([-r_[..., half:], r_[..., :half]], -1)
                return np.concatenate([r_ * cos + rot * sin, pass_], -1)

            q, k = rope(q), rope(k)
            grp = nh // nkv
            k = np.repeat(k, grp, axis=1)
            v = np.repeat(v, grp, axis=1)
            s = np.einsum("thd,shd->hts", q, k) / np.sqrt(hd)
            s = s + np.triu(np.full((T, T), -np.inf), 1)[None]
            s = np.exp(s - s.max(-1, keepdims=True))
            s = s / s.sum(-1, keepdims=True)
            o = np.einsum("hts,shd->thd", s, v).reshape(T, nh * hd) * sigmoid(gate)
            out = o @ W[a + "o_proj.weight"].T
        x = x + out
        h = rms(x, eps) * (1 + W[p + "post_attention_layernorm.weight"])
        m = p + "mlp."
        x = x + (silu(h @ W[m + "gate_proj.weight"].T) * (h @ W[m + "up_proj.weight"].T)) @ W[m + "down_proj.weight"].T
    x = rms(x, eps) * (1 + W["norm.weight"])
    head = W.get("lm_head.weight", W["embed_tokens.weight"])
    assert head.shape == (tc["vocab_size"], H)
    return x @ head.T


def check(folder):
    folder = Path(folder)
    cfg = json.loads((folder / "config.json").read_text())
    tc = cfg.get("text_config", cfg)
    ref = json.loads((folder / "reference.json").read_text())
    W = load_text_weights(folder)
    has_head = "lm_head.weight" in W
    assert has_head == (not tc["tie_word_embeddings"]), (folder, has_head)
    logits = forward(cfg, W, ref["tokens"])
    want = np.array(ref["logits"])
    err = np.abs(logits - want).max()
    rel = err / np.abs(want).max()
    am = (logits.argmax(-1) == np.array(ref["argmax"])).all()
    print(f"{folder.name}: max |numpy - reference| = {err:.2e} (rel {rel:.1e}), argmax equal: {am}")
    return err < 5e-3 and am


def main():
    repo = Path(__file__).resolve().parent.parent
    dirs = sys.argv[1:] or sorted(str(p.parent) for p in (repo / "convert/fixtures/qwen35-tiny").glob("*/reference.json"))
    ok = all([check(d) for d in dirs])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
