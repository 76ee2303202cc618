//! Synthetic checkpoints: a Qwen3.5 checkpoint in the exact Hugging Face layout (names, shapes,
//! bf16, sharded with an index, a tokenizer) with random weights, for benchmarks and tests
//! before real weights are at hand. Written tensor by tensor: memory stays near one tensor.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use half::bf16;
use safetensors::tensor::{Dtype, View};
use serde_json::{json, Value};

use crate::qwen35::Hparams;
use crate::ConvertError;

/// A synthetic model: the dimensions of Qwen3.5's text model, and what the checkpoint carries
/// beside its trunk.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Preset {
    /// The dimensions, as [`Hparams::from_checkpoint`] reads them back from the config written.
    /// `vocab` is a least size: a checkpoint is written with the tokenizer's vocabulary when that
    /// is larger (0: always the tokenizer's).
    pub hparams: Hparams,
    /// Whether the output projection is the embedding (tied).
    pub tied: bool,
    /// Whether it has a (random) multi-token-prediction head, `mtp.*`, as Qwen's base releases
    /// do; without one it is laid out like a fine-tuned checkpoint saved by transformers.
    pub mtp: bool,
}

/// Every preset's layers come in groups of this many, the last of each full attention.
const FULL_ATTENTION_INTERVAL: usize = 4;

/// What the presets take from Qwen3.5's published config beside the sizes (which are each
/// preset's; `rope_dims` and `recurrent` follow from them, see [`Preset::qwen35`]).
const PUBLISHED: Hparams = Hparams {
    hidden: 0,
    layers: 0,
    ffn: 0,
    heads: 0,
    kv_heads: 0,
    head_dim: 0,
    lin_k_heads: 0,
    lin_v_heads: 0,
    lin_k_dim: 0,
    lin_v_dim: 0,
    conv_kernel: 4,
    vocab: 0,
    context: 262_144,
    rope_theta: 1.0e7,
    rope_dims: 0,
    mrope_sections: [11, 11, 10, 0],
    rms_eps: 1e-6,
    recurrent: Vec::new(),
    nextn_layers: 0,
};

impl Preset {
    /// Qwen3.5 at the sizes of `h`: every 4th layer full attention, a quarter of each head
    /// rotated (RoPE), a tied output head and an MTP head.
    fn qwen35(h: Hparams) -> Self {
        let recurrent = (0..h.layers).map(|i| (i + 1) % FULL_ATTENTION_INTERVAL != 0).collect();
        Preset { hparams: Hparams { rope_dims: h.head_dim / 4, recurrent, ..h }, tied: true, mtp: true }
    }

    /// Qwen3.5-2B's text dimensions (published config): 24 layers, every 4th full attention.
    pub fn qwen35_2b() -> Self {
        Self::qwen35(Hparams {
            hidden: 2048,
            layers: 24,
            ffn: 6144,
            heads: 8,
            kv_heads: 2,
            head_dim: 256,
            lin_k_heads: 16,
            lin_v_heads: 16,
            lin_k_dim: 128,
            lin_v_dim: 128,
            vocab: 248_320,
            ..PUBLISHED
        })
    }

    /// A tiny model for tests: both layer kinds, key and value head counts that differ.
    pub fn tiny() -> Self {
        Self::qwen35(Hparams {
            hidden: 64,
            layers: 4,
            ffn: 128,
            heads: 4,
            kv_heads: 2,
            head_dim: 16,
            lin_k_heads: 2,
            lin_v_heads: 4,
            lin_k_dim: 16,
            lin_v_dim: 16,
            ..PUBLISHED
        })
    }

    /// A small model whose every matrix row is a multiple of 256 wide, so that K-quant types
    /// (Q4_K, Q6_K: 256-value blocks) apply to all of its matrices, as on the real model; for
    /// tests of what a K-quant file does at a size that runs in seconds.
    pub fn small() -> Self {
        Self::qwen35(Hparams {
            hidden: 256,
            layers: 4,
            ffn: 512,
            heads: 2,
            kv_heads: 1,
            head_dim: 128,
            lin_k_heads: 2,
            lin_v_heads: 2,
            lin_k_dim: 128,
            lin_v_dim: 128,
            ..PUBLISHED
        })
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
    pub fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        let h = &self.hparams;
        let lm = "model.language_model.";
        let (e, kd, vd) = (h.hidden, h.lin_k_heads * h.lin_k_dim, h.lin_v_heads * h.lin_v_dim);
        let mut t = vec![(format!("{lm}embed_tokens.weight"), vec![h.vocab, e]), (format!("{lm}norm.weight"), vec![e])];
        for (i, &recurrent) in h.recurrent.iter().enumerate() {
            let p = format!("{lm}layers.{i}.");
            t.push((format!("{p}input_layernorm.weight"), vec![e]));
            t.push((format!("{p}post_attention_layernorm.weight"), vec![e]));
            t.push((format!("{p}mlp.gate_proj.weight"), vec![h.ffn, e]));
            t.push((format!("{p}mlp.up_proj.weight"), vec![h.ffn, e]));
            t.push((format!("{p}mlp.down_proj.weight"), vec![e, h.ffn]));
            if recurrent {
                let la = format!("{p}linear_attn.");
                t.push((format!("{la}in_proj_qkv.weight"), vec![2 * kd + vd, e]));
                t.push((format!("{la}in_proj_z.weight"), vec![vd, e]));
                t.push((format!("{la}in_proj_b.weight"), vec![h.lin_v_heads, e]));
                t.push((format!("{la}in_proj_a.weight"), vec![h.lin_v_heads, e]));
                t.push((format!("{la}conv1d.weight"), vec![2 * kd + vd, 1, h.conv_kernel]));
                t.push((format!("{la}dt_bias"), vec![h.lin_v_heads]));
                t.push((format!("{la}A_log"), vec![h.lin_v_heads]));
                t.push((format!("{la}norm.weight"), vec![h.lin_v_dim]));
                t.push((format!("{la}out_proj.weight"), vec![e, vd]));
            } else {
                let sa = format!("{p}self_attn.");
                t.push((format!("{sa}q_proj.weight"), vec![2 * h.heads * h.head_dim, e]));
                t.push((format!("{sa}k_proj.weight"), vec![h.kv_heads * h.head_dim, e]));
                t.push((format!("{sa}v_proj.weight"), vec![h.kv_heads * h.head_dim, e]));
                t.push((format!("{sa}o_proj.weight"), vec![e, h.heads * h.head_dim]));
                t.push((format!("{sa}q_norm.weight"), vec![h.head_dim]));
                t.push((format!("{sa}k_norm.weight"), vec![h.head_dim]));
            }
        }
        if !self.tied {
            t.push(("lm_head.weight".into(), vec![h.vocab, e]));
        }
        if self.mtp {
            // One dense full-attention block plus the fusion projection and its norms.
            let p = "mtp.layers.0.";
            t.push(("mtp.fc.weight".into(), vec![e, 2 * e]));
            t.push((format!("{p}input_layernorm.weight"), vec![e]));
            t.push((format!("{p}mlp.down_proj.weight"), vec![e, h.ffn]));
            t.push((format!("{p}mlp.gate_proj.weight"), vec![h.ffn, e]));
            t.push((format!("{p}mlp.up_proj.weight"), vec![h.ffn, e]));
            t.push((format!("{p}post_attention_layernorm.weight"), vec![e]));
            t.push((format!("{p}self_attn.k_norm.weight"), vec![h.head_dim]));
            t.push((format!("{p}self_attn.k_proj.weight"), vec![h.kv_heads * h.head_dim, e]));
            t.push((format!("{p}self_attn.o_proj.weight"), vec![e, h.heads * h.head_dim]));
            t.push((format!("{p}self_attn.q_norm.weight"), vec![h.head_dim]));
            t.push((format!("{p}self_attn.q_proj.weight"), vec![2 * h.heads * h.head_dim, e]));
            t.push((format!("{p}self_attn.v_proj.weight"), vec![h.kv_heads * h.head_dim, e]));
            t.push(("mtp.norm.weight".into(), vec![e]));
            t.push(("mtp.pre_fc_norm_embedding.weight".into(), vec![e]));
            t.push(("mtp.pre_fc_norm_hidden.weight".into(), vec![e]));
        }
        t
    }

    /// The `config.json` of a `Qwen3_5ForConditionalGeneration` with these dimensions.
    pub fn config(&self, eos: u64) -> Value {
        let h = &self.hparams;
        let layer_types: Vec<&str> =
            h.recurrent.iter().map(|&r| if r { "linear_attention" } else { "full_attention" }).collect();
        // HF's three sections (text, height, width); llama.cpp's fourth is padding.
        let mrope = if h.mrope_sections[3] == 0 { &h.mrope_sections[..3] } else { &h.mrope_sections[..] };
        let partial_rotary = h.rope_dims as f64 / h.head_dim as f64;
        let mut config = json!({
            "architectures": ["Qwen3_5ForConditionalGeneration"],
            "model_type": "qwen3_5",
            "tie_word_embeddings": self.tied,
            "text_config": {
                "model_type": "qwen3_5_text", "hidden_size": h.hidden, "num_hidden_layers": h.layers,
                "intermediate_size": h.ffn, "num_attention_heads": h.heads, "num_key_value_heads": h.kv_heads,
                "head_dim": h.head_dim, "linear_num_key_heads": h.lin_k_heads, "linear_num_value_heads": h.lin_v_heads,
                "linear_key_head_dim": h.lin_k_dim, "linear_value_head_dim": h.lin_v_dim,
                "linear_conv_kernel_dim": h.conv_kernel, "layer_types": layer_types,
                "mtp_num_hidden_layers": 1, "mtp_use_dedicated_embeddings": false,
                "vocab_size": h.vocab, "max_position_embeddings": h.context, "rms_norm_eps": decimal(h.rms_eps),
                "hidden_act": "silu",
                "rope_parameters": {"rope_type": "default", "rope_theta": decimal(h.rope_theta),
                                    "partial_rotary_factor": partial_rotary,
                                    "mrope_section": mrope, "mrope_interleaved": true},
                "tie_word_embeddings": self.tied, "eos_token_id": eos, "dtype": "bfloat16"
            }
        });
        if let Some(n) = h.full_attention_interval() {
            config["text_config"]["full_attention_interval"] = json!(n);
        }
        config
    }
}

/// `x` as the decimal it is written as (`1e-6`, not the `9.99999997e-7` of its exact value), as
/// a config file states it.
fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
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
    let same =
        |a: &Path, b: &Path| std::fs::canonicalize(a).ok().is_some_and(|a| Some(a) == std::fs::canonicalize(b).ok());
    if same(dir, tokenizer_dir) {
        return Err(crate::atomic::OutputError::IsInput {
            output: dir.to_path_buf(),
            what: "the tokenizer's folder".into(),
            input: tokenizer_dir.to_path_buf(),
            how: "",
        }
        .into());
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let tok_path = tokenizer_dir.join("tokenizer.json");
    let tok_text = crate::regular_file::read_text_at_most(&tok_path, crate::regular_file::MAX_CONFIG_BYTES)
        .map_err(io(&tok_path))?;
    let tok: Value = serde_json::from_str(&tok_text)
        .map_err(|e| ConvertError::BadJson { path: tok_path.clone(), reason: e.to_string() })?;
    let max_id =
        tok["model"]["vocab"].as_object().map(|v| v.values().filter_map(Value::as_u64).max().unwrap_or(0)).unwrap_or(0);
    let max_added = tok["added_tokens"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["id"].as_u64()).max().unwrap_or(0))
        .unwrap_or(0);
    let needed = max_id.max(max_added) as usize + 1;
    let least = preset.hparams.vocab;
    let vocab = if least >= needed { least } else { needed.div_ceil(64) * 64 };
    let preset = Preset { hparams: Hparams { vocab, ..preset.hparams.clone() }, ..preset.clone() };
    let eos = tok["added_tokens"]
        .as_array()
        .and_then(|a| a.iter().find(|t| t["content"] == "<|im_end|>"))
        .and_then(|t| t["id"].as_u64())
        .ok_or_else(|| {
            ConvertError::Tokenizer(format!("{} has no <|im_end|> token: use a Qwen tokenizer", tok_path.display()))
        })?;
    let write_json = |name: &str, v: &Value| -> Result<(), ConvertError> {
        let p = dir.join(name);
        crate::atomic::write(&p, serde_json::to_string_pretty(v).unwrap_or_default()).map_err(io(&p))
    };
    write_json("config.json", &preset.config(eos))?;
    write_json(
        "generation_config.json",
        &json!({"temperature": 0.6, "top_p": 0.95, "top_k": 20, "do_sample": true, "eos_token_id": [eos]}),
    )?;
    crate::atomic::write(dir.join("tokenizer.json"), &tok_text).map_err(io(dir))?;
    let tc_src = tokenizer_dir.join("tokenizer_config.json");
    let tc = if tc_src.is_file() {
        crate::regular_file::read_text_at_most(&tc_src, crate::regular_file::MAX_CONFIG_BYTES).map_err(io(&tc_src))?
    } else {
        serde_json::to_string_pretty(&json!({"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "add_bos_token": false,
            "chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}"})).unwrap_or_default()
    };
    crate::atomic::write(dir.join("tokenizer_config.json"), tc).map_err(io(dir))?;

    // Group tensors into shards of at most `shard_bytes`.
    let tensors = preset.tensors();
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
        // Whole or not at all: written under a temporary name, renamed when complete.
        let tmp = crate::atomic::AtomicFile::create(&path).map_err(io(&path))?;
        safetensors::serialize_to_file(
            views,
            Some(std::collections::HashMap::from([("format".to_string(), "pt".to_string())])),
            tmp.temp_path(),
        )
        .map_err(|e| ConvertError::BadShard { path: path.clone(), reason: format!("{e:?}") })?;
        tmp.commit().map_err(io(&path))?;
        progress(si + 1, n);
    }
    write_json("model.safetensors.index.json", &json!({"metadata": {"total_size": total}, "weight_map": weight_map}))?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::Checkpoint;

    /// The config a preset writes is read back as the preset's dimensions: the shape is
    /// declared once, in the preset's `Hparams`.
    #[test]
    fn each_preset_reads_back_as_its_hparams() {
        for name in ["qwen3.5-2b", "small", "tiny"] {
            let mut preset = Preset::by_name(name).expect("a preset");
            preset.hparams.vocab = preset.hparams.vocab.max(1024);
            let ck = Checkpoint {
                dir: Default::default(),
                config: preset.config(7),
                architecture: "Qwen3_5ForConditionalGeneration".into(),
                shards: Vec::new(),
                tensors: Default::default(),
                tokenizer: Value::Null,
                tokenizer_config: None,
                chat_template: None,
                generation_config: None,
            };
            assert_eq!(Hparams::from_checkpoint(&ck).expect("readable"), preset.hparams, "{name}");
        }
    }

    #[test]
    fn config_numbers_are_the_published_decimals() {
        let config = Preset::qwen35_2b().config(0);
        let text = &config["text_config"];
        assert_eq!(text["rms_norm_eps"], json!(1e-6));
        assert_eq!(text["rope_parameters"]["rope_theta"], json!(1.0e7));
        assert_eq!(text["rope_parameters"]["partial_rotary_factor"], json!(0.25));
        assert_eq!(text["rope_parameters"]["mrope_section"], json!([11, 11, 10]));
        assert_eq!(text["full_attention_interval"], json!(4));
    }
}
