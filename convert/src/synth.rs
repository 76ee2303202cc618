//! Synthetic checkpoints: a Qwen3.5 checkpoint in the exact Hugging Face layout (names, shapes,
//! bf16, sharded with an index, a tokenizer) with random weights, for benchmarks and tests
//! before real weights are at hand. Written tensor by tensor: memory stays near one tensor.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use half::bf16;
use safetensors::tensor::{Dtype, View};
use serde_json::{json, Value};

use crate::ConvertError;

/// Dimensions of a synthetic model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Preset {
    /// Width of the residual stream.
    pub hidden: usize,
    /// Transformer blocks.
    pub layers: usize,
    /// Width of the MLP.
    pub ffn: usize,
    /// Query heads of the full-attention layers.
    pub heads: usize,
    /// Key/value heads of the full-attention layers.
    pub kv_heads: usize,
    /// Width of one full-attention head.
    pub head_dim: usize,
    /// Key heads of the linear-attention layers.
    pub lin_k_heads: usize,
    /// Value heads of the linear-attention layers.
    pub lin_v_heads: usize,
    /// Width of one linear-attention head.
    pub lin_head_dim: usize,
    /// Length of the linear-attention short convolution.
    pub conv_kernel: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Whether the output projection is the embedding (tied).
    pub tied: bool,
    /// Whether it has a (random) multi-token-prediction head, `mtp.*`, as Qwen's base releases
    /// do; without one it is laid out like a fine-tuned checkpoint saved by transformers.
    pub mtp: bool,
}

impl Preset {
    /// Qwen3.5-2B's text dimensions (published config): 24 layers, every 4th full attention.
    pub fn qwen35_2b() -> Self {
        Preset {
            hidden: 2048,
            layers: 24,
            ffn: 6144,
            heads: 8,
            kv_heads: 2,
            head_dim: 256,
            lin_k_heads: 16,
            lin_v_heads: 16,
            lin_head_dim: 128,
            conv_kernel: 4,
            vocab: 248_320,
            tied: true,
            mtp: true,
        }
    }

    /// A tiny model for tests: both layer kinds, key and value head counts that differ.
    pub fn tiny() -> Self {
        Preset {
            hidden: 64,
            layers: 4,
            ffn: 128,
            heads: 4,
            kv_heads: 2,
            head_dim: 16,
            lin_k_heads: 2,
            lin_v_heads: 4,
            lin_head_dim: 16,
            conv_kernel: 4,
            vocab: 0,
            tied: true,
            mtp: true,
        }
    }

    /// A small model whose every matrix row is a multiple of 256 wide, so that K-quant types
    /// (Q4_K, Q6_K: 256-value blocks) apply to all of its matrices, as on the real model; for
    /// tests of what a K-quant file does at a size that runs in seconds.
    pub fn small() -> Self {
        Preset {
            hidden: 256,
            layers: 4,
            ffn: 512,
            heads: 2,
            kv_heads: 1,
            head_dim: 128,
            lin_k_heads: 2,
            lin_v_heads: 2,
            lin_head_dim: 128,
            conv_kernel: 4,
            vocab: 0,
            tied: true,
            mtp: true,
        }
    }

    /// By name: `qwen3.5-2b`, `small` or `tiny`.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "qwen3.5-2b" => Some(Self::qwen35_2b()),
            "small" => Some(Self::small()),
            "tiny" => Some(Self::tiny()),
            _ => None,
        }
    }

    /// Every tensor of the text model, HF names and shapes (ConditionalGeneration layout).
    pub fn tensors(&self, vocab: usize) -> Vec<(String, Vec<usize>)> {
        let lm = "model.language_model.";
        let (e, kd, vd) = (self.hidden, self.lin_k_heads * self.lin_head_dim, self.lin_v_heads * self.lin_head_dim);
        let mut t = vec![(format!("{lm}embed_tokens.weight"), vec![vocab, e]), (format!("{lm}norm.weight"), vec![e])];
        for i in 0..self.layers {
            let p = format!("{lm}layers.{i}.");
            t.push((format!("{p}input_layernorm.weight"), vec![e]));
            t.push((format!("{p}post_attention_layernorm.weight"), vec![e]));
            t.push((format!("{p}mlp.gate_proj.weight"), vec![self.ffn, e]));
            t.push((format!("{p}mlp.up_proj.weight"), vec![self.ffn, e]));
            t.push((format!("{p}mlp.down_proj.weight"), vec![e, self.ffn]));
            if (i + 1) % 4 != 0 {
                let la = format!("{p}linear_attn.");
                t.push((format!("{la}in_proj_qkv.weight"), vec![2 * kd + vd, e]));
                t.push((format!("{la}in_proj_z.weight"), vec![vd, e]));
                t.push((format!("{la}in_proj_b.weight"), vec![self.lin_v_heads, e]));
                t.push((format!("{la}in_proj_a.weight"), vec![self.lin_v_heads, e]));
                t.push((format!("{la}conv1d.weight"), vec![2 * kd + vd, 1, self.conv_kernel]));
                t.push((format!("{la}dt_bias"), vec![self.lin_v_heads]));
                t.push((format!("{la}A_log"), vec![self.lin_v_heads]));
                t.push((format!("{la}norm.weight"), vec![self.lin_head_dim]));
                t.push((format!("{la}out_proj.weight"), vec![e, vd]));
            } else {
                let sa = format!("{p}self_attn.");
                t.push((format!("{sa}q_proj.weight"), vec![2 * self.heads * self.head_dim, e]));
                t.push((format!("{sa}k_proj.weight"), vec![self.kv_heads * self.head_dim, e]));
                t.push((format!("{sa}v_proj.weight"), vec![self.kv_heads * self.head_dim, e]));
                t.push((format!("{sa}o_proj.weight"), vec![e, self.heads * self.head_dim]));
                t.push((format!("{sa}q_norm.weight"), vec![self.head_dim]));
                t.push((format!("{sa}k_norm.weight"), vec![self.head_dim]));
            }
        }
        if !self.tied {
            t.push(("lm_head.weight".into(), vec![vocab, e]));
        }
        if self.mtp {
            // One dense full-attention block plus the fusion projection and its norms.
            let p = "mtp.layers.0.";
            t.push(("mtp.fc.weight".into(), vec![e, 2 * e]));
            t.push((format!("{p}input_layernorm.weight"), vec![e]));
            t.push((format!("{p}mlp.down_proj.weight"), vec![e, self.ffn]));
            t.push((format!("{p}mlp.gate_proj.weight"), vec![self.ffn, e]));
            t.push((format!("{p}mlp.up_proj.weight"), vec![self.ffn, e]));
            t.push((format!("{p}post_attention_layernorm.weight"), vec![e]));
            t.push((format!("{p}self_attn.k_norm.weight"), vec![self.head_dim]));
            t.push((format!("{p}self_attn.k_proj.weight"), vec![self.kv_heads * self.head_dim, e]));
            t.push((format!("{p}self_attn.o_proj.weight"), vec![e, self.heads * self.head_dim]));
            t.push((format!("{p}self_attn.q_norm.weight"), vec![self.head_dim]));
            t.push((format!("{p}self_attn.q_proj.weight"), vec![2 * self.heads * self.head_dim, e]));
            t.push((format!("{p}self_attn.v_proj.weight"), vec![self.kv_heads * self.head_dim, e]));
            t.push(("mtp.norm.weight".into(), vec![e]));
            t.push(("mtp.pre_fc_norm_embedding.weight".into(), vec![e]));
            t.push(("mtp.pre_fc_norm_hidden.weight".into(), vec![e]));
        }
        t
    }

    /// The `config.json` of a `Qwen3_5ForConditionalGeneration`.
    pub fn config(&self, vocab: usize, eos: u64) -> Value {
        let layer_types: Vec<&str> =
            (0..self.layers).map(|i| if (i + 1) % 4 == 0 { "full_attention" } else { "linear_attention" }).collect();
        json!({
            "architectures": ["Qwen3_5ForConditionalGeneration"],
            "model_type": "qwen3_5",
            "tie_word_embeddings": self.tied,
            "text_config": {
                "model_type": "qwen3_5_text", "hidden_size": self.hidden, "num_hidden_layers": self.layers,
                "intermediate_size": self.ffn, "num_attention_heads": self.heads, "num_key_value_heads": self.kv_heads,
                "head_dim": self.head_dim, "linear_num_key_heads": self.lin_k_heads, "linear_num_value_heads": self.lin_v_heads,
                "linear_key_head_dim": self.lin_head_dim, "linear_value_head_dim": self.lin_head_dim,
                "linear_conv_kernel_dim": self.conv_kernel, "layer_types": layer_types, "full_attention_interval": 4,
                "mtp_num_hidden_layers": 1, "mtp_use_dedicated_embeddings": false,
                "vocab_size": vocab, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6, "hidden_act": "silu",
                "rope_parameters": {"rope_type": "default", "rope_theta": 1.0e7, "partial_rotary_factor": 0.25,
                                    "mrope_section": [11, 11, 10], "mrope_interleaved": true},
                "tie_word_embeddings": self.tied, "eos_token_id": eos, "dtype": "bfloat16"
            }
        })
    }
}

/// A tensor generated when written (so no two are in memory at once).
struct Random {
    shape: Vec<usize>,
    seed: u64,
    scale: f32,
    offset: f32,
}

impl View for Random {
    fn dtype(&self) -> Dtype {
        Dtype::BF16
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        let n: usize = self.shape.iter().product();
        let mut x = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut out = Vec::with_capacity(n * 2);
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            out.extend_from_slice(&bf16::from_f32(self.offset + self.scale * u).to_le_bytes());
        }
        Cow::Owned(out)
    }
    fn data_len(&self) -> usize {
        self.shape.iter().product::<usize>() * 2
    }
}

/// Writes a synthetic checkpoint to `dir`: `config.json`, `generation_config.json`,
/// `tokenizer.json` and `tokenizer_config.json` copied from `tokenizer_dir` (a Qwen tokenizer:
/// its size sets the vocabulary unless the preset fixes one), and bf16 shards of at most
/// `shard_bytes` with `model.safetensors.index.json`. Returns the total bytes of weights.
pub fn write_checkpoint(
    dir: &Path,
    preset: &Preset,
    tokenizer_dir: &Path,
    shard_bytes: usize,
    seed: u64,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<u64, ConvertError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| ConvertError::Io { path: p.clone(), source: e }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let tok_path = tokenizer_dir.join("tokenizer.json");
    let tok_text = std::fs::read_to_string(&tok_path).map_err(io(&tok_path))?;
    let tok: Value = serde_json::from_str(&tok_text)
        .map_err(|e| ConvertError::BadJson { path: tok_path.clone(), reason: e.to_string() })?;
    let max_id =
        tok["model"]["vocab"].as_object().map(|v| v.values().filter_map(Value::as_u64).max().unwrap_or(0)).unwrap_or(0);
    let max_added = tok["added_tokens"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["id"].as_u64()).max().unwrap_or(0))
        .unwrap_or(0);
    let needed = max_id.max(max_added) as usize + 1;
    let vocab = if preset.vocab >= needed { preset.vocab } else { needed.div_ceil(64) * 64 };
    let eos = tok["added_tokens"]
        .as_array()
        .and_then(|a| a.iter().find(|t| t["content"] == "<|im_end|>"))
        .and_then(|t| t["id"].as_u64())
        .ok_or_else(|| {
            ConvertError::Tokenizer(format!("{} has no <|im_end|> token: use a Qwen tokenizer", tok_path.display()))
        })?;
    let write_json = |name: &str, v: &Value| -> Result<(), ConvertError> {
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).unwrap_or_default()).map_err(io(&p))
    };
    write_json("config.json", &preset.config(vocab, eos))?;
    write_json(
        "generation_config.json",
        &json!({"temperature": 0.6, "top_p": 0.95, "top_k": 20, "do_sample": true, "eos_token_id": [eos]}),
    )?;
    std::fs::write(dir.join("tokenizer.json"), &tok_text).map_err(io(dir))?;
    let tc_src = tokenizer_dir.join("tokenizer_config.json");
    let tc = if tc_src.is_file() {
        std::fs::read_to_string(&tc_src).map_err(io(&tc_src))?
    } else {
        serde_json::to_string_pretty(&json!({"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "add_bos_token": false,
            "chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}"})).unwrap_or_default()
    };
    std::fs::write(dir.join("tokenizer_config.json"), tc).map_err(io(dir))?;

    // Group tensors into shards of at most `shard_bytes`.
    let tensors = preset.tensors(vocab);
    let mut shards: Vec<Vec<(String, Vec<usize>)>> = vec![Vec::new()];
    let mut size = 0usize;
    for t in tensors {
        let bytes = t.1.iter().product::<usize>() * 2;
        if size + bytes > shard_bytes && !shards.last().is_some_and(Vec::is_empty) {
            shards.push(Vec::new());
            size = 0;
        }
        size += bytes;
        shards.last_mut().expect("non-empty").push(t);
    }
    let n = shards.len();
    let mut weight_map = BTreeMap::new();
    let mut total = 0u64;
    for (si, shard) in shards.into_iter().enumerate() {
        let file = format!("model-{:05}-of-{:05}.safetensors", si + 1, n);
        let views: Vec<(String, Random)> = shard
            .into_iter()
            .enumerate()
            .map(|(ti, (name, shape))| {
                total += shape.iter().product::<usize>() as u64 * 2;
                weight_map.insert(name.clone(), file.clone());
                // Norm weights near 0 (HF stores w for x·(1+w)), A_log near 0, others small.
                let (scale, offset) = if name.ends_with("A_log") {
                    (0.5, 0.0)
                } else if shape.len() == 1 {
                    (0.1, 0.0)
                } else {
                    (0.02, 0.0)
                };
                (name, Random { shape, seed: seed ^ ((si as u64) << 32 | ti as u64), scale, offset })
            })
            .collect();
        let path = dir.join(&file);
        safetensors::serialize_to_file(
            views,
            Some(std::collections::HashMap::from([("format".to_string(), "pt".to_string())])),
            &path,
        )
        .map_err(|e| ConvertError::BadShard { path: path.clone(), reason: format!("{e:?}") })?;
        progress(si + 1, n);
    }
    write_json("model.safetensors.index.json", &json!({"metadata": {"total_size": total}, "weight_map": weight_map}))?;
    Ok(total)
}
