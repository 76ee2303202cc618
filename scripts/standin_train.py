#!/usr/bin/env python3
"""Train the stand-in: a tiny Qwen3.5 text model (hybrid Gated DeltaNet and gated full attention,
tied embeddings, rows a multiple of 256 wide) with an MTP head trained on the token after next, on
the expert episodes that `sqale play` wrote. CPU, fixed seed, resumable.

    python3 scripts/standin_train.py DATA/train-episodes.jsonl TOKENIZER_DIR RUN_DIR
        [--layers 6] [--hidden 256] [--ffn 1024] [--full-every 2] [--heads HIDDEN/64]
        [--tokens-per-step 8192 | --batch 4] [--steps 4400] [--lr 1e-3] [--decay-steps 3600]
        [--warmup N] [--seed 1] [--max-minutes M] [--stop-at STEP] [--threads N]
    python3 scripts/standin_train.py ... RUN_DIR --export CHECKPOINT_DIR

RUN_DIR/config.json records the model's size and the data order (and the schedule last used); a
run started again in RUN_DIR takes them from there, and refuses a flag that contradicts them.
RUN_DIR/state.pt is the last checkpoint (model, head, optimiser, step), written by rename every
--save-every steps and when the run stops (--stop-at, --max-minutes, SIGINT or SIGTERM), so a
stopped run resumes where it was with the losses it would have had. RUN_DIR/loss.jsonl is the loss
curve: {"step", "loss", "mtp_loss", "lr", "tokens" (real), "padded", "seconds", "tokens_per_s"}.
`--export` writes the checkpoint in the Hugging Face layout of the released models
(`Qwen3_5ForConditionalGeneration`: config with text and vision parts, `model.language_model.*`,
a small random `model.visual.*` tower, `mtp.*`), which `sqale convert` reads as it reads theirs.

Batches: with --tokens-per-step N (the default), each epoch's episodes are shuffled (seeded by
--seed and the epoch), sorted by length within buckets of 1,024, and packed into batches whose
padded size (episodes times the longest) is at most N; an episode longer than N is a batch alone;
the batches are then shuffled. With --batch B, each batch is B shuffled episodes (the committed
stand-in's order, kept so that its curve is reproducible).

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
import resource
import signal
import sys
import tempfile
import time

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from transformers import Qwen3_5Config, Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration  # noqa: E402
from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5DecoderLayer, Qwen3_5RMSNorm  # noqa: E402

# The model's size. Full attention every second layer (the 2B: every fourth). With one, in the last
# of 4 layers, the loss sat near 0.4 through step 760, the next token depending on the last token
# alone; with two it began to use the context near step 1,000 (docs/stand-in.md, "How it learnt").
SIZE_DEFAULTS = {"layers": 6, "hidden": 256, "ffn": 1024, "full_every": 2, "heads": None}
# The data order; a run in a RUN_DIR keeps these.
ORDER_DEFAULTS = {"tokens_per_step": 8192, "batch": None, "seed": 1}
# The schedule; a resumed run may change them (its curve is then another run's).
SCHEDULE_DEFAULTS = {"steps": 4400, "lr": 1e-3, "decay_steps": 3600, "warmup": None}
HEAD_DIM = 64
MTP_WEIGHT = 0.3
BUCKET = 1024  # episodes sorted by length together before they are packed


def check_size(size):
    """The size with `heads` filled in; exits naming the setting when a row would not be a multiple of 256."""
    size = dict(size)
    if size["heads"] is None:
        size["heads"] = size["hidden"] // HEAD_DIM
    problems = []
    for name, width in (("--hidden", size["hidden"]), ("--ffn", size["ffn"]),
                        ("--heads times 64", size["heads"] * HEAD_DIM)):
        if width <= 0 or width % 256:
            problems.append(f"{name} is {width}")
    if problems:
        sys.exit(f"standin_train: {', '.join(problems)}: every weight row must be a multiple of 256 wide "
                 "(so the K-quant types apply, as on the 2B); use 256, 512, 768, 1024, ... "
                 "(heads a multiple of 4)")
    if size["layers"] < 1 or size["full_every"] < 1:
        sys.exit("standin_train: --layers and --full-every must be at least 1")
    return size


def text_config(size, vocab, eos):
    hidden, heads = size["hidden"], size["heads"]
    return {
        "attention_bias": False, "attention_dropout": 0.0, "attn_output_gate": True, "bos_token_id": None,
        "dtype": "float32", "eos_token_id": eos, "full_attention_interval": size["full_every"],
        "head_dim": HEAD_DIM, "hidden_act": "silu", "hidden_size": hidden, "initializer_range": 0.02,
        "intermediate_size": size["ffn"],
        "layer_types": ["linear_attention" if (i + 1) % size["full_every"] else "full_attention"
                        for i in range(size["layers"])],
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": HEAD_DIM,
        "linear_num_key_heads": hidden // HEAD_DIM // 2, "linear_num_value_heads": hidden // HEAD_DIM,
        "linear_value_head_dim": HEAD_DIM, "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 16384, "model_type": "qwen3_5_text", "mtp_num_hidden_layers": 1,
        "mtp_use_dedicated_embeddings": False, "num_attention_heads": heads, "num_hidden_layers": size["layers"],
        "num_key_value_heads": max(1, heads // 2), "pad_token_id": None, "rms_norm_eps": 1e-6,
        # head_dim 64 * 0.25 = 16 rotary dims = 8 frequencies = mrope_section's sum.
        "rope_parameters": {"mrope_interleaved": True, "mrope_section": [3, 3, 2], "partial_rotary_factor": 0.25,
                            "rope_theta": 10000000.0, "rope_type": "default"},
        "tie_word_embeddings": True, "use_cache": True, "vocab_size": vocab,
    }


class MtpHead(torch.nn.Module):
    """The released checkpoints' `mtp.*` block, as llama.cpp's qwen35 MTP graph computes it."""

    def __init__(self, cfg):
        super().__init__()
        hidden = cfg.hidden_size
        self.pre_fc_norm_embedding = Qwen3_5RMSNorm(hidden, eps=cfg.rms_norm_eps)
        self.pre_fc_norm_hidden = Qwen3_5RMSNorm(hidden, eps=cfg.rms_norm_eps)
        self.fc = torch.nn.Linear(2 * hidden, hidden, bias=False)
        layer_cfg = type(cfg)(**{**cfg.to_dict(), "layer_types": ["full_attention"], "num_hidden_layers": 1})
        # SDPA with no mask is causal attention without an n-by-n mask in memory.
        layer_cfg._attn_implementation = "sdpa"
        self.layers = torch.nn.ModuleList([Qwen3_5DecoderLayer(layer_cfg, 0)])
        self.norm = Qwen3_5RMSNorm(hidden, eps=cfg.rms_norm_eps)

    def forward(self, h, next_embeds, position_embeddings):
        x = self.fc(torch.cat([self.pre_fc_norm_embedding(next_embeds), self.pre_fc_norm_hidden(h)], dim=-1))
        x = self.layers[0](x, position_embeddings=position_embeddings, attention_mask=None)
        if isinstance(x, tuple):
            x = x[0]
        return self.norm(x)


def encode_episode(segments, tok, im_end):
    """Token ids, loss mask (the completions and the `<|im_end|>` after each) and, for each token,
    (segment index, start, end) of its characters in that segment's text."""
    ids, mask, spans = [], [], []
    encoded = tok.encode_batch([text for text, _ in segments], add_special_tokens=False)
    for i, ((_, generated), enc) in enumerate(zip(segments, encoded)):
        ids += enc.ids
        mask += [1 if generated else 0] * len(enc.ids)
        spans += [(i, s, e) for s, e in enc.offsets]
        if generated and i + 1 == len(segments):
            # The episode's last completion (submit_sql) is closed by the model too.
            ids.append(im_end)
            mask.append(1)
            spans.append((i, -1, -1))
    # The `<|im_end|>` that opens the segment after a completion is the model's to write.
    for j in range(1, len(ids)):
        if ids[j] == im_end and mask[j - 1] == 1:
            mask[j] = 1
    return ids, mask, spans


def load_episodes(path, tok, limit=None):
    """(ids, mask) tensors of every episode (the first `limit`)."""
    im_end = tok.token_to_id("<|im_end|>")
    out = []
    with open(path) as f:
        for line in f:
            if limit is not None and len(out) >= limit:
                break
            ids, mask, _ = encode_episode(json.loads(line)["segments"], tok, im_end)
            out.append((torch.tensor(ids, dtype=torch.long), torch.tensor(mask, dtype=torch.bool)))
    return out


def count_batches(n, batch, seed, epoch):
    """The committed stand-in's order: `batch` shuffled episodes a step, the remainder dropped."""
    order = list(range(n))
    random.Random(seed * 1000003 + epoch).shuffle(order)
    return [order[i:i + batch] for i in range(0, len(order) - batch + 1, batch)]


def token_batches(lengths, budget, seed, epoch):
    """Batches whose padded size (episodes times the longest) is at most `budget` tokens."""
    rng = random.Random(seed * 1000003 + epoch)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    out = []
    for b in range(0, len(order), BUCKET):
        current = []
        for i in sorted(order[b:b + BUCKET], key=lambda i: lengths[i]):
            # Sorted, so episode i is the longest of the batch it joins.
            if current and (len(current) + 1) * lengths[i] > budget:
                out.append(current)
                current = []
            current.append(i)
        if current:
            out.append(current)
    rng.shuffle(out)
    return out


class DataOrder:
    """Which episodes each step trains on: a function of the step, the seed and the batching alone."""

    def __init__(self, lengths, seed, batch=None, tokens_per_step=None):
        self.lengths, self.seed, self.batch, self.tokens = lengths, seed, batch, tokens_per_step
        self.cached = (None, None)

    def epoch(self, e):
        if self.cached[0] != e:
            if self.batch:
                made = count_batches(len(self.lengths), self.batch, self.seed, e)
            else:
                made = token_batches(self.lengths, self.tokens, self.seed, e)
            self.cached = (e, made)
        return self.cached[1]

    def at(self, step):
        """(epoch, batch) of a step."""
        e = 0
        while step >= len(self.epoch(e)):
            step -= len(self.epoch(e))
            e += 1
        return e, self.epoch(e)[step]


def step_loss(model, head, episodes, idx, pad):
    seqs = [episodes[i] for i in idx]
    n = max(len(s[0]) for s in seqs)
    ids = torch.full((len(seqs), n), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.bool)
    for b, (s, m) in enumerate(seqs):
        ids[b, :len(s)] = s
        mask[b, :len(m)] = m
    # No attention mask: the padding is on the right, and every layer (causal attention, the
    # causal convolution and recurrence of the linear attention) only looks left, so a real
    # token never sees it; the padded rows are never scored. Attention runs as causal SDPA.
    out = model.model(input_ids=ids)
    h = out.last_hidden_state  # after the final norm: llama.cpp's h_nextn
    # The output layer only on the rows that are scored: the assistant's, a fifth of the tokens.
    keep = mask[:, 1:]
    loss = F.cross_entropy(model.lm_head(h[:, :-1][keep]), ids[:, 1:][keep])
    # The head: h[t] and the embedding of x[t+1] predict x[t+2].
    emb = model.model.embed_tokens(ids[:, 1:-1])
    pos = torch.arange(n - 2).unsqueeze(0).expand(len(seqs), -1)
    pe = model.model.rotary_emb(h, pos.unsqueeze(0).expand(3, -1, -1))
    g = head(h[:, :-2], emb, pe)
    keep2 = mask[:, 2:]
    mtp = F.cross_entropy(model.lm_head(g[keep2]), ids[:, 2:][keep2])
    return loss, mtp


def atomic_write(path, write):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_save(obj, path):
    atomic_write(path, lambda tmp: torch.save(obj, tmp))


def export(model, head, tok_dir, out, cfg_dict, tok):
    """The Hugging Face layout of the released models, with the head."""
    from safetensors.torch import load_file, save_file
    full = Qwen3_5Config(
        text_config={k: v for k, v in cfg_dict.items()},
        vision_config={"deepstack_visual_indexes": [], "depth": 1, "hidden_act": "gelu_pytorch_tanh",
                       "hidden_size": 32, "in_channels": 3, "initializer_range": 0.02, "intermediate_size": 64,
                       "model_type": "qwen3_5_vision", "num_heads": 2, "num_position_embeddings": 16,
                       "out_hidden_size": cfg_dict["hidden_size"], "patch_size": 16, "spatial_merge_size": 2,
                       "temporal_patch_size": 2},
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


def resolve_config(a, run):
    """The run's settings: the flags given, else RUN_DIR/config.json's, else the defaults. A flag
    that contradicts config.json's size or data order is refused: the checkpoint has that shape
    and the steps done had that order."""
    path = os.path.join(run, "config.json")
    recorded = json.load(open(path)) if os.path.exists(path) else {}
    given = {k: getattr(a, k) for k in (*SIZE_DEFAULTS, *ORDER_DEFAULTS, *SCHEDULE_DEFAULTS)}
    if given["batch"] is not None and given["tokens_per_step"] is not None:
        sys.exit("standin_train: --batch and --tokens-per-step are two ways to batch; give one")
    conf = {}
    for k, default in {**SIZE_DEFAULTS, **ORDER_DEFAULTS, **SCHEDULE_DEFAULTS}.items():
        if given[k] is not None:
            if k in recorded and k not in SCHEDULE_DEFAULTS and recorded[k] != given[k]:
                flag = "--" + k.replace("_", "-")
                was = f"with {flag} {recorded[k]}" if recorded[k] is not None else f"without {flag}"
                sys.exit(f"standin_train: {run} was trained {was}, not {flag} {given[k]}: "
                         f"leave {flag} out to go on with it, or use another RUN_DIR")
            conf[k] = given[k]
        else:
            conf[k] = recorded.get(k, default)
    if given["batch"] is not None:
        conf["tokens_per_step"] = None  # one batching at a time
    if not conf["batch"] and not conf["tokens_per_step"]:
        sys.exit("standin_train: --batch or --tokens-per-step must be above 0")
    conf.update(check_size({k: conf[k] for k in SIZE_DEFAULTS}))
    conf["decay_steps"] = min(conf["decay_steps"], conf["steps"])
    if conf["warmup"] is None:
        conf["warmup"] = min(200, conf["decay_steps"] // 10)
    return conf, path


def learning_rate(conf, step):
    """Linear warm-up, then a cosine from the peak to a tenth over decay_steps, then the tenth."""
    decayed = min(step, conf["decay_steps"]) / max(1, conf["decay_steps"])
    warm = min(1.0, (step + 1) / conf["warmup"]) if conf["warmup"] > 0 else 1.0
    return conf["lr"] * warm * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * decayed)))


def build(conf, tok):
    """Model and head, initialised from the seed."""
    torch.manual_seed(conf["seed"])
    cfg_dict = text_config({k: conf[k] for k in SIZE_DEFAULTS}, tok.get_vocab_size(), tok.token_to_id("<|im_end|>"))
    cfg = Qwen3_5ForCausalLM.config_class(**cfg_dict)
    model = Qwen3_5ForCausalLM(cfg)
    head = MtpHead(cfg)
    return model, head, cfg_dict


def load_state(model, head, opt, path, conf):
    st = torch.load(path, weights_only=False)
    try:
        model.load_state_dict(st["model"])
        head.load_state_dict(st["head"])
    except RuntimeError as e:
        size = " ".join(f"--{k.replace('_', '-')} {conf[k]}" for k in SIZE_DEFAULTS)
        sys.exit(f"standin_train: {path} is not a model of this size ({size}): give the size it was "
                 f"trained with\n{str(e).splitlines()[0]}")
    if opt is not None:
        opt.load_state_dict(st["opt"])
        torch.set_rng_state(st["rng"])
    return st["step"]


class StopRequest:
    """SIGINT or SIGTERM: stop after the current step and save. A second one stops at once (the
    last checkpoint is whole: it is written by rename)."""

    def __init__(self):
        self.why = None
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, self.handle)

    def handle(self, signum, _frame):
        self.why = signal.Signals(signum).name
        print(f"{self.why}: stopping after this step (again to stop at once)", file=sys.stderr, flush=True)
        signal.signal(signum, signal.SIG_DFL)


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("episodes")
    ap.add_argument("tokenizer")
    ap.add_argument("run")
    size = ap.add_argument_group("size (recorded in RUN_DIR/config.json; every row a multiple of 256)")
    size.add_argument("--layers", type=int, help="decoder layers (default 6)")
    size.add_argument("--hidden", type=int, help="hidden size (default 256)")
    size.add_argument("--ffn", type=int, help="feed-forward size (default 1024)")
    size.add_argument("--full-every", type=int,
                      help="every this many layers one is full attention, the others Gated DeltaNet (default 2)")
    size.add_argument("--heads", type=int, help="attention heads of 64 (default hidden/64; KV heads half)")
    order = ap.add_argument_group("data order (recorded in RUN_DIR/config.json)")
    order.add_argument("--tokens-per-step", type=int,
                       help="batches of episodes of about the same length, padded size at most this (default 8192)")
    order.add_argument("--batch", type=int, help="instead: this many shuffled episodes a step (the old order)")
    order.add_argument("--seed", type=int, help="initialisation and data order (default 1)")
    sched = ap.add_argument_group("schedule")
    sched.add_argument("--steps", type=int, help="training steps (default 4400)")
    sched.add_argument("--lr", type=float, help="peak learning rate (default 1e-3)")
    sched.add_argument("--decay-steps", type=int,
                       help="the cosine runs from the peak to a tenth of it over these steps, and the rate stays "
                            "at a tenth after them (default 3600; at most --steps)")
    sched.add_argument("--warmup", type=int, help="linear warm-up steps (default min(200, decay-steps/10))")
    ap.add_argument("--save-every", type=int, default=50)
    ap.add_argument("--threads", type=int, help="torch threads (default torch's: the cores)")
    ap.add_argument("--stop-at", type=int, help="stop after this step (as an interrupted run would)")
    ap.add_argument("--max-minutes", type=float, help="stop after the step that passes this many minutes, saved")
    ap.add_argument("--export", help="write the last checkpoint in the Hugging Face layout here and stop")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    conf, conf_path = resolve_config(a, a.run)
    os.makedirs(a.run, exist_ok=True)
    tok = Tokenizer.from_file(os.path.join(a.tokenizer, "tokenizer.json"))
    model, head, cfg_dict = build(conf, tok)
    params = list(model.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=conf["lr"], betas=(0.9, 0.95), weight_decay=0.01)
    state_path, log_path = os.path.join(a.run, "state.pt"), os.path.join(a.run, "loss.jsonl")
    step = 0
    if os.path.exists(state_path):
        step = load_state(model, head, opt, state_path, conf)
        print(f"resumed at step {step}", file=sys.stderr)
    if a.export:
        export(model, head, a.tokenizer, a.export, cfg_dict, tok)
        print(f"step {step} exported to {a.export}", file=sys.stderr)
        return
    def write_conf(tmp):
        with open(tmp, "w") as f:
            json.dump(conf, f, indent=1)
    atomic_write(conf_path, write_conf)
    # The loss curve holds exactly the steps of the checkpoint.
    kept = []
    if os.path.exists(log_path):
        kept = [line for line in open(log_path) if json.loads(line)["step"] <= step]
    with open(log_path, "w") as f:
        f.writelines(kept)
    episodes = load_episodes(a.episodes, tok)
    data = DataOrder([len(e[0]) for e in episodes], conf["seed"], conf["batch"], conf["tokens_per_step"])
    pad = tok.token_to_id("<|endoftext|>")
    last = min(conf["steps"], a.stop_at or conf["steps"])
    print(f"{len(episodes)} episodes, {sum(len(e[0]) for e in episodes)} tokens, "
          f"{sum(p.numel() for p in params)} parameters, {torch.get_num_threads()} threads; "
          f"steps {step} to {last} of {conf['steps']}; {json.dumps(conf)}", file=sys.stderr)
    stop = StopRequest()
    started = time.monotonic()
    log = open(log_path, "a")
    saved = step
    while step < last and stop.why is None:
        if a.max_minutes is not None and time.monotonic() - started >= a.max_minutes * 60:
            stop.why = f"{a.max_minutes:g} minutes"
            break
        t0 = time.monotonic()
        _, idx = data.at(step)
        lr = learning_rate(conf, step)
        for g in opt.param_groups:
            g["lr"] = lr
        loss, mtp = step_loss(model, head, episodes, idx, pad)
        opt.zero_grad(set_to_none=True)
        (loss + MTP_WEIGHT * mtp).backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        seconds = time.monotonic() - t0
        real = sum(len(episodes[i][0]) for i in idx)
        padded = len(idx) * max(len(episodes[i][0]) for i in idx)
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 6), "mtp_loss": round(mtp.item(), 6),
                              "lr": float(f"{lr:.6g}"), "tokens": real, "padded": padded,
                              "seconds": round(seconds, 3), "tokens_per_s": round(real / seconds, 1)}) + "\n")
        log.flush()
        if step % 10 == 0:
            print(f"step {step}/{conf['steps']} loss {loss.item():.4f} mtp {mtp.item():.4f} lr {lr:.2e} "
                  f"{real / seconds:.0f} tokens/s, peak RSS {peak_rss_mib()} MiB", file=sys.stderr, flush=True)
        if step % a.save_every == 0 or step == last:
            atomic_save({"model": model.state_dict(), "head": head.state_dict(), "opt": opt.state_dict(),
                         "step": step, "rng": torch.get_rng_state()}, state_path)
            saved = step
    if saved != step:
        atomic_save({"model": model.state_dict(), "head": head.state_dict(), "opt": opt.state_dict(),
                     "step": step, "rng": torch.get_rng_state()}, state_path)
    log.close()
    if step < conf["steps"]:
        print(f"stopped at step {step} of {conf['steps']} ({stop.why or '--stop-at'}; peak RSS "
              f"{peak_rss_mib()} MiB), saved in {state_path}: run the same command again (without "
              "--stop-at) to go on from there", file=sys.stderr)
    else:
        print(f"done: step {step}, peak RSS {peak_rss_mib()} MiB", file=sys.stderr)


if __name__ == "__main__":
    main()
