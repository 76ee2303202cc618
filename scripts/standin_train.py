#!/usr/bin/env python3
"""Train the stand-in: a tiny Qwen3.5 text model (hybrid Gated DeltaNet and gated full attention,
tied embeddings, rows 256 wide) with an MTP head trained on the token after next, on the expert
episodes that `sqale play` wrote. CPU, fixed seed, resumable.

    python3 scripts/standin_train.py DATA/train-episodes.jsonl TOKENIZER_DIR RUN_DIR [--steps 4400] [--lr 1e-3]
        [--decay-steps 3600]
    python3 scripts/standin_train.py ... RUN_DIR --export CHECKPOINT_DIR

RUN_DIR/state.pt is the last checkpoint (model, head, optimiser, data order, step), written
every --save-every steps by rename, so a stopped run resumes where it was with the same losses
it would have had; RUN_DIR/loss.jsonl the loss curve ({"step", "loss", "mtp_loss"}).
`--export` writes the checkpoint in the Hugging Face layout of the released models
(`Qwen3_5ForConditionalGeneration`: config with text and vision parts, `model.language_model.*`,
a small random `model.visual.*` tower, `mtp.*`), which `sqale convert` reads as it reads theirs.

Loss: cross-entropy on the assistant's tokens only (each completion and the `<|im_end|>` that
closes it), plus 0.3 times the MTP head's cross-entropy on the token after next at the same
places. The head is llama.cpp's `qwen35` MTP graph: fc(concat(norm(embed(x[t+1])),
norm(h[t]))) through one full-attention decoder layer, its own norm, the tied output.

Needs torch, transformers==5.23.0, tokenizers, safetensors.
"""

import argparse
import json
import math
import os
import random
import sys
import tempfile

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from transformers import Qwen3_5Config, Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration  # noqa: E402
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5DecoderLayer, Qwen3_5RMSNorm  # noqa: E402

HIDDEN, FFN, LAYERS = 256, 768, 4
# Every second layer is full attention (the 2B: every fourth). With one, in the last layer, the
# loss sat near 0.4 through step 760, the next token depending on the last token alone; with two
# it began to use the context near step 1,000 (docs/stand-in.md, "How it learnt").
FULL_EVERY = 2
MTP_WEIGHT = 0.3


def text_config(vocab, eos):
    return {
        "attention_bias": False, "attention_dropout": 0.0, "attn_output_gate": True, "bos_token_id": None,
        "dtype": "float32", "eos_token_id": eos, "full_attention_interval": FULL_EVERY, "head_dim": 64,
        "hidden_act": "silu", "hidden_size": HIDDEN, "initializer_range": 0.02, "intermediate_size": FFN,
        "layer_types": ["linear_attention" if (i + 1) % FULL_EVERY else "full_attention" for i in range(LAYERS)],
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 64, "linear_num_key_heads": 2,
        "linear_num_value_heads": 4, "linear_value_head_dim": 64, "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 16384, "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 1,
        "mtp_use_dedicated_embeddings": False, "num_attention_heads": 4, "num_hidden_layers": LAYERS,
        "num_key_value_heads": 2, "pad_token_id": None, "rms_norm_eps": 1e-6,
        # head_dim 64 * 0.25 = 16 rotary dims = 8 frequencies = mrope_section's sum.
        "rope_parameters": {"mrope_interleaved": True, "mrope_section": [3, 3, 2], "partial_rotary_factor": 0.25,
                            "rope_theta": 10000000.0, "rope_type": "default"},
        "tie_word_embeddings": True, "use_cache": True, "vocab_size": vocab,
    }


class MtpHead(torch.nn.Module):
    """The released checkpoints' `mtp.*` block, as llama.cpp's qwen35 MTP graph computes it."""

    def __init__(self, cfg):
        super().__init__()
        self.pre_fc_norm_embedding = Qwen3_5RMSNorm(HIDDEN, eps=cfg.rms_norm_eps)
        self.pre_fc_norm_hidden = Qwen3_5RMSNorm(HIDDEN, eps=cfg.rms_norm_eps)
        self.fc = torch.nn.Linear(2 * HIDDEN, HIDDEN, bias=False)
        layer_cfg = type(cfg)(**{**cfg.to_dict(), "layer_types": ["full_attention"], "num_hidden_layers": 1})
        layer_cfg._attn_implementation = "eager"
        self.layers = torch.nn.ModuleList([Qwen3_5DecoderLayer(layer_cfg, 0)])
        self.norm = Qwen3_5RMSNorm(HIDDEN, eps=cfg.rms_norm_eps)

    def forward(self, h, next_embeds, position_embeddings, mask):
        x = self.fc(torch.cat([self.pre_fc_norm_embedding(next_embeds), self.pre_fc_norm_hidden(h)], dim=-1))
        x = self.layers[0](x, position_embeddings=position_embeddings, attention_mask=mask)
        if isinstance(x, tuple):
            x = x[0]
        return self.norm(x)


def load_episodes(path, tok):
    """Token ids and loss masks of every episode: the completions and the `<|im_end|>` after each."""
    im_end = tok.token_to_id("<|im_end|>")
    out = []
    with open(path) as f:
        for line in f:
            ids, mask = [], []
            segments = json.loads(line)["segments"]
            for i, (text, generated) in enumerate(segments):
                piece = tok.encode(text, add_special_tokens=False).ids
                ids += piece
                mask += [1 if generated else 0] * len(piece)
                if generated and i + 1 == len(segments):
                    # The episode's last completion (submit_sql) is closed by the model too.
                    ids.append(im_end)
                    mask.append(1)
            # The `<|im_end|>` that opens the segment after a completion is the model's to write.
            for j in range(1, len(ids)):
                if ids[j] == im_end and mask[j - 1] == 1:
                    mask[j] = 1
            out.append((ids, mask))
    return out


def batches(episodes, batch, seed, epoch):
    order = list(range(len(episodes)))
    random.Random(seed * 1000003 + epoch).shuffle(order)
    return [order[i:i + batch] for i in range(0, len(order) - batch + 1, batch)]


def step_loss(model, head, episodes, idx, pad):
    seqs = [episodes[i] for i in idx]
    n = max(len(s[0]) for s in seqs)
    ids = torch.full((len(seqs), n), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.bool)
    att = torch.zeros((len(seqs), n), dtype=torch.long)
    for b, (s, m) in enumerate(seqs):
        ids[b, :len(s)] = torch.tensor(s)
        mask[b, :len(m)] = torch.tensor(m, dtype=torch.bool)
        att[b, :len(s)] = 1
    out = model.model(input_ids=ids, attention_mask=att)
    h = out.last_hidden_state  # after the final norm: llama.cpp's h_nextn
    # The output layer only on the rows that are scored: the assistant's, a fifth of the tokens.
    keep = mask[:, 1:]
    loss = F.cross_entropy(model.lm_head(h[:, :-1][keep]), ids[:, 1:][keep])
    # The head: h[t] and the embedding of x[t+1] predict x[t+2].
    emb = model.model.embed_tokens(ids[:, 1:-1])
    pos = torch.arange(n - 2).unsqueeze(0).expand(len(seqs), -1)
    pe = model.model.rotary_emb(h, pos.unsqueeze(0).expand(3, -1, -1))
    causal = torch.full((n - 2, n - 2), float("-inf")).triu(1)[None, None]
    g = head(h[:, :-2], emb, pe, causal)
    keep2 = mask[:, 2:]
    mtp = F.cross_entropy(model.lm_head(g[keep2]), ids[:, 2:][keep2])
    return loss, mtp


def atomic_save(obj, path):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    os.close(fd)
    torch.save(obj, tmp)
    os.replace(tmp, path)


def export(model, head, tok_dir, out, cfg_dict, tok):
    """The Hugging Face layout of the released models, with the head."""
    from safetensors.torch import load_file, save_file
    full = Qwen3_5Config(
        text_config={k: v for k, v in cfg_dict.items()},
        vision_config={"deepstack_visual_indexes": [], "depth": 1, "hidden_act": "gelu_pytorch_tanh",
                       "hidden_size": 32, "in_channels": 3, "initializer_range": 0.02, "intermediate_size": 64,
                       "model_type": "qwen3_5_vision", "num_heads": 2, "num_position_embeddings": 16,
                       "out_hidden_size": HIDDEN, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
        tie_word_embeddings=True, image_token_id=0, video_token_id=0, vision_start_token_id=0,
        vision_end_token_id=0)
    full.architectures = ["Qwen3_5ForConditionalGeneration"]
    torch.manual_seed(0)
    cg = Qwen3_5ForConditionalGeneration(full)
    missing = cg.model.language_model.load_state_dict(model.model.state_dict(), strict=True)
    assert not missing.missing_keys and not missing.unexpected_keys, missing
    os.makedirs(out, exist_ok=True)
    cg.to(torch.bfloat16).save_pretrained(out)
    files = sorted(f for f in os.listdir(out) if f.endswith(".safetensors"))
    assert files == ["model.safetensors"], files
    tensors = load_file(os.path.join(out, "model.safetensors"))
    for k, v in head.state_dict().items():
        tensors[f"mtp.{k}"] = v.to(torch.bfloat16).contiguous()
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    for name in ("tokenizer.json", "tokenizer_config.json"):
        with open(os.path.join(tok_dir, name)) as src, open(os.path.join(out, name), "w") as dst:
            dst.write(src.read())
    eos = tok.token_to_id("<|im_end|>")
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump({"do_sample": True, "eos_token_id": [eos, tok.token_to_id("<|endoftext|>")],
                   "temperature": 0.6, "top_k": 20, "top_p": 0.95}, f, indent=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("episodes")
    ap.add_argument("tokenizer")
    ap.add_argument("run")
    ap.add_argument("--steps", type=int, default=4400)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (default 1e-3)")
    ap.add_argument("--decay-steps", type=int, default=3600,
                    help="the cosine runs from the peak to a tenth of it over these steps, and the rate stays "
                         "at a tenth after them (default 3600; at most --steps)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save-every", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--stop-at", type=int, help="stop after this step (as an interrupted run would)")
    ap.add_argument("--export", help="write the last checkpoint in the Hugging Face layout here and stop")
    a = ap.parse_args()
    a.decay_steps = min(a.decay_steps, a.steps)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    tok = Tokenizer.from_file(os.path.join(a.tokenizer, "tokenizer.json"))
    vocab = tok.get_vocab_size()
    cfg_dict = text_config(vocab, tok.token_to_id("<|im_end|>"))
    cfg = Qwen3_5ForCausalLM.config_class(**cfg_dict)
    model = Qwen3_5ForCausalLM(cfg)
    head = MtpHead(cfg)
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=a.lr, betas=(0.9, 0.95), weight_decay=0.01)
    os.makedirs(a.run, exist_ok=True)
    state_path, log_path = os.path.join(a.run, "state.pt"), os.path.join(a.run, "loss.jsonl")
    step = 0
    if os.path.exists(state_path):
        st = torch.load(state_path, weights_only=False)
        model.load_state_dict(st["model"])
        head.load_state_dict(st["head"])
        opt.load_state_dict(st["opt"])
        step = st["step"]
        torch.set_rng_state(st["rng"])
        print(f"resumed at step {step}", file=sys.stderr)
    if a.export:
        export(model, head, a.tokenizer, a.export, cfg_dict, tok)
        print(f"step {step} exported to {a.export}", file=sys.stderr)
        return
    # The loss curve holds exactly the steps of the checkpoint.
    kept = []
    if os.path.exists(log_path):
        kept = [l for l in open(log_path) if json.loads(l)["step"] <= step]
    with open(log_path, "w") as f:
        f.writelines(kept)
    episodes = load_episodes(a.episodes, tok)
    per_epoch = len(episodes) // a.batch
    warmup = min(200, a.decay_steps // 10)
    pad = tok.token_to_id("<|endoftext|>")
    print(f"{len(episodes)} episodes, {sum(len(e[0]) for e in episodes)} tokens, "
          f"{sum(p.numel() for p in params)} parameters; steps {step} to {a.steps}", file=sys.stderr)
    log = open(log_path, "a")
    while step < min(a.steps, a.stop_at or a.steps):
        epoch, k = divmod(step, per_epoch)
        idx = batches(episodes, a.batch, a.seed, epoch)[k]
        decayed = min(step, a.decay_steps) / a.decay_steps
        lr = a.lr * min(1.0, (step + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * decayed)))
        for g in opt.param_groups:
            g["lr"] = lr
        loss, mtp = step_loss(model, head, episodes, idx, pad)
        opt.zero_grad(set_to_none=True)
        (loss + MTP_WEIGHT * mtp).backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 6), "mtp_loss": round(mtp.item(), 6)}) + "\n")
        log.flush()
        if step % 10 == 0:
            print(f"step {step}/{a.steps} loss {loss.item():.4f} mtp {mtp.item():.4f} lr {lr:.2e}",
                  file=sys.stderr, flush=True)
        if step % a.save_every == 0 or step == a.steps or step == a.stop_at:
            atomic_save({"model": model.state_dict(), "head": head.state_dict(), "opt": opt.state_dict(),
                         "step": step, "rng": torch.get_rng_state()}, state_path)


if __name__ == "__main__":
    main()
