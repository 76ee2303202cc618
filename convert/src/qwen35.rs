//! The mapping from a Hugging Face Qwen3.5 checkpoint to llama.cpp's `qwen35` GGUF: the
//! hyperparameters, every tensor's name, shape and transformation.
//!
//! Ground truth: llama.cpp's loader (`src/models/qwen35.cpp`, `src/llama-model.cpp`,
//! `src/llama-arch.cpp` in the tree llama-cpp-sys-2 builds); llama.cpp's `conversion/qwen.py`
//! documents the same facts. In short:
//! - HF RMSNorm computes `x·(1+w)`, llama.cpp `x·w`: every norm gets +1, except the gated norm of
//!   the linear-attention block (`linear_attn.norm`), which HF already applies as `x·w`;
//! - `A_log` is stored as `ssm_a = -exp(A_log)`; `dt_bias` becomes `ssm_dt.bias`;
//! - the depthwise conv kernel `[C, 1, K]` is squeezed to `[C, K]`;
//! - llama.cpp broadcasts key heads to value heads by tiling, HF by grouping, so when the two
//!   counts differ the value heads are reordered (rows of the V part of `in_proj_qkv`, of
//!   `in_proj_z`, `in_proj_b`, `in_proj_a`, the conv channels, `A_log`, `dt_bias`; columns of
//!   `out_proj`);
//! - norms, `ssm_a`, `ssm_dt.bias` and `ssm_conv1d` must be F32 (CPU kernels assert it);
//! - the vision tower (`visual.*`) is dropped, and no other tensor may be in the file: the loader
//!   rejects extras;
//! - the multi-token-prediction head (`mtp.*`), when kept, is mapped as llama.cpp's own converter
//!   maps it (`conversion/qwen.py`, `_Qwen35MtpMixin`): `mtp.layers.0.*` becomes one more
//!   full-attention block `blk.{n_layer}.*` with the trunk's transforms, `mtp.fc` becomes
//!   `blk.{n_layer}.nextn.eh_proj`, `mtp.pre_fc_norm_embedding` / `mtp.pre_fc_norm_hidden` /
//!   `mtp.norm` become `nextn.enorm` / `nextn.hnorm` / `nextn.shared_head_norm` (RMSNorms: +1,
//!   F32); `block_count` counts the extra block and `nextn_predict_layers` is 1 (see
//!   [`Hparams::metadata`] and [`plan_mtp`]).

use serde_json::Value;

use crate::checkpoint::Checkpoint;
use crate::gguf::{Array, GgmlType, TensorInfo, Value as Gv};
use crate::ConvertError;

/// Architectures this module converts.
/// The checkpoint architectures converted (`architectures` in `config.json`).
pub const ARCHITECTURES: &[&str] = &["Qwen3_5ForConditionalGeneration", "Qwen3_5ForCausalLM"];

/// The text model's dimensions, read from `config.json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hparams {
    /// Width of the residual stream (`hidden_size`).
    pub hidden: usize,
    /// Transformer blocks (`num_hidden_layers`).
    pub layers: usize,
    /// Width of the MLP (`intermediate_size`).
    pub ffn: usize,
    /// Query heads of the full-attention layers.
    pub heads: usize,
    /// Key/value heads of the full-attention layers.
    pub kv_heads: usize,
    /// Width of one full-attention head.
    pub head_dim: usize,
    /// Key heads of the linear-attention (Gated DeltaNet) layers.
    pub lin_k_heads: usize,
    /// Value heads of the linear-attention layers.
    pub lin_v_heads: usize,
    /// Width of one linear-attention key head.
    pub lin_k_dim: usize,
    /// Width of one linear-attention value head.
    pub lin_v_dim: usize,
    /// Length of the linear-attention short convolution.
    pub conv_kernel: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// Trained context length (`max_position_embeddings`).
    pub context: usize,
    /// RoPE base.
    pub rope_theta: f32,
    /// Dimensions of each head that RoPE rotates (partial rotary).
    pub rope_dims: usize,
    /// MRoPE sections (text, height, width, padding), as llama.cpp reads them.
    pub mrope_sections: [i32; 4],
    /// RMSNorm epsilon.
    pub rms_eps: f32,
    /// Per layer: true for linear attention (recurrent), false for full attention.
    pub recurrent: Vec<bool>,
    /// MTP (NextN) blocks written after the trunk's: 0 (no head) or 1. Not read from the
    /// config: the converter sets it when it writes a head.
    pub nextn_layers: usize,
}

fn field<'a>(ck: &'a Checkpoint, key: &str) -> Option<&'a Value> {
    ck.hparam(key)
        .or_else(|| ck.hparam("rope_parameters").and_then(|r| r.get(key)))
        .or_else(|| ck.hparam("rope_scaling").and_then(|r| r.get(key)))
}

fn usize_field(ck: &Checkpoint, key: &str) -> Result<usize, ConvertError> {
    field(ck, key).and_then(Value::as_u64).map(|v| v as usize).ok_or_else(|| {
        ConvertError::Config(format!("config.json has no integer `{key}` (looked in text_config and at the top level)"))
    })
}

impl Hparams {
    /// Reads the hyperparameters, refusing an architecture other than Qwen3.5.
    pub fn from_checkpoint(ck: &Checkpoint) -> Result<Self, ConvertError> {
        if !ARCHITECTURES.contains(&ck.architecture.as_str()) {
            return Err(ConvertError::Architecture(ck.architecture.clone()));
        }
        let layers = usize_field(ck, "num_hidden_layers")?;
        let head_dim = usize_field(ck, "head_dim")?;
        let partial = field(ck, "partial_rotary_factor").and_then(Value::as_f64).unwrap_or(0.25);
        let mut mrope = [11, 11, 10, 0];
        if let Some(sections) = field(ck, "mrope_section").and_then(Value::as_array) {
            if sections.len() > 4 {
                return Err(ConvertError::Config(format!(
                    "mrope_section has {} entries; at most 4 are supported",
                    sections.len()
                )));
            }
            mrope = [0; 4];
            for (i, s) in sections.iter().enumerate() {
                mrope[i] =
                    s.as_i64().ok_or_else(|| ConvertError::Config("mrope_section must hold integers".into()))? as i32;
            }
        }
        let recurrent = match ck.hparam("layer_types").and_then(Value::as_array) {
            Some(types) => {
                if types.len() != layers {
                    return Err(ConvertError::Config(format!(
                        "layer_types has {} entries for {layers} layers",
                        types.len()
                    )));
                }
                types
                    .iter()
                    .map(|t| match t.as_str() {
                        Some("linear_attention") => Ok(true),
                        Some("full_attention") => Ok(false),
                        other => Err(ConvertError::Config(format!("unknown layer type {other:?} in layer_types"))),
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => {
                let interval = field(ck, "full_attention_interval").and_then(Value::as_u64).unwrap_or(4) as usize;
                (0..layers).map(|i| (i + 1) % interval.max(1) != 0).collect()
            }
        };
        let h = Hparams {
            hidden: usize_field(ck, "hidden_size")?,
            layers,
            ffn: usize_field(ck, "intermediate_size")?,
            heads: usize_field(ck, "num_attention_heads")?,
            kv_heads: usize_field(ck, "num_key_value_heads")?,
            head_dim,
            lin_k_heads: usize_field(ck, "linear_num_key_heads")?,
            lin_v_heads: usize_field(ck, "linear_num_value_heads")?,
            lin_k_dim: usize_field(ck, "linear_key_head_dim")?,
            lin_v_dim: usize_field(ck, "linear_value_head_dim")?,
            conv_kernel: usize_field(ck, "linear_conv_kernel_dim")?,
            vocab: usize_field(ck, "vocab_size")?,
            context: field(ck, "max_position_embeddings").and_then(Value::as_u64).unwrap_or(262_144) as usize,
            rope_theta: field(ck, "rope_theta").and_then(Value::as_f64).unwrap_or(10_000_000.0) as f32,
            rope_dims: (head_dim as f64 * partial) as usize,
            mrope_sections: mrope,
            rms_eps: field(ck, "rms_norm_eps").and_then(Value::as_f64).unwrap_or(1e-6) as f32,
            recurrent,
            nextn_layers: 0,
        };
        if h.lin_k_dim != h.lin_v_dim {
            return Err(ConvertError::Config(format!(
                "linear_key_head_dim {} != linear_value_head_dim {}: llama.cpp's qwen35 needs them equal",
                h.lin_k_dim, h.lin_v_dim
            )));
        }
        if h.lin_k_heads == 0 || !h.lin_v_heads.is_multiple_of(h.lin_k_heads) {
            return Err(ConvertError::Config(format!(
                "linear_num_value_heads {} is not a multiple of linear_num_key_heads {}",
                h.lin_v_heads, h.lin_k_heads
            )));
        }
        Ok(h)
    }

    fn key_dim(&self) -> usize {
        self.lin_k_heads * self.lin_k_dim
    }
    fn value_dim(&self) -> usize {
        self.lin_v_heads * self.lin_v_dim
    }
    fn conv_dim(&self) -> usize {
        2 * self.key_dim() + self.value_dim()
    }

    /// The `qwen35.*` metadata.
    ///
    /// With an MTP head (`nextn_layers` 1), as llama.cpp's loader reads it: `block_count` counts
    /// the trunk and the head's block, `nextn_predict_layers` says how many of them are the
    /// head's, and `attention.recurrent_layers` (read with `block_count` entries) marks the
    /// head's block as not recurrent. `full_attention_interval` describes the trunk only (the
    /// loader applies it to the first `block_count - nextn_predict_layers` blocks). Without a
    /// head the metadata is exactly what it was before heads were kept.
    pub fn metadata(&self) -> Vec<(String, Gv)> {
        let k = |s: &str| format!("qwen35.{s}");
        let u = |v: usize| Gv::U32(v as u32);
        let mut recurrent = self.recurrent.clone();
        recurrent.extend(std::iter::repeat_n(false, self.nextn_layers));
        let nextn = (self.nextn_layers > 0).then(|| (k("nextn_predict_layers"), u(self.nextn_layers)));
        vec![
            (k("context_length"), u(self.context)),
            (k("embedding_length"), u(self.hidden)),
            (k("block_count"), u(self.layers + self.nextn_layers)),
        ]
        .into_iter()
        .chain(nextn)
        .chain([
            (k("feed_forward_length"), u(self.ffn)),
            (k("attention.head_count"), u(self.heads)),
            (k("attention.head_count_kv"), u(self.kv_heads)),
            (k("attention.key_length"), u(self.head_dim)),
            (k("attention.value_length"), u(self.head_dim)),
            (k("attention.layer_norm_rms_epsilon"), Gv::F32(self.rms_eps)),
            (k("rope.freq_base"), Gv::F32(self.rope_theta)),
            (k("rope.dimension_count"), u(self.rope_dims)),
            (k("rope.dimension_sections"), Gv::Array(Array::I32(self.mrope_sections.to_vec()))),
            (k("ssm.conv_kernel"), u(self.conv_kernel)),
            (k("ssm.state_size"), u(self.lin_k_dim)),
            (k("ssm.group_count"), u(self.lin_k_heads)),
            (k("ssm.time_step_rank"), u(self.lin_v_heads)),
            (k("ssm.inner_size"), u(self.value_dim())),
            (k("attention.recurrent_layers"), Gv::Array(Array::Bool(recurrent))),
        ])
        .chain(self.full_attention_interval().map(|i| (k("full_attention_interval"), u(i))))
        .collect()
    }

    /// `n` when every n-th layer (and only those) is full attention, as in every Qwen3.5 so
    /// far; written too, for tools that read scalars only (llama.cpp's metadata API skips
    /// arrays).
    pub fn full_attention_interval(&self) -> Option<usize> {
        let n = self.recurrent.iter().position(|r| !r)? + 1;
        let regular = self.recurrent.iter().enumerate().all(|(i, &r)| r == ((i + 1) % n != 0));
        regular.then_some(n)
    }
}

/// How a tensor's values change on the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// Bytes converted, values unchanged.
    None,
    /// `w + 1` (RMSNorm weights).
    AddOne,
    /// `-exp(w)` (`A_log` → `ssm_a`).
    NegExp,
}

/// A value-head reorder (see the module docs): along rows (`cols == false`) or columns, over
/// `nv·h` entries starting at `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reorder {
    /// Reorder columns (`true`) or rows (`false`).
    pub cols: bool,
    /// First entry reordered.
    pub start: usize,
    /// Key heads.
    pub nk: usize,
    /// Value heads.
    pub nv: usize,
    /// Entries per head.
    pub h: usize,
}

impl Reorder {
    /// Applies the reorder to `data`, a row-major matrix with `ncols` columns.
    pub fn apply(&self, data: &mut [f32], ncols: usize) {
        let r = self.nv / self.nk;
        let len = self.nv * self.h;
        let map = |new: usize| {
            // new = (j*nk + g)*h + d  ←  old = (g*r + j)*h + d
            let (head, d) = (new / self.h, new % self.h);
            let (j, g) = (head / self.nk, head % self.nk);
            (g * r + j) * self.h + d
        };
        if self.cols {
            let mut tmp = vec![0f32; len];
            for row in data.chunks_mut(ncols) {
                let seg = &mut row[self.start..self.start + len];
                for (new, t) in tmp.iter_mut().enumerate() {
                    *t = seg[map(new)];
                }
                seg.copy_from_slice(&tmp);
            }
        } else {
            let seg = &mut data[self.start * ncols..(self.start + len) * ncols];
            let old = seg.to_vec();
            for new in 0..len {
                let o = map(new);
                seg[new * ncols..(new + 1) * ncols].copy_from_slice(&old[o * ncols..(o + 1) * ncols]);
            }
        }
    }
}

/// One tensor of the output file and where it comes from.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Name, shape and type in the GGUF.
    pub info: TensorInfo,
    /// Name in the checkpoint.
    pub source: String,
    /// Value transformation.
    pub transform: Transform,
    /// Value-head reorder, when key and value head counts differ.
    pub reorder: Option<Reorder>,
}

/// One planned tensor before it is checked against a checkpoint: source name and PyTorch shape,
/// GGUF name and type, transforms.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Name in the checkpoint.
    pub source: String,
    /// PyTorch shape the config implies (after squeezing unit dimensions, when `squeeze`).
    pub hf_shape: Vec<usize>,
    /// GGUF name.
    pub name: String,
    /// GGUF type.
    pub ty: GgmlType,
    /// Value transformation.
    pub transform: Transform,
    /// Value-head reorder.
    pub reorder: Option<Reorder>,
    /// Whether unit dimensions of the source are dropped (the conv kernel).
    pub squeeze: bool,
}

impl Spec {
    /// The GGUF tensor description (shape in ggml order).
    pub fn info(&self) -> TensorInfo {
        TensorInfo { name: self.name.clone(), ne: self.hf_shape.iter().rev().map(|&d| d as u64).collect(), ty: self.ty }
    }

    /// Checks the source tensor in `ck` and plans it.
    pub fn resolve(&self, ck: &Checkpoint) -> Result<Planned, ConvertError> {
        let t = ck.tensors.get(&self.source).ok_or_else(|| ConvertError::MissingTensor(self.source.clone()))?;
        let actual = if self.squeeze {
            t.shape.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>()
        } else {
            t.shape.clone()
        };
        if actual != self.hf_shape {
            return Err(ConvertError::Shape {
                tensor: self.source.clone(),
                actual: t.shape.clone(),
                expected: self.hf_shape.clone(),
            });
        }
        Ok(Planned { info: self.info(), source: self.source.clone(), transform: self.transform, reorder: self.reorder })
    }
}

/// The tensors of one decoder block: HF prefix `p` (`...layers.{i}.`), GGUF prefix `b`
/// (`blk.{i}.`); linear attention when `recurrent`, else full attention (as the MTP block).
#[rustfmt::skip] // one line per tensor: the mapping reads as a table
pub fn block_specs(p: &str, b: &str, h: &Hparams, out: GgmlType, recurrent: bool) -> Vec<Spec> {
    let mut specs = Vec::new();
    let mut add = |source: String, hf_shape: Vec<usize>, name: String, ty: GgmlType, transform: Transform, reorder: Option<Reorder>, squeeze: bool| {
        specs.push(Spec { source, hf_shape, name, ty, transform, reorder, squeeze });
    };
    let f32_ = GgmlType::F32;
    let e = h.hidden;
    let reorder_needed = h.lin_k_heads != h.lin_v_heads;
    let ro = |cols: bool, start: usize, hsize: usize| {
        reorder_needed.then_some(Reorder { cols, start, nk: h.lin_k_heads, nv: h.lin_v_heads, h: hsize })
    };
    add(format!("{p}input_layernorm.weight"), vec![e], format!("{b}attn_norm.weight"), f32_, Transform::AddOne, None, false);
    if recurrent {
        let la = format!("{p}linear_attn.");
        let (kd, vd, cd, nv) = (h.key_dim(), h.value_dim(), h.conv_dim(), h.lin_v_heads);
        add(format!("{la}in_proj_qkv.weight"), vec![cd, e], format!("{b}attn_qkv.weight"), out, Transform::None, ro(false, 2 * kd, h.lin_v_dim), false);
        add(format!("{la}in_proj_z.weight"), vec![vd, e], format!("{b}attn_gate.weight"), out, Transform::None, ro(false, 0, h.lin_v_dim), false);
        add(format!("{la}in_proj_b.weight"), vec![nv, e], format!("{b}ssm_beta.weight"), out, Transform::None, ro(false, 0, 1), false);
        add(format!("{la}in_proj_a.weight"), vec![nv, e], format!("{b}ssm_alpha.weight"), out, Transform::None, ro(false, 0, 1), false);
        add(format!("{la}conv1d.weight"), vec![cd, h.conv_kernel], format!("{b}ssm_conv1d.weight"), f32_, Transform::None, ro(false, 2 * kd, h.lin_v_dim), true);
        add(format!("{la}dt_bias"), vec![nv], format!("{b}ssm_dt.bias"), f32_, Transform::None, ro(false, 0, 1), false);
        add(format!("{la}A_log"), vec![nv], format!("{b}ssm_a"), f32_, Transform::NegExp, ro(false, 0, 1), false);
        add(format!("{la}norm.weight"), vec![h.lin_v_dim], format!("{b}ssm_norm.weight"), f32_, Transform::None, None, false);
        add(format!("{la}out_proj.weight"), vec![e, vd], format!("{b}ssm_out.weight"), out, Transform::None, ro(true, 0, h.lin_v_dim), false);
    } else {
        let sa = format!("{p}self_attn.");
        let (hd, kvd) = (h.heads * h.head_dim, h.kv_heads * h.head_dim);
        add(format!("{sa}q_proj.weight"), vec![2 * hd, e], format!("{b}attn_q.weight"), out, Transform::None, None, false);
        add(format!("{sa}k_proj.weight"), vec![kvd, e], format!("{b}attn_k.weight"), out, Transform::None, None, false);
        add(format!("{sa}v_proj.weight"), vec![kvd, e], format!("{b}attn_v.weight"), out, Transform::None, None, false);
        add(format!("{sa}o_proj.weight"), vec![e, hd], format!("{b}attn_output.weight"), out, Transform::None, None, false);
        add(format!("{sa}q_norm.weight"), vec![h.head_dim], format!("{b}attn_q_norm.weight"), f32_, Transform::AddOne, None, false);
        add(format!("{sa}k_norm.weight"), vec![h.head_dim], format!("{b}attn_k_norm.weight"), f32_, Transform::AddOne, None, false);
    }
    add(format!("{p}post_attention_layernorm.weight"), vec![e], format!("{b}post_attention_norm.weight"), f32_, Transform::AddOne, None, false);
    add(format!("{p}mlp.gate_proj.weight"), vec![h.ffn, e], format!("{b}ffn_gate.weight"), out, Transform::None, None, false);
    add(format!("{p}mlp.up_proj.weight"), vec![h.ffn, e], format!("{b}ffn_up.weight"), out, Transform::None, None, false);
    add(format!("{p}mlp.down_proj.weight"), vec![e, h.ffn], format!("{b}ffn_down.weight"), out, Transform::None, None, false);
    specs
}

/// Plans every output tensor of the trunk (everything but an MTP head), checking that each
/// source exists with the shape the config implies. `out` is the type of the large matrices;
/// small and precision-critical tensors are F32 whatever `out` is. Also returns the checkpoint
/// tensors not planned (vision tower, MTP head).
#[rustfmt::skip] // one line per tensor: the mapping reads as a table
pub fn plan(ck: &Checkpoint, h: &Hparams, out: GgmlType) -> Result<(Vec<Planned>, Vec<String>), ConvertError> {
    let lm = if ck.tensors.keys().any(|k| k.starts_with("model.language_model.")) {
        "model.language_model."
    } else {
        "model."
    };
    let mut specs = Vec::new();
    let f32_ = GgmlType::F32;
    let (e, v) = (h.hidden, h.vocab);
    let spec = |source: String, hf_shape: Vec<usize>, name: &str, ty: GgmlType, transform: Transform| {
        Spec { source, hf_shape, name: name.into(), ty, transform, reorder: None, squeeze: false }
    };
    specs.push(spec(format!("{lm}embed_tokens.weight"), vec![v, e], "token_embd.weight", out, Transform::None));
    for i in 0..h.layers {
        specs.extend(block_specs(&format!("{lm}layers.{i}."), &format!("blk.{i}."), h, out, h.recurrent[i]));
    }
    specs.push(spec(format!("{lm}norm.weight"), vec![e], "output_norm.weight", f32_, Transform::AddOne));
    if ck.tensors.contains_key("lm_head.weight") {
        specs.push(spec("lm_head.weight".into(), vec![v, e], "output.weight", out, Transform::None));
    }
    let plan = specs.iter().map(|s| s.resolve(ck)).collect::<Result<Vec<_>, _>>()?;
    // Everything else is dropped; report it so nothing disappears silently.
    let used: std::collections::HashSet<&str> = plan.iter().map(|p| p.source.as_str()).collect();
    let dropped = ck
        .tensors
        .keys()
        .filter(|k| !used.contains(k.as_str()))
        .cloned()
        .collect();
    Ok((plan, dropped))
}

/// The prefix of the checkpoint's MTP head tensors (`mtp.`, or `model.mtp.` as some exports
/// name them), or `None` when it has no head.
pub fn mtp_prefix(ck: &Checkpoint) -> Option<&'static str> {
    ["mtp.", "model.mtp."].into_iter().find(|p| ck.tensors.keys().any(|k| k.starts_with(p)))
}

/// The MTP head's tensors: source names under `prefix` (`mtp.`), written as block `il` (the
/// trunk's layer count) of a model with the dimensions `h`.
#[rustfmt::skip] // one line per tensor: the mapping reads as a table
pub fn mtp_specs(prefix: &str, h: &Hparams, il: usize, out: GgmlType) -> Vec<Spec> {
    let b = format!("blk.{il}.");
    let mut specs = block_specs(&format!("{prefix}layers.0."), &b, h, out, false);
    let e = h.hidden;
    let norm = |source: &str, name: &str| Spec { source: format!("{prefix}{source}"), hf_shape: vec![e], name: format!("{b}nextn.{name}"), ty: GgmlType::F32, transform: Transform::AddOne, reorder: None, squeeze: false };
    specs.push(Spec { source: format!("{prefix}fc.weight"), hf_shape: vec![e, 2 * e], name: format!("{b}nextn.eh_proj.weight"), ty: out, transform: Transform::None, reorder: None, squeeze: false });
    specs.push(norm("pre_fc_norm_embedding.weight", "enorm.weight"));
    specs.push(norm("pre_fc_norm_hidden.weight", "hnorm.weight"));
    specs.push(norm("norm.weight", "shared_head_norm.weight"));
    specs
}

/// Plans the checkpoint's own MTP head as block `h.layers` (see [`mtp_specs`]): every `mtp.*`
/// tensor must be one llama.cpp's `qwen35` loader reads, with the shape the config implies.
/// `None` when the checkpoint has no head.
pub fn plan_mtp(ck: &Checkpoint, h: &Hparams, out: GgmlType) -> Result<Option<Vec<Planned>>, ConvertError> {
    let Some(prefix) = mtp_prefix(ck) else {
        return Ok(None);
    };
    if let Some(n) = ck.hparam("mtp_num_hidden_layers").and_then(Value::as_u64).filter(|&n| n > 1) {
        return Err(ConvertError::MtpBlocks { blocks: n });
    }
    let specs = mtp_specs(prefix, h, h.layers, out);
    let planned = specs.iter().map(|s| s.resolve(ck)).collect::<Result<Vec<_>, _>>()?;
    let known: std::collections::HashSet<&str> = specs.iter().map(|s| s.source.as_str()).collect();
    if let Some(extra) = ck.tensors.keys().find(|k| k.starts_with(prefix) && !known.contains(k.as_str())) {
        return Err(ConvertError::MtpTensor { tensor: extra.clone() });
    }
    Ok(Some(planned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_head_reorder_tiles_instead_of_grouping() {
        // nk = 2 key heads, nv = 4 value heads (r = 2), head size 1: HF order is grouped by key
        // head [g0j0, g0j1, g1j0, g1j1]; llama.cpp wants tiles [j0g0, j0g1, j1g0, j1g1].
        let ro = Reorder { cols: false, start: 0, nk: 2, nv: 4, h: 1 };
        let mut rows = vec![0., 1., 2., 3.];
        ro.apply(&mut rows, 1);
        assert_eq!(rows, [0., 2., 1., 3.]);
        // Columns of a 1×(1+4) matrix starting at column 1, head size 1.
        let ro = Reorder { cols: true, start: 1, nk: 2, nv: 4, h: 1 };
        let mut m = vec![9., 0., 1., 2., 3.];
        ro.apply(&mut m, 5);
        assert_eq!(m, [9., 0., 2., 1., 3.]);
    }
}
