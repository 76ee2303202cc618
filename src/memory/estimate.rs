//! What a model needs in memory at a context size, from its GGUF metadata: weights, the KV cache
//! of the full-attention layers (f16 K and V), the recurrent state of the linear-attention layers
//! (f32). llama.cpp's compute buffers and, on CPU, repacked weight copies come on top.

use serde::Serialize;

use crate::engine::Model;

/// Share of the estimate kept free for llama.cpp's compute buffers when judging whether a model
/// fits: it fits when `total * HEADROOM` is below the available memory.
pub const HEADROOM: f64 = 1.1;

/// The dimensions an estimate needs, read from GGUF metadata (`{arch}.block_count`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// `general.architecture`.
    pub architecture: String,
    /// Layers of the trunk (an MTP head's blocks are not counted).
    pub layers: u64,
    /// Of which recurrent (linear attention or SSM); the rest keep a KV cache.
    pub recurrent_layers: u64,
    /// KV heads of a full-attention layer.
    pub kv_heads: u64,
    /// Key length per head.
    pub key_length: u64,
    /// Value length per head.
    pub value_length: u64,
    /// Convolution kernel of a recurrent layer.
    pub conv_kernel: u64,
    /// Key groups of a recurrent layer.
    pub ssm_groups: u64,
    /// State size per head of a recurrent layer.
    pub ssm_state: u64,
    /// Inner (value) size of a recurrent layer.
    pub ssm_inner: u64,
    /// Value heads of a recurrent layer (`ssm.time_step_rank`).
    pub ssm_heads: u64,
    /// Bytes per cached K or V value: 4 where the engine keeps an f32 cache (the CPU backend:
    /// [`crate::engine`]), 2 for f16 (GPU backends).
    pub kv_value_bytes: u64,
}

impl Shape {
    /// The shape from metadata values: `meta(key)` is the value of a GGUF key as text (as
    /// llama.cpp gives it), `recurrent` and `hybrid` what llama.cpp says of the architecture.
    ///
    /// Which layers are recurrent: every layer but each n-th for a hybrid model with an interval
    /// (llama.cpp's metadata API does not expose the per-layer array), all for a recurrent one,
    /// none otherwise.
    pub fn from_metadata(meta: &dyn Fn(&str) -> Option<String>, recurrent: bool, hybrid: bool) -> Shape {
        let architecture = meta("general.architecture").unwrap_or_default();
        let num = |k: &str| meta(&format!("{architecture}.{k}")).and_then(|v| v.parse::<u64>().ok());
        // An MTP head's blocks (`nextn_predict_layers`) are counted in `block_count`, but the main
        // context keeps no cache for them (llama.cpp filters them out); the drafter's own context
        // does, which this estimate leaves out.
        let layers = num("block_count").unwrap_or(0).saturating_sub(num("nextn_predict_layers").unwrap_or(0));
        let heads = num("attention.head_count").unwrap_or(1).max(1);
        let embd = num("embedding_length").unwrap_or(0);
        let recurrent_layers = match num("full_attention_interval") {
            Some(i) if i > 0 && (recurrent || hybrid) => layers - layers / i,
            _ if recurrent => layers,
            _ => 0,
        };
        Shape {
            kv_value_bytes: 2,
            layers,
            recurrent_layers,
            kv_heads: num("attention.head_count_kv").unwrap_or(heads),
            key_length: num("attention.key_length").unwrap_or(embd / heads),
            value_length: num("attention.value_length").unwrap_or(embd / heads),
            conv_kernel: num("ssm.conv_kernel").unwrap_or(4),
            ssm_groups: num("ssm.group_count").unwrap_or(0),
            ssm_state: num("ssm.state_size").unwrap_or(0),
            ssm_inner: num("ssm.inner_size").unwrap_or(0),
            ssm_heads: num("ssm.time_step_rank").unwrap_or(0),
            architecture,
        }
    }

    /// The shape of a loaded model, with the KV cache in the type `--kv-type auto` gives it.
    pub fn of(model: &Model) -> Shape {
        Shape::with_kv(model, crate::engine::KvType::Auto)
    }

    /// The shape of a loaded model, with the KV cache in `kv`.
    pub fn with_kv(model: &Model, kv: crate::engine::KvType) -> Shape {
        let llama = model.llama();
        let shape = Shape::from_metadata(&|k| model.meta(k), llama.is_recurrent(), llama.is_hybrid());
        let kv_value_bytes = if kv.resolve() == "f32" { 4 } else { 2 };
        Shape { kv_value_bytes, ..shape }
    }

    /// Layers with a KV cache.
    pub fn full_attention_layers(&self) -> u64 {
        self.layers - self.recurrent_layers
    }

    /// Bytes of K and V for `ctx` tokens over the full-attention layers.
    pub fn kv_cache_bytes(&self, ctx: u64) -> u64 {
        ctx * self.full_attention_layers() * self.kv_heads * (self.key_length + self.value_length) * self.kv_value_bytes
    }

    /// Bytes of f32 recurrent state (convolution window and SSM state) over the recurrent layers.
    pub fn recurrent_state_bytes(&self) -> u64 {
        if self.recurrent_layers == 0 {
            return 0;
        }
        let conv = self.conv_kernel.saturating_sub(1) * (self.ssm_inner + 2 * self.ssm_groups * self.ssm_state) * 4;
        let ssm = self.ssm_heads * self.ssm_state * self.ssm_state * 4;
        self.recurrent_layers * (conv + ssm)
    }

    /// The estimate for `weights_bytes` of weights at `ctx` tokens (`model`: the file, as
    /// reported).
    pub fn estimate(&self, model: String, weights_bytes: u64, ctx: u32) -> Estimate {
        self.estimate_sequences(model, weights_bytes, ctx, 1)
    }

    /// The estimate for one copy of `weights_bytes` of weights and `sequences` sequences of `ctx`
    /// tokens each (a batched context: every sequence has its own KV cache and recurrent state).
    /// Its `ctx` is the tokens of all of them.
    pub fn estimate_sequences(&self, model: String, weights_bytes: u64, ctx: u32, sequences: u32) -> Estimate {
        let tokens = u64::from(ctx) * u64::from(sequences);
        let kv_cache_bytes = self.kv_cache_bytes(tokens);
        let recurrent_state_bytes = self.recurrent_state_bytes() * u64::from(sequences);
        let ctx = u32::try_from(tokens).unwrap_or(u32::MAX);
        Estimate {
            model,
            ctx,
            architecture: self.architecture.clone(),
            layers: self.layers,
            full_attention_layers: self.full_attention_layers(),
            recurrent_layers: self.recurrent_layers,
            weights_bytes,
            kv_cache_bytes,
            kv_cache_type: if self.kv_value_bytes == 4 { "f32" } else { "f16" },
            recurrent_state_bytes,
            total_bytes: weights_bytes + kv_cache_bytes + recurrent_state_bytes,
            fits_in_available_memory: None,
        }
    }
}

/// Memory a model needs at a context size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The model file.
    pub model: String,
    /// Context size, tokens.
    pub ctx: u32,
    /// `general.architecture`.
    pub architecture: String,
    /// Layers of the trunk (an MTP head's blocks are not counted).
    pub layers: u64,
    /// Layers with a KV cache.
    pub full_attention_layers: u64,
    /// Layers with recurrent state.
    pub recurrent_layers: u64,
    /// Bytes of weights.
    pub weights_bytes: u64,
    /// Bytes of KV cache at `ctx`.
    pub kv_cache_bytes: u64,
    /// Its value type (`f32` on the CPU backend, `f16` on a GPU).
    pub kv_cache_type: &'static str,
    /// Bytes of recurrent state (f32).
    pub recurrent_state_bytes: u64,
    /// The sum.
    pub total_bytes: u64,
    /// Whether the total, with [`HEADROOM`], fits the machine's available memory (set by
    /// [`Estimate::judge`]; absent where that is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fits_in_available_memory: Option<bool>,
}

impl Estimate {
    /// Whether `total_bytes` with [`HEADROOM`] fits in `available` bytes.
    pub fn fits(&self, available: u64) -> bool {
        fits(self.total_bytes, available)
    }

    /// Records whether the estimate fits in `available` bytes.
    pub fn judge(mut self, available: Option<u64>) -> Self {
        self.fits_in_available_memory = available.map(|a| self.fits(a));
        self
    }
}

/// Whether `total` bytes with [`HEADROOM`] fit in `available` bytes.
fn fits(total: u64, available: u64) -> bool {
    total as f64 * HEADROOM < available as f64
}

/// The memory of one model in one quantised type (`sqale info --model`'s table).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeMemory {
    /// The type (`q4_k_m`, `iq2_xs`, ..., `f32`).
    #[serde(rename = "type")]
    pub ty: String,
    /// Bytes of weights in that type, as llama.cpp's quantiser plans the file (its dry run).
    pub weights_bytes: u64,
    /// Weights, KV cache and recurrent state at the estimate's context.
    pub total_bytes: u64,
    /// Whether llama.cpp makes the type only with an importance matrix (`sqale imatrix`).
    pub needs_imatrix: bool,
    /// Whether the total, with [`HEADROOM`], fits the machine's available memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fits_in_available_memory: Option<bool>,
}

/// `est`'s model (the GGUF at `path`) in every type llama.cpp's quantiser makes, from `f32`
/// down to 2 bits: its weights as the quantiser plans them, plus `est`'s KV cache and
/// recurrent state; `available` judges each. A type the quantiser cannot plan is left out.
pub fn per_type(path: &std::path::Path, est: &Estimate, available: Option<u64>) -> Vec<TypeMemory> {
    use sqale_convert::quantize::{planned_bytes, QUANT_TYPES};
    QUANT_TYPES
        .iter()
        .filter_map(|&(ty, name, _, needs_imatrix)| {
            let weights_bytes = planned_bytes(path, ty, None).ok()?;
            let total_bytes = weights_bytes + est.kv_cache_bytes + est.recurrent_state_bytes;
            let fits_in_available_memory = available.map(|a| fits(total_bytes, a));
            Some(TypeMemory {
                ty: name.to_string(),
                weights_bytes,
                total_bytes,
                needs_imatrix,
                fits_in_available_memory,
            })
        })
        .collect()
}

/// What `sequences` sequences of `ctx` tokens each need over the GGUF at `path` with the KV
/// cache in `kv`, its weights counted as the file's size. Only the file's metadata and
/// vocabulary are read (not its weights), so this is quick and takes little memory.
pub fn estimate_file(
    path: &std::path::Path,
    kv: crate::engine::KvType,
    ctx: u32,
    sequences: u32,
) -> Result<Estimate, crate::engine::EngineError> {
    let options = crate::engine::ModelOptions { vocab_only: true, gpu_layers: Some(0), ..Default::default() };
    let model = Model::load(path, &options)?;
    let weights_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(Shape::with_kv(&model, kv).estimate_sequences(path.display().to_string(), weights_bytes, ctx, sequences))
}

/// What `model` needs at `ctx` tokens.
pub fn estimate(model: &Model, ctx: u32) -> Estimate {
    estimate_with_kv(model, ctx, crate::engine::KvType::Auto)
}

/// [`estimate`] with the KV cache in `kv`.
pub fn estimate_with_kv(model: &Model, ctx: u32, kv: crate::engine::KvType) -> Estimate {
    Shape::with_kv(model, kv).estimate(model.path().display().to_string(), model.size(), ctx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const MIB: u64 = 1 << 20;

    /// The `qwen35.*` metadata the converter writes for the synthetic Qwen3.5-2B, as text.
    fn qwen35_2b_metadata() -> HashMap<String, String> {
        qwen35_2b_metadata_with(0)
    }

    /// The same with `nextn` MTP blocks after the trunk.
    fn qwen35_2b_metadata_with(nextn: usize) -> HashMap<String, String> {
        use sqale_convert::gguf::Value as Gv;
        let preset = sqale_convert::synth::Preset::qwen35_2b();
        let ck = sqale_convert::checkpoint::Checkpoint {
            dir: Default::default(),
            config: preset.config(0),
            architecture: "Qwen3_5ForConditionalGeneration".into(),
            shards: Vec::new(),
            tensors: Default::default(),
            tokenizer: serde_json::Value::Null,
            tokenizer_config: None,
            chat_template: None,
            generation_config: None,
        };
        let mut hp = sqale_convert::qwen35::Hparams::from_checkpoint(&ck).unwrap();
        hp.nextn_layers = nextn;
        let mut meta: HashMap<String, String> = hp
            .metadata()
            .into_iter()
            .filter_map(|(k, v)| match v {
                Gv::U32(x) => Some((k, x.to_string())),
                Gv::I32(x) => Some((k, x.to_string())),
                _ => None,
            })
            .collect();
        meta.insert("general.architecture".into(), "qwen35".into());
        meta
    }

    #[test]
    fn synthetic_qwen35_2b_at_16k_matches_llama_cpp() {
        // docs/memory.md: llama.cpp reports 192.00 MiB of KV cache and 19.27 MiB of recurrent
        // state for it at 16,384 tokens; 6 of its 24 layers are full attention.
        let meta = qwen35_2b_metadata();
        let shape = Shape::from_metadata(&|k| meta.get(k).cloned(), false, true);
        assert_eq!((shape.layers, shape.full_attention_layers(), shape.recurrent_layers), (24, 6, 18));
        let e = shape.estimate("synth.gguf".into(), 1_000, 16_384);
        assert_eq!(e.kv_cache_bytes, 192 * MIB);
        assert_eq!(format!("{:.2}", e.recurrent_state_bytes as f64 / MIB as f64), "19.27");
        // Per recurrent layer: conv 3 x (2048 + 2*16*128) f32, SSM 16 x 128 x 128 f32.
        assert_eq!(e.recurrent_state_bytes, 18 * (3 * (2048 + 2 * 16 * 128) * 4 + 16 * 128 * 128 * 4));
        assert_eq!(e.total_bytes, 1_000 + e.kv_cache_bytes + e.recurrent_state_bytes);
        assert_eq!(e.architecture, "qwen35");
        // Three sequences: three recurrent states, one copy of the weights.
        let three = shape.estimate_sequences("synth.gguf".into(), 1_000, 16_384, 3);
        assert_eq!(three.recurrent_state_bytes, 3 * e.recurrent_state_bytes);
        assert_eq!(three.kv_cache_bytes, 3 * e.kv_cache_bytes);
        assert_eq!(three.total_bytes, 1_000 + 3 * (e.kv_cache_bytes + e.recurrent_state_bytes));
    }

    #[test]
    fn an_mtp_head_adds_no_layer_to_the_main_context() {
        // block_count is 25 with the head; the main context caches the 24 trunk layers only.
        let meta = qwen35_2b_metadata_with(1);
        assert_eq!(meta["qwen35.block_count"], "25");
        let shape = Shape::from_metadata(&|k| meta.get(k).cloned(), false, true);
        assert_eq!((shape.layers, shape.full_attention_layers(), shape.recurrent_layers), (24, 6, 18));
    }

    #[test]
    fn a_transformer_has_no_recurrent_state_and_defaults_fill_gaps() {
        // SmolLM2-135M-like: no key/value lengths in the metadata, so embedding / heads.
        let meta: HashMap<&str, &str> = [
            ("general.architecture", "llama"),
            ("llama.block_count", "30"),
            ("llama.attention.head_count", "9"),
            ("llama.attention.head_count_kv", "3"),
            ("llama.embedding_length", "576"),
        ]
        .into();
        let shape = Shape::from_metadata(&|k| meta.get(k).map(|v| v.to_string()), false, false);
        assert_eq!(shape.full_attention_layers(), 30);
        assert_eq!(shape.kv_cache_bytes(16_384), 16_384 * 30 * 3 * (64 + 64) * 2);
        assert_eq!(shape.recurrent_state_bytes(), 0);
        // Sequences of a batched context: a KV cache each over one copy of the weights.
        let four = shape.estimate_sequences(String::new(), 100, 1_000, 4);
        assert_eq!((four.ctx, four.kv_cache_bytes), (4_000, shape.kv_cache_bytes(4_000)));
        assert_eq!(four.total_bytes, 100 + shape.kv_cache_bytes(4_000));
        // An interval on a model llama.cpp calls neither recurrent nor hybrid is ignored.
        let mut meta = meta;
        meta.insert("llama.full_attention_interval", "4");
        assert_eq!(Shape::from_metadata(&|k| meta.get(k).map(|v| v.to_string()), false, false).recurrent_layers, 0);
        // A hybrid one keeps every 4th layer's KV cache: 30 - 30/4 recurrent.
        assert_eq!(Shape::from_metadata(&|k| meta.get(k).map(|v| v.to_string()), false, true).recurrent_layers, 23);
        // A recurrent one without an interval has no KV cache.
        meta.remove("llama.full_attention_interval");
        let all = Shape::from_metadata(&|k| meta.get(k).map(|v| v.to_string()), true, false);
        assert_eq!((all.recurrent_layers, all.kv_cache_bytes(16_384)), (30, 0));
        let e = shape.estimate(String::new(), 100, 8).judge(Some(1_000_000_000));
        assert_eq!(e.fits_in_available_memory, Some(true));
        assert_eq!(
            shape.estimate(String::new(), 100, 8).judge(Some(e.total_bytes)).fits_in_available_memory,
            Some(false)
        );
        assert_eq!(shape.estimate(String::new(), 100, 8).judge(None).fits_in_available_memory, None);
    }
}
