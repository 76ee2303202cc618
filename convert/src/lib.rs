//! sqale-convert: a Qwen3.5 safetensors checkpoint becomes a text-only GGUF that llama.cpp's
//! `qwen35` architecture loads, in Rust, streaming tensor by tensor; then quantised through
//! llama.cpp's own quantiser.
//!
//! Independent of the sqale runtime: it reads a checkpoint folder and writes a file.

#![deny(missing_docs)]

pub mod atomic;
pub mod checkpoint;
pub mod gguf;
pub mod imatrix;
pub mod mix;
pub mod mtp;
pub mod quantize;
pub mod qwen35;
pub mod regular_file;
pub mod synth;
pub mod tokenizer;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use half::{bf16, f16};
use safetensors::tensor::Dtype;

pub use imatrix::{Imatrix, ImatrixError};
pub use mtp::{Graft, IfPresent, Mtp};
pub use quantize::{quantize, QuantType, QuantizeOptions};

use checkpoint::Checkpoint;
use gguf::{GgmlType, Value as Gv};
use qwen35::{Hparams, Transform};

/// Why a conversion failed. Every variant names the problem and what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The folder is not a checkpoint.
    #[error("{dir} is not a Hugging Face checkpoint folder: {reason}")]
    NotACheckpoint {
        /// The folder.
        dir: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file is malformed.
    #[error("{path} is not valid: {reason}")]
    BadJson {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The index names a shard that is not there.
    #[error(
        "shard {path} is listed in {index} but missing: download it again (the whole repository, into the same folder)"
    )]
    MissingShard {
        /// The missing shard.
        path: PathBuf,
        /// The index naming it.
        index: PathBuf,
    },
    /// A shard's header or size is wrong (truncated download, not safetensors).
    #[error("shard {path} is damaged or truncated ({reason}): download it again")]
    BadShard {
        /// The shard.
        path: PathBuf,
        /// What safetensors reported.
        reason: String,
    },
    /// Not a Qwen3.5 checkpoint.
    #[error("architecture {0:?} is not supported: sqale converts Qwen3_5ForConditionalGeneration and Qwen3_5ForCausalLM checkpoints")]
    Architecture(String),
    /// A hyperparameter is missing or inconsistent.
    #[error("config.json: {0}")]
    Config(String),
    /// A tensor the architecture needs is absent.
    #[error("tensor {0} is missing from the checkpoint (an incomplete download, or not a Qwen3.5 model)")]
    MissingTensor(String),
    /// A tensor's shape contradicts the config.
    #[error("tensor {tensor} has shape {actual:?}, but config.json implies {expected:?}: the weights and config.json do not belong together")]
    Shape {
        /// The tensor.
        tensor: String,
        /// Its shape.
        actual: Vec<usize>,
        /// What the config implies.
        expected: Vec<usize>,
    },
    /// An element type this converter does not read.
    #[error("tensor {tensor} has dtype {dtype}; sqale reads bf16, f16 and f32 checkpoints")]
    Dtype {
        /// The tensor.
        tensor: String,
        /// Its dtype.
        dtype: String,
    },
    /// The tokenizer is not one this converter knows.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// llama.cpp's quantiser failed.
    #[error("quantisation failed: {0}")]
    Quantize(String),
    /// The type is one llama.cpp refuses to make without an importance matrix.
    #[error("{0} needs an importance matrix: without one llama.cpp's quantiser ruins the weights and refuses. Make one from the f16/bf16 file and quantise with it")]
    NeedsImatrix(QuantType),
    /// The input is already quantised and requantising was not allowed.
    #[error("{}", requantize_message(input, from, *to))]
    Requantize {
        /// The input file.
        input: PathBuf,
        /// Its first quantised tensor's type.
        from: String,
        /// The type asked for.
        to: QuantType,
    },
    /// The importance matrix cannot be read, or belongs to another model.
    #[error(transparent)]
    Imatrix(#[from] imatrix::ImatrixError),
    /// The output path cannot be written: a folder, or one of the inputs.
    #[error(transparent)]
    Output(#[from] atomic::OutputError),
    /// The checkpoint's MTP head has more blocks than llama.cpp's `qwen35` reads (one).
    #[error("MTP head: config.json has mtp_num_hidden_layers = {blocks}; llama.cpp's qwen35 reads one MTP block. Convert without the MTP head")]
    MtpBlocks {
        /// `mtp_num_hidden_layers`.
        blocks: u64,
    },
    /// A tensor of the checkpoint's MTP head is not one llama.cpp's `qwen35` reads.
    #[error("MTP head: tensor {tensor} is not part of the MTP head llama.cpp's qwen35 reads (one dense full-attention block, fc, pre_fc_norm_embedding, pre_fc_norm_hidden, norm). Convert without the MTP head to drop it")]
    MtpTensor {
        /// The tensor.
        tensor: String,
    },
    /// An MTP head cannot be grafted from `source` onto the checkpoint `trunk`.
    #[error("cannot graft the MTP head of {} onto {}: {reason}", from.display(), trunk.display())]
    Graft {
        /// The checkpoint converted.
        trunk: PathBuf,
        /// Where the head was to come from.
        from: PathBuf,
        /// What does not match, and what to do.
        reason: String,
    },
    /// A head was to be grafted onto a checkpoint that has its own, and the graft refuses one
    /// ([`IfPresent::Refuse`]).
    #[error("cannot graft the MTP head of {} onto {}: the checkpoint already has its own MTP head (mtp.*). Keep the checkpoint's own head, or replace it with the source's", from.display(), trunk.display())]
    GraftOntoOwnHead {
        /// The checkpoint converted.
        trunk: PathBuf,
        /// Where the head was to come from.
        from: PathBuf,
    },
    /// The GGUF a head was to be grafted from has none.
    #[error("cannot graft the MTP head of {} onto {}: it has no MTP head (no qwen35.nextn_predict_layers): it was converted without its head, or from a checkpoint without one. Convert the base model with its head first", from.display(), trunk.display())]
    GraftFromHeadlessGguf {
        /// The checkpoint converted.
        trunk: PathBuf,
        /// The GGUF file.
        from: PathBuf,
    },
}

/// Output types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutType {
    /// Unquantised.
    Float(GgmlType),
    /// Quantised by llama.cpp from a bf16 intermediate.
    Quant(QuantType),
}

impl std::str::FromStr for OutType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "f32" => Ok(OutType::Float(GgmlType::F32)),
            "f16" => Ok(OutType::Float(GgmlType::F16)),
            "bf16" => Ok(OutType::Float(GgmlType::Bf16)),
            other => other.parse::<QuantType>().map(OutType::Quant),
        }
    }
}

impl std::fmt::Display for OutType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutType::Float(GgmlType::F32) => f.write_str("f32"),
            OutType::Float(GgmlType::F16) => f.write_str("f16"),
            OutType::Float(GgmlType::Bf16) => f.write_str("bf16"),
            OutType::Quant(q) => write!(f, "{q}"),
        }
    }
}

/// Conversion settings.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Output type.
    pub out_type: OutType,
    /// `general.name` (default: the folder's name).
    pub name: Option<String>,
    /// `general.source.huggingface.repository`, when known.
    pub repo: Option<String>,
    /// Threads for quantisation (default: all).
    pub threads: Option<i32>,
    /// The multi-token-prediction head: keep the checkpoint's (default), drop it, or graft one.
    pub mtp: Mtp,
    /// An importance matrix (llama.cpp's GGUF form) for the quantiser, required by the types
    /// that [`QuantType::needs_imatrix`].
    pub imatrix: Option<PathBuf>,
}

impl Default for OutType {
    fn default() -> Self {
        OutType::Quant(QuantType::Q4KM)
    }
}

/// Progress of a conversion.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    /// Tensor `index` of `total` was written.
    Tensor {
        /// 0-based.
        index: usize,
        /// Tensors in all.
        total: usize,
        /// Its GGUF name.
        name: &'a str,
    },
    /// Quantisation reached tensor `index` of `total`.
    Quantize {
        /// 1-based.
        index: usize,
        /// Tensors in all.
        total: usize,
    },
}

/// What a conversion did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The output file.
    pub output: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Tensors written.
    pub tensors: usize,
    /// Checkpoint tensors left out (vision tower, an MTP head not kept).
    pub dropped: usize,
    /// Tensors of the MTP head written (0: no head).
    pub mtp_tensors: usize,
    /// Where a grafted MTP head came from (`None`: the checkpoint's own head, or none).
    pub mtp_source: Option<PathBuf>,
    /// The hyperparameters.
    pub hparams: Hparams,
    /// Seconds spent writing the unquantised file.
    pub convert_seconds: f64,
    /// Seconds spent quantising (0 for float outputs).
    pub quantize_seconds: f64,
}

fn to_f32(bytes: &[u8], dtype: Dtype) -> Vec<f32> {
    match dtype {
        Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        Dtype::BF16 => {
            bytes.chunks_exact(2).map(|b| bf16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()).collect()
        }
        Dtype::F16 => {
            bytes.chunks_exact(2).map(|b| f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()).collect()
        }
        _ => unreachable!("dtypes are checked before writing"),
    }
}

fn encode(values: &[f32], ty: GgmlType, out: &mut Vec<u8>) {
    out.clear();
    match ty {
        GgmlType::F32 => values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        GgmlType::F16 => values.iter().for_each(|v| out.extend_from_slice(&f16::from_f32(*v).to_le_bytes())),
        GgmlType::Bf16 => values.iter().for_each(|v| out.extend_from_slice(&bf16::from_f32(*v).to_le_bytes())),
    }
}

/// Converts `bytes` of `dtype` to `ty`, in chunks, straight into `w` (no whole-tensor copy).
fn stream_convert(bytes: &[u8], dtype: Dtype, ty: GgmlType, w: &mut dyn Write) -> std::io::Result<()> {
    let same = matches!(
        (dtype, ty),
        (Dtype::F32, GgmlType::F32) | (Dtype::F16, GgmlType::F16) | (Dtype::BF16, GgmlType::Bf16)
    );
    if same {
        return w.write_all(bytes);
    }
    let elem = dtype.bitsize() / 8;
    let mut buf = Vec::new();
    for chunk in bytes.chunks(elem * (1 << 16)) {
        encode(&to_f32(chunk, dtype), ty, &mut buf);
        w.write_all(&buf)?;
    }
    Ok(())
}

/// Reads `README.md`'s YAML front matter for a key (`license: apache-2.0`).
fn front_matter(dir: &Path, key: &str) -> Option<String> {
    let text = regular_file::read_text_at_most(&dir.join("README.md"), regular_file::MAX_CONFIG_BYTES).ok()?;
    let body = text.strip_prefix("---")?;
    let end = body.find("\n---")?;
    body[..end].lines().find_map(|l| {
        let v = l.strip_prefix(key)?.strip_prefix(':')?.trim().trim_matches('"');
        (!v.is_empty()).then(|| v.to_string())
    })
}

fn general_metadata(ck: &Checkpoint, opts: &ConvertOptions, file_type: u32) -> Vec<(String, Gv)> {
    let name = opts
        .name
        .clone()
        .or_else(|| ck.dir.canonicalize().ok()?.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "qwen3.5".into());
    let mut md = vec![
        ("general.architecture".to_string(), Gv::Str("qwen35".into())),
        ("general.type".to_string(), Gv::Str("model".into())),
        ("general.name".to_string(), Gv::Str(name)),
        ("general.file_type".to_string(), Gv::U32(file_type)),
        ("general.quantization_version".to_string(), Gv::U32(2)),
    ];
    if let Some(l) = front_matter(&ck.dir, "license") {
        md.push(("general.license".into(), Gv::Str(l)));
    }
    if let Some(b) = front_matter(&ck.dir, "base_model") {
        md.push(("general.base_model.count".into(), Gv::U32(1)));
        md.push(("general.base_model.0.repo_url".into(), Gv::Str(format!("https://huggingface.co/{b}"))));
        md.push(("general.base_model.0.name".into(), Gv::Str(b)));
    }
    if let Some(r) = &opts.repo {
        md.push(("general.source.huggingface.repository".into(), Gv::Str(r.clone())));
    }
    if let Some(g) = &ck.generation_config {
        if let Some(t) = g.get("temperature").and_then(serde_json::Value::as_f64) {
            md.push(("general.sampling.temp".into(), Gv::F32(t as f32)));
        }
        if let Some(p) = g.get("top_p").and_then(serde_json::Value::as_f64) {
            md.push(("general.sampling.top_p".into(), Gv::F32(p as f32)));
        }
        if let Some(k) = g.get("top_k").and_then(serde_json::Value::as_i64) {
            md.push(("general.sampling.top_k".into(), Gv::I32(k as i32)));
        }
    }
    md
}

/// What [`write_float`] wrote.
struct Written {
    bytes: u64,
    tensors: usize,
    dropped: usize,
    mtp_tensors: usize,
    mtp_source: Option<PathBuf>,
}

/// Writes one checkpoint tensor's values, transformed as planned.
fn write_planned(ck: &Checkpoint, p: &qwen35::Planned, buf: &mut Vec<u8>, w: &mut dyn Write) -> std::io::Result<()> {
    let src = &ck.tensors[&p.source];
    let data = ck.bytes(src);
    if p.transform == Transform::None && p.reorder.is_none() {
        stream_convert(data, src.dtype, p.info.ty, w)?;
    } else {
        let mut v = to_f32(data, src.dtype);
        match p.transform {
            Transform::None => {}
            Transform::AddOne => v.iter_mut().for_each(|x| *x += 1.0),
            Transform::NegExp => v.iter_mut().for_each(|x| *x = -x.exp()),
        }
        if let Some(r) = p.reorder {
            // Rows of a matrix; a vector is a column of one-element rows.
            let ncols = if p.info.ne.len() == 1 { 1 } else { p.info.ne[0] as usize };
            r.apply(&mut v, ncols);
        }
        encode(&v, p.info.ty, buf);
        w.write_all(buf)?;
    }
    ck.release(src);
    Ok(())
}

fn check_dtypes<'a>(ck: &Checkpoint, plan: impl IntoIterator<Item = &'a qwen35::Planned>) -> Result<(), ConvertError> {
    for p in plan {
        let dtype = ck.tensors[&p.source].dtype;
        if !matches!(dtype, Dtype::BF16 | Dtype::F16 | Dtype::F32) {
            return Err(ConvertError::Dtype { tensor: p.source.clone(), dtype: format!("{dtype:?}") });
        }
    }
    Ok(())
}

/// Writes the unquantised GGUF of `ck` to `out`, with the MTP head `opts.mtp` asks for.
fn write_float(
    ck: &Checkpoint,
    h: &Hparams,
    out: &Path,
    ty: GgmlType,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Written, ConvertError> {
    let (plan, dropped) = qwen35::plan(ck, h, ty)?;
    check_dtypes(ck, &plan)?;
    let head = mtp::resolve(ck, h, &opts.mtp, ty)?;
    let head_ck = match &head {
        mtp::Head::Own(_) => Some(ck),
        mtp::Head::Checkpoint(base, _) => Some(&**base),
        _ => None,
    };
    let head_planned = || {
        head.tensors().iter().filter_map(|t| match t {
            mtp::HeadTensor::Checkpoint(p) => Some(p),
            mtp::HeadTensor::Gguf { .. } => None,
        })
    };
    if let Some(hc) = head_ck {
        check_dtypes(hc, head_planned())?;
    }
    // The checkpoint's own head tensors are written, not dropped.
    let own: std::collections::HashSet<&str> = match head {
        mtp::Head::Own(_) => head_planned().map(|p| p.source.as_str()).collect(),
        _ => Default::default(),
    };
    let dropped = dropped.iter().filter(|d| !own.contains(d.as_str())).count();
    let mut h = h.clone();
    h.nextn_layers = usize::from(!head.tensors().is_empty());
    let file_type = match ty {
        GgmlType::F32 => 0,
        GgmlType::F16 => 1,
        GgmlType::Bf16 => 32,
    };
    let mut md = general_metadata(ck, opts, file_type);
    md.extend(h.metadata());
    md.extend(tokenizer::metadata(ck, h.vocab)?);
    let infos: Vec<gguf::TensorInfo> =
        plan.iter().map(|p| p.info.clone()).chain(head.tensors().iter().map(|t| t.info().clone())).collect();
    let total = infos.len();
    let mut buf = Vec::new();
    let bytes = gguf::write(
        out,
        &md,
        &infos,
        |i, w| -> std::io::Result<()> {
            if let Some(p) = plan.get(i) {
                return write_planned(ck, p, &mut buf, w);
            }
            match (&head.tensors()[i - plan.len()], &head) {
                (mtp::HeadTensor::Checkpoint(p), _) => write_planned(head_ck.unwrap_or(ck), p, &mut buf, w),
                (mtp::HeadTensor::Gguf { info, source }, mtp::Head::Gguf(g, _)) => {
                    encode(&g.values(source), info.ty, &mut buf);
                    w.write_all(&buf)
                }
                (mtp::HeadTensor::Gguf { info, .. }, _) => {
                    Err(std::io::Error::other(format!("{}: no GGUF source (a bug)", info.name)))
                }
            }
        },
        |i| progress(Progress::Tensor { index: i, total, name: &infos[i].name }),
    )
    .map_err(|e| match e {
        gguf::WriteError::Io(source) | gguf::WriteError::Data(source) => {
            ConvertError::Io { path: out.to_path_buf(), source }
        }
        other => ConvertError::Io { path: out.to_path_buf(), source: std::io::Error::other(other.to_string()) },
    })?;
    Ok(Written {
        bytes,
        tensors: total,
        dropped,
        mtp_tensors: head.tensors().len(),
        mtp_source: head.source().map(Path::to_path_buf),
    })
}

/// Refuses an output that is a folder, or any file the conversion reads: the checkpoint's, the
/// MTP head's source, the importance matrix.
fn check_convert_output(dir: &Path, out: &Path, opts: &ConvertOptions) -> Result<(), ConvertError> {
    let folder_name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "model".into());
    let default_name = format!("{folder_name}-{}.gguf", opts.out_type);
    let mut inputs = vec![atomic::Input::folder("a file of the checkpoint folder", dir)];
    if let Mtp::Graft(g) = &opts.mtp {
        inputs.push(if g.from.is_dir() {
            atomic::Input::folder("a file of the MTP head's source folder", &g.from)
        } else {
            atomic::Input::file("the MTP head's source", &g.from)
        });
    }
    if let Some(m) = &opts.imatrix {
        inputs.push(atomic::Input::file("the importance matrix", m));
    }
    Ok(atomic::check_output(out, &default_name, &inputs)?)
}

/// Converts the checkpoint in `dir` to a GGUF at `out` (written to a temporary file and renamed:
/// a failed or interrupted conversion leaves nothing behind). An output that is a folder, or a
/// file the conversion reads, is refused before anything is read.
pub fn convert(
    dir: &Path,
    out: &Path,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Report, ConvertError> {
    check_convert_output(dir, out, opts)?;
    // What would stop the quantiser is found before the conversion's minutes, not after.
    let imatrix = opts.imatrix.as_deref().map(|p| Imatrix::read(p).map(|m| (m, p))).transpose()?;
    if let OutType::Quant(q) = opts.out_type {
        if q.needs_imatrix() && imatrix.is_none() {
            return Err(ConvertError::NeedsImatrix(q));
        }
    }
    let ck = Checkpoint::open(dir)?;
    let h = Hparams::from_checkpoint(&ck)?;
    let started = Instant::now();
    let (written, convert_seconds, quantize_seconds) = match opts.out_type {
        OutType::Float(ty) => {
            let written = write_float(&ck, &h, out, ty, opts, progress)?;
            (written, started.elapsed().as_secs_f64(), 0.0)
        }
        OutType::Quant(q) => {
            // bf16 is lossless for bf16 checkpoints; the quantiser reads it.
            let dir_out = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let (intermediate, _removed_if_interrupted) = atomic::Pending::create(|| {
                let tmp = tempfile::Builder::new().prefix(".sqale-bf16-").suffix(".gguf").tempfile_in(dir_out)?;
                let path = tmp.path().to_path_buf();
                Ok((tmp.into_temp_path(), path))
            })
            .map_err(|e| ConvertError::Io { path: dir_out.to_path_buf(), source: e })?;
            let mut written = write_float(&ck, &h, &intermediate, GgmlType::Bf16, opts, progress)?;
            let convert_seconds = started.elapsed().as_secs_f64();
            let t = Instant::now();
            let qopts = QuantizeOptions {
                threads: opts.threads,
                imatrix: imatrix.as_ref().map(|(m, p)| (m, *p)),
                allow_requantize: false,
            };
            let bytes = quantize(&intermediate, out, q, &qopts, &mut |index, total| {
                progress(Progress::Quantize { index, total })
            })?;
            written.bytes = bytes;
            (written, convert_seconds, t.elapsed().as_secs_f64())
        }
    };
    let mut hparams = h;
    hparams.nextn_layers = usize::from(written.mtp_tensors > 0);
    Ok(Report {
        output: out.to_path_buf(),
        bytes: written.bytes,
        tensors: written.tensors,
        dropped: written.dropped,
        mtp_tensors: written.mtp_tensors,
        mtp_source: written.mtp_source,
        hparams,
        convert_seconds,
        quantize_seconds,
    })
}

/// The refusal to requantise `input` (quantised as `from`) to `to`: to f32 nothing is rounded
/// again (its weights are dequantised exactly), to any other type it is.
fn requantize_message(input: &Path, from: &str, to: QuantType) -> String {
    if to == QuantType::F32 {
        format!(
            "{} is already quantised ({from}): dequantising it to f32 gives its {from} weights exactly, as a full-precision file no closer to the original model than {from}; allow requantising to make it",
            input.display()
        )
    } else {
        format!(
            "{} is already quantised ({from}): quantising it to {to} carries both roundings. Quantise from the f16/bf16 file instead, or allow requantising to do it anyway",
            input.display()
        )
    }
}
