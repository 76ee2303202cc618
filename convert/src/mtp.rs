//! The multi-token-prediction (MTP) head: keep the checkpoint's own, drop it, or graft another
//! model's onto a trunk that lacks one.
//!
//! Qwen's base releases carry one MTP block (`mtp.*`); transformers' `save_pretrained` drops it
//! (`_keys_to_ignore_on_load_unexpected`), so a fine-tuned checkpoint usually has none. llama.cpp
//! drafts tokens with the head (speculative decoding), so a grafted base head lets a fine-tuned
//! trunk speculate. The head was trained with the base trunk, not the fine-tuned one: how many
//! of its drafts the trunk accepts is the number that tells whether it helps.
//!
//! A head is grafted from a Qwen3.5 checkpoint folder (mapped as [`crate::qwen35::plan_mtp`]
//! maps a checkpoint's own head) or from a `qwen35` GGUF that has one (`blk.{n}.*` and
//! `blk.{n}.nextn.*`, `n` its trunk's layer count; values read in any type ggml can dequantise
//! and written in the output's types). Before anything is written, the source must match the
//! trunk: same architecture, dimensions, vocabulary size and tokens, and a head of the expected
//! shapes.

use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::checkpoint::Checkpoint;
use crate::gguf::{self, Array, GgmlType, GgufHeader, TensorHeader, TensorInfo, Value};
use crate::qwen35::{self, Hparams, Planned};
use crate::ConvertError;

/// What to do with the MTP head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Mtp {
    /// Keep the checkpoint's head when it has one (the default).
    #[default]
    Keep,
    /// Write no head (the output of converters that drop `mtp.*`).
    Drop,
    /// Take the head from another model.
    Graft(Graft),
}

/// Where a grafted head comes from, and what to do when the checkpoint has its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graft {
    /// A Qwen3.5 checkpoint folder or a `qwen35` GGUF file with an MTP head.
    pub from: PathBuf,
    /// When the checkpoint already has a head.
    pub if_present: IfPresent,
}

/// What a graft does when the checkpoint already has a head.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IfPresent {
    /// Refuse: two heads is likely a mistake (the default).
    #[default]
    Refuse,
    /// Keep the checkpoint's own head and ignore the graft source (what `sqale pull` does).
    KeepOwn,
    /// Replace the checkpoint's head with the source's.
    Replace,
}

/// A GGUF file holding a head, mapped.
pub struct GgufHead {
    /// The file.
    pub path: PathBuf,
    mmap: Mmap,
    header: GgufHeader,
}

/// One output tensor of a head and where its values come from.
pub enum HeadTensor {
    /// From a checkpoint (the trunk's own, or a graft source's).
    Checkpoint(Planned),
    /// From a GGUF tensor, dequantised and written as `info` says.
    Gguf {
        /// Name, shape and type in the output.
        info: TensorInfo,
        /// The source tensor.
        source: TensorHeader,
    },
}

impl HeadTensor {
    /// Name, shape and type in the output.
    pub fn info(&self) -> &TensorInfo {
        match self {
            HeadTensor::Checkpoint(p) => &p.info,
            HeadTensor::Gguf { info, .. } => info,
        }
    }
}

/// The head to write, resolved and checked.
pub enum Head {
    /// No head.
    None,
    /// The checkpoint's own head.
    Own(Vec<HeadTensor>),
    /// A head from another checkpoint.
    Checkpoint(Box<Checkpoint>, Vec<HeadTensor>),
    /// A head from a GGUF file.
    Gguf(Box<GgufHead>, Vec<HeadTensor>),
}

impl Head {
    /// The head's tensors (none for [`Head::None`]).
    pub fn tensors(&self) -> &[HeadTensor] {
        match self {
            Head::None => &[],
            Head::Own(t) | Head::Checkpoint(_, t) | Head::Gguf(_, t) => t,
        }
    }

    /// Where a grafted head came from.
    pub fn source(&self) -> Option<&Path> {
        match self {
            Head::Checkpoint(ck, _) => Some(&ck.dir),
            Head::Gguf(g, _) => Some(&g.path),
            _ => None,
        }
    }
}

fn graft_error(trunk: &Path, source: &Path, reason: impl Into<String>) -> ConvertError {
    ConvertError::Graft { trunk: trunk.to_path_buf(), from: source.to_path_buf(), reason: reason.into() }
}

/// The vocabulary as written to `tokenizer.ggml.tokens`.
fn tokens_of(ck: &Checkpoint, vocab: usize) -> Result<Vec<String>, ConvertError> {
    crate::tokenizer::metadata(ck, vocab)?
        .into_iter()
        .find_map(|(k, v)| match (k.as_str(), v) {
            ("tokenizer.ggml.tokens", Value::Array(Array::Str(t))) => Some(t),
            _ => None,
        })
        .ok_or_else(|| ConvertError::Tokenizer("no token list".into()))
}

/// A short description of where two vocabularies differ, or `None` when they are equal.
fn vocab_difference(trunk: &[String], source: &[String]) -> Option<String> {
    if trunk.len() != source.len() {
        return Some(format!("the trunk has {} tokens, the source {}", trunk.len(), source.len()));
    }
    let i = trunk.iter().zip(source).position(|(a, b)| a != b)?;
    Some(format!("token {i} is {:?} in the trunk and {:?} in the source", trunk[i], source[i]))
}

/// Resolves what head to write for the checkpoint `ck` (dimensions `h`), checking a graft source
/// against the trunk. Nothing is written.
pub fn resolve(ck: &Checkpoint, h: &Hparams, mode: &Mtp, out: GgmlType) -> Result<Head, ConvertError> {
    let own = || -> Result<Head, ConvertError> {
        Ok(match qwen35::plan_mtp(ck, h, out)? {
            Some(p) => Head::Own(p.into_iter().map(HeadTensor::Checkpoint).collect()),
            None => Head::None,
        })
    };
    match mode {
        Mtp::Drop => Ok(Head::None),
        Mtp::Keep => own(),
        Mtp::Graft(g) => {
            if qwen35::mtp_prefix(ck).is_some() {
                match g.if_present {
                    IfPresent::KeepOwn => return own(),
                    IfPresent::Replace => {}
                    IfPresent::Refuse => {
                        return Err(ConvertError::GraftOntoOwnHead { trunk: ck.dir.clone(), from: g.from.clone() })
                    }
                }
            }
            if g.from.is_dir() {
                from_checkpoint(ck, h, &g.from, out)
            } else {
                from_gguf(ck, h, &g.from, out)
            }
        }
    }
}

fn from_checkpoint(ck: &Checkpoint, h: &Hparams, from: &Path, out: GgmlType) -> Result<Head, ConvertError> {
    let err = |reason: String| graft_error(&ck.dir, from, reason);
    let base = Checkpoint::open(from).map_err(|e| err(e.to_string()))?;
    let bh = Hparams::from_checkpoint(&base).map_err(|e| err(e.to_string()))?;
    let dims = |x: &Hparams| (x.hidden, x.heads, x.kv_heads, x.head_dim, x.ffn, x.vocab);
    if dims(&bh) != dims(h) {
        return Err(err(format!(
            "the dimensions differ: (hidden, heads, kv heads, head dim, ffn, vocab) are {:?} for the trunk and {:?} \
             for the source. Graft from the trunk's base model",
            dims(h),
            dims(&bh)
        )));
    }
    let (ta, tb) = (tokens_of(ck, h.vocab)?, tokens_of(&base, bh.vocab).map_err(|e| err(e.to_string()))?);
    if let Some(d) = vocab_difference(&ta, &tb) {
        return Err(err(format!("the vocabularies differ ({d}). Graft from the trunk's base model")));
    }
    if qwen35::mtp_prefix(&base).is_none() {
        return Err(err(
            "the source has no MTP head (no mtp.* tensors; transformers' save_pretrained drops them). Graft from \
             the base release, e.g. Qwen/Qwen3.5-2B"
                .into(),
        ));
    }
    // The trunk's dimensions (checked equal above), so the head is written as block h.layers.
    let planned = qwen35::plan_mtp(&base, h, out).map_err(|e| err(e.to_string()))?.unwrap_or_default();
    Ok(Head::Checkpoint(Box::new(base), planned.into_iter().map(HeadTensor::Checkpoint).collect()))
}

fn from_gguf(ck: &Checkpoint, h: &Hparams, from: &Path, out: GgmlType) -> Result<Head, ConvertError> {
    let err = |reason: String| graft_error(&ck.dir, from, reason);
    if !from.exists() {
        return Err(err("no such file or folder: give a Qwen3.5 checkpoint folder or a qwen35 GGUF file".into()));
    }
    let header = gguf::read_header(from).map_err(|e| err(e.to_string()))?;
    let arch = header.architecture().unwrap_or("");
    if arch != "qwen35" {
        return Err(err(format!("its architecture is {arch:?}, not \"qwen35\". Graft from the trunk's base model")));
    }
    let num = |k: &str| header.get(&format!("qwen35.{k}")).and_then(Value::as_u64).map(|v| v as usize);
    let blocks = num("block_count").unwrap_or(0);
    let nextn = num("nextn_predict_layers").unwrap_or(0);
    if nextn == 0 {
        return Err(ConvertError::GraftFromHeadlessGguf { trunk: ck.dir.clone(), from: from.to_path_buf() });
    }
    if nextn != 1 || blocks <= nextn {
        return Err(err(format!("it has {nextn} MTP blocks of {blocks}; sqale grafts exactly one")));
    }
    let got = (
        num("embedding_length"),
        num("attention.head_count"),
        num("attention.head_count_kv"),
        num("attention.key_length"),
        num("feed_forward_length"),
    );
    let want = (Some(h.hidden), Some(h.heads), Some(h.kv_heads), Some(h.head_dim), Some(h.ffn));
    if got != want {
        return Err(err(format!(
            "the dimensions differ: (hidden, heads, kv heads, head dim, ffn) are {want:?} for the trunk and {got:?} \
             for the source. Graft from the trunk's base model"
        )));
    }
    let tokens = match header.get("tokenizer.ggml.tokens") {
        Some(Value::Array(Array::Str(t))) => t.clone(),
        _ => return Err(err("it has no tokenizer.ggml.tokens".into())),
    };
    if let Some(d) = vocab_difference(&tokens_of(ck, h.vocab)?, &tokens) {
        return Err(err(format!("the vocabularies differ ({d}). Graft from the trunk's base model")));
    }
    match header.tensor("token_embd.weight").map(|t| t.ne.clone()) {
        Some(ne) if ne == [h.hidden as u64, h.vocab as u64] => {}
        other => {
            return Err(err(format!(
                "its token_embd.weight has shape {other:?}, the trunk's vocabulary is {} x {}",
                h.vocab, h.hidden
            )))
        }
    }
    // The source's head block is its last; it becomes the trunk's block h.layers.
    let src_il = blocks - nextn;
    let specs = qwen35::mtp_specs("mtp.", h, h.layers, out);
    let src_prefix = format!("blk.{src_il}.");
    let dst_prefix = format!("blk.{}.", h.layers);
    let mut tensors = Vec::new();
    for s in &specs {
        let info = s.info();
        let src_name = format!("{src_prefix}{}", &info.name[dst_prefix.len()..]);
        let t = header.tensor(&src_name).ok_or_else(|| err(format!("its MTP head lacks {src_name}")))?;
        if t.ne != info.ne {
            return Err(err(format!("{src_name} has shape {:?}, the trunk needs {:?}", t.ne, info.ne)));
        }
        if !dequantisable(t.ty) {
            return Err(err(format!(
                "{src_name} is stored as {} (ggml type {}), which sqale cannot read back to floats",
                t.type_name(),
                t.ty
            )));
        }
        tensors.push(HeadTensor::Gguf { info, source: t.clone() });
    }
    let expected: std::collections::HashSet<&str> = tensors
        .iter()
        .map(|t| if let HeadTensor::Gguf { source, .. } = t { source.name.as_str() } else { "" })
        .collect();
    if let Some(extra) =
        header.tensors.iter().find(|t| t.name.starts_with(&src_prefix) && !expected.contains(t.name.as_str()))
    {
        return Err(err(format!("its MTP block has a tensor sqale does not graft: {}", extra.name)));
    }
    let file = crate::regular_file::open(from).map_err(|e| ConvertError::Io { path: from.to_path_buf(), source: e })?;
    // SAFETY: read-only mapping of a file whose header was just validated (every tensor lies
    // inside it); a concurrent writer would be a user error.
    let mmap = unsafe { Mmap::map(&file) }.map_err(|e| ConvertError::Io { path: from.to_path_buf(), source: e })?;
    Ok(Head::Gguf(Box::new(GgufHead { path: from.to_path_buf(), mmap, header }), tensors))
}

/// Whether values of ggml type `ty` can be read back to f32.
fn dequantisable(ty: u32) -> bool {
    matches!(ty, 0 | 1 | 30) || to_float_fn(ty).is_some()
}

fn to_float_fn(ty: u32) -> Option<unsafe extern "C" fn(*const std::ffi::c_void, *mut f32, i64)> {
    gguf::type_layout(ty)?;
    // SAFETY: ggml's type-traits table is static; the id was checked to be a known type.
    let traits = unsafe { llama_cpp_sys_2::ggml_get_type_traits(ty as llama_cpp_sys_2::ggml_type) };
    if traits.is_null() {
        return None;
    }
    // SAFETY: non-null pointer into ggml's static table.
    unsafe { (*traits).to_float }
}

impl GgufHead {
    /// The values of `t` (a tensor of this file), as f32.
    pub fn values(&self, t: &TensorHeader) -> Vec<f32> {
        let start = (self.header.data_offset + t.offset) as usize;
        let bytes = &self.mmap[start..start + t.size as usize];
        let n = t.elements() as usize;
        match t.ty {
            0 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            1 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            30 => bytes.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            ty => {
                let mut v = vec![0f32; n];
                if let Some(f) = to_float_fn(ty) {
                    // SAFETY: `bytes` holds exactly the `n` elements of type `ty` (sizes checked
                    // when the header was read), `v` has room for `n` floats.
                    unsafe { f(bytes.as_ptr().cast(), v.as_mut_ptr(), n as i64) };
                }
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabularies_compare_by_count_then_first_difference() {
        let a: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(vocab_difference(&a, &a), None);
        let b: Vec<String> = ["a", "x", "c"].map(String::from).to_vec();
        assert!(vocab_difference(&a, &b).unwrap().contains("token 1"));
        assert!(vocab_difference(&a, &a[..2]).unwrap().contains("3 tokens"));
    }

    #[test]
    fn q8_0_reads_back_through_ggml() {
        // One Q8_0 block: f16 scale 0.5, then 32 int8 values -16..16.
        assert!(dequantisable(8) && dequantisable(12) && !dequantisable(4));
        let f = to_float_fn(8).unwrap();
        let mut block = half::f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend((0..32).map(|i| (i as i8 - 16) as u8));
        let mut out = vec![0f32; 32];
        unsafe { f(block.as_ptr().cast(), out.as_mut_ptr(), 32) };
        assert_eq!(out[0], -8.0);
        assert_eq!(out[31], 7.5);
    }
}
