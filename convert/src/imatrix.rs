//! Importance matrices in llama.cpp's GGUF form: what `llama-imatrix` writes and
//! `llama-quantize --imatrix` reads, read and written here in Rust.
//!
//! A file holds, for every weight matrix that multiplies activations, the sum over the
//! calibration tokens of each input column's squared activation (`<name>.in_sum2`, f32, `ne =
//! [columns, matrices]`), and how many tokens were summed (`<name>.counts`, f32, `ne = [1,
//! matrices]`; one matrix for a dense weight, one per expert for a mixture). The metadata is
//! `general.type = "imatrix"`, `imatrix.datasets` (the calibration sources), `imatrix.chunk_count`
//! and `imatrix.chunk_size`. The quantiser weighs each column's rounding error by its mean
//! squared activation ([`Entry::importance`]).

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::gguf::{self, GgmlType, GgufHeader, TensorInfo, Value};

/// `general.type` of an importance matrix file.
pub const GENERAL_TYPE: &str = "imatrix";
/// The calibration sources (array of strings).
pub const KEY_DATASETS: &str = "imatrix.datasets";
/// Chunks the statistics were collected over (u32).
pub const KEY_CHUNK_COUNT: &str = "imatrix.chunk_count";
/// Tokens per chunk (u32).
pub const KEY_CHUNK_SIZE: &str = "imatrix.chunk_size";
const SUMS: &str = ".in_sum2";
const COUNTS: &str = ".counts";

/// One weight matrix's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Sum of squared activations per input column, `columns × matrices` (column fastest).
    pub sums: Vec<f32>,
    /// Tokens summed, per matrix (one for a dense weight).
    pub counts: Vec<f32>,
}

impl Entry {
    /// An empty entry for a weight of `columns` input columns and `matrices` matrices.
    pub fn zeros(columns: usize, matrices: usize) -> Entry {
        Entry { sums: vec![0.0; columns * matrices.max(1)], counts: vec![0.0; matrices.max(1)] }
    }

    /// Input columns of the weight (`ne[0]`).
    pub fn columns(&self) -> usize {
        self.sums.len() / self.counts.len().max(1)
    }

    /// What the quantiser weighs columns by: the mean squared activation (sum / count) per
    /// column, and 1 for a matrix that saw no token, as `llama-quantize` computes it.
    pub fn importance(&self) -> Vec<f32> {
        let cols = self.columns();
        let mut out = Vec::with_capacity(self.sums.len());
        for (m, &count) in self.counts.iter().enumerate() {
            let row = &self.sums[m * cols..(m + 1) * cols];
            if count > 0.0 {
                out.extend(row.iter().map(|s| s / count));
            } else {
                out.extend(std::iter::repeat_n(1.0, cols));
            }
        }
        out
    }
}

/// An importance matrix: one [`Entry`] per weight, by GGUF tensor name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imatrix {
    /// Statistics per weight (`blk.0.attn_q.weight`, ...).
    pub entries: BTreeMap<String, Entry>,
    /// Where the calibration tokens came from.
    pub datasets: Vec<String>,
    /// Chunks collected.
    pub chunk_count: u32,
    /// Tokens per chunk.
    pub chunk_size: u32,
}

/// Why an importance matrix could not be read, written or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImatrixError {
    /// The file is not valid GGUF (truncated, damaged, not GGUF).
    #[error("{0}: make the importance matrix again (`sqale imatrix`)")]
    Gguf(#[from] gguf::ReadError),
    /// A GGUF file that is not an importance matrix, or one with inconsistent entries.
    #[error("{path} is not an importance matrix llama.cpp can read: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The matrix does not belong to the model it is to be used with.
    #[error("the importance matrix {imatrix} does not belong to {model}: {reason}. Make one for this model")]
    WrongModel {
        /// The importance matrix file.
        imatrix: PathBuf,
        /// The model.
        model: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl Imatrix {
    /// Reads an importance matrix in llama.cpp's GGUF form (what `llama-imatrix` writes by default).
    pub fn read(path: &Path) -> Result<Imatrix, ImatrixError> {
        let header = gguf::read_header(path)?;
        let invalid = |reason: String| ImatrixError::Invalid { path: path.to_path_buf(), reason };
        match header.get("general.type").and_then(Value::as_str) {
            Some(GENERAL_TYPE) => {}
            _ if header.architecture().is_some() => {
                return Err(invalid(
                    "it is a model, not an importance matrix: give the file `sqale imatrix` or llama-imatrix wrote"
                        .into(),
                ))
            }
            Some(other) => return Err(invalid(format!("general.type is {other:?}, not \"imatrix\""))),
            None => return Err(invalid("general.type \"imatrix\" is missing".into())),
        }
        let u32_key = |key: &str| header.get(key).and_then(Value::as_u64).map(|v| v as u32);
        let (Some(chunk_count), Some(chunk_size)) = (u32_key(KEY_CHUNK_COUNT), u32_key(KEY_CHUNK_SIZE)) else {
            return Err(invalid(format!("{KEY_CHUNK_COUNT} or {KEY_CHUNK_SIZE} is missing")));
        };
        let datasets = match header.get(KEY_DATASETS).and_then(Value::as_array) {
            Some(gguf::Array::Str(v)) => v.clone(),
            _ => return Err(invalid(format!("{KEY_DATASETS} (an array of strings) is missing"))),
        };
        let mut file =
            crate::regular_file::open(path).map_err(|e| ImatrixError::Io { path: path.to_path_buf(), source: e })?;
        let mut floats = |t: &gguf::TensorHeader| -> Result<Vec<f32>, ImatrixError> {
            if t.ty != GgmlType::F32.id() {
                return Err(invalid(format!("{} is {}, not f32", t.name, t.type_name())));
            }
            let io = |e| ImatrixError::Io { path: path.to_path_buf(), source: e };
            file.seek(SeekFrom::Start(header.data_offset + t.offset)).map_err(io)?;
            let mut bytes = vec![0u8; t.size as usize];
            file.read_exact(&mut bytes).map_err(io)?;
            Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        };
        let mut entries = BTreeMap::new();
        for t in &header.tensors {
            if let Some(name) = t.name.strip_suffix(SUMS) {
                let counts_name = format!("{name}{COUNTS}");
                let Some(c) = header.tensor(&counts_name) else {
                    return Err(invalid(format!("{} has no {counts_name} beside it", t.name)));
                };
                let matrices = t.ne.get(1).copied().unwrap_or(1);
                if c.elements() != matrices || t.ne.len() > 2 {
                    return Err(invalid(format!(
                        "{} has shape {:?} but {counts_name} has {} counts",
                        t.name,
                        t.ne,
                        c.elements()
                    )));
                }
                let entry = Entry { sums: floats(t)?, counts: floats(c)? };
                if entry.sums.iter().chain(&entry.counts).any(|v| !v.is_finite())
                    || entry.counts.iter().any(|&c| c < 0.0)
                {
                    return Err(invalid(format!("{name} holds a value that is not finite, or a negative count")));
                }
                entries.insert(name.to_string(), entry);
            } else if let Some(name) = t.name.strip_suffix(COUNTS) {
                if header.tensor(&format!("{name}{SUMS}")).is_none() {
                    return Err(invalid(format!("{} has no {name}{SUMS} beside it", t.name)));
                }
            }
        }
        if entries.is_empty() {
            return Err(invalid("it holds no entries".into()));
        }
        Ok(Imatrix { entries, datasets, chunk_count, chunk_size })
    }

    /// Writes the matrix in llama.cpp's GGUF form, entries in name order, to a temporary file
    /// renamed into place (nothing is left behind on failure). Returns the bytes written.
    pub fn write(&self, path: &Path) -> Result<u64, ImatrixError> {
        let metadata = vec![
            ("general.type".to_string(), Value::Str(GENERAL_TYPE.into())),
            (KEY_DATASETS.to_string(), Value::Array(gguf::Array::Str(self.datasets.clone()))),
            (KEY_CHUNK_COUNT.to_string(), Value::U32(self.chunk_count)),
            (KEY_CHUNK_SIZE.to_string(), Value::U32(self.chunk_size)),
        ];
        let mut tensors = Vec::with_capacity(self.entries.len() * 2);
        let mut data: Vec<&[f32]> = Vec::with_capacity(self.entries.len() * 2);
        for (name, e) in &self.entries {
            let matrices = e.counts.len() as u64;
            tensors.push(TensorInfo {
                name: format!("{name}{SUMS}"),
                ne: vec![e.columns() as u64, matrices],
                ty: GgmlType::F32,
            });
            tensors.push(TensorInfo { name: format!("{name}{COUNTS}"), ne: vec![1, matrices], ty: GgmlType::F32 });
            data.push(&e.sums);
            data.push(&e.counts);
        }
        gguf::write(
            path,
            &metadata,
            &tensors,
            |i, out| {
                let bytes: Vec<u8> = data[i].iter().flat_map(|v| v.to_le_bytes()).collect();
                out.write_all(&bytes)
            },
            |_| {},
        )
        .map_err(|e| match e {
            gguf::WriteError::Io(source) | gguf::WriteError::Data(source) => {
                ImatrixError::Io { path: path.to_path_buf(), source }
            }
            other => ImatrixError::Invalid { path: path.to_path_buf(), reason: other.to_string() },
        })
    }

    /// Checks that the matrix was made for the model whose header is `model`: every entry names
    /// one of its tensors with the same input columns and matrices, and every weight matrix of
    /// its blocks that the quantiser will weigh has an entry. The MTP head's block (the last
    /// `nextn_predict_layers` of `block_count`) is exempt: decoding never runs it, so no
    /// calibration sees it.
    pub fn check_model(&self, model: &GgufHeader, imatrix_path: &Path, model_path: &Path) -> Result<(), ImatrixError> {
        let wrong = |reason: String| ImatrixError::WrongModel {
            imatrix: imatrix_path.to_path_buf(),
            model: model_path.to_path_buf(),
            reason,
        };
        let mut unknown = Vec::new();
        for (name, e) in &self.entries {
            let Some(t) = model.tensor(name) else {
                unknown.push(name.as_str());
                continue;
            };
            let matrices = t.ne.get(2).copied().unwrap_or(1) as usize;
            if t.ne[0] as usize != e.columns() || (e.counts.len() != matrices && e.counts.len() != 1) {
                return Err(wrong(format!(
                    "{name} has {} input columns × {} matrices in the model but {} × {} in the matrix",
                    t.ne[0],
                    matrices,
                    e.columns(),
                    e.counts.len()
                )));
            }
        }
        if !unknown.is_empty() {
            return Err(wrong(format!(
                "{} of its {} entries name no tensor of the model (the first: {})",
                unknown.len(),
                self.entries.len(),
                unknown[0]
            )));
        }
        let arch = model.architecture().unwrap_or_default();
        let nextn = model.get(&format!("{arch}.nextn_predict_layers")).and_then(Value::as_u64).unwrap_or(0);
        // The blocks decoding runs: llama.cpp counts the MTP head's block in block_count.
        let blocks = model.get(&format!("{arch}.block_count")).and_then(Value::as_u64).map(|n| n.saturating_sub(nextn));
        let missing: Vec<&str> = model
            .tensors
            .iter()
            .filter(|t| t.ne.len() >= 2 && t.ne[1] > 1 && weighed(&t.name))
            .filter(|t| match block_of(&t.name) {
                Some(b) => blocks.is_none_or(|n| b < n),
                None => false,
            })
            .filter(|t| !self.entries.contains_key(&t.name))
            .map(|t| t.name.as_str())
            .collect();
        if let Some(first) = missing.first() {
            return Err(wrong(format!(
                "it has no entry for {} of the model's weight matrices (the first: {first}): it was made for another model, or cut short",
                missing.len()
            )));
        }
        Ok(())
    }

    /// Adds `other`'s statistics to this one's (as `llama-imatrix --in-file` merges files).
    pub fn merge(&mut self, other: &Imatrix) {
        for (name, e) in &other.entries {
            match self.entries.get_mut(name) {
                Some(mine) if mine.sums.len() == e.sums.len() && mine.counts.len() == e.counts.len() => {
                    mine.sums.iter_mut().zip(&e.sums).for_each(|(a, b)| *a += b);
                    mine.counts.iter_mut().zip(&e.counts).for_each(|(a, b)| *a += b);
                }
                Some(_) => {}
                None => {
                    self.entries.insert(name.clone(), e.clone());
                }
            }
        }
        self.datasets.extend(other.datasets.iter().cloned());
        self.chunk_count += other.chunk_count;
    }
}

/// Whether llama.cpp's quantiser quantises (and so weighs by the matrix) a 2-D tensor of this
/// name: weights but the norms, the expert router and the recurrent convolution.
fn weighed(name: &str) -> bool {
    name.ends_with(".weight")
        && !name.ends_with("_norm.weight")
        && !name.contains("ffn_gate_inp")
        && !name.contains("ssm_conv1d")
}

/// `blk.N.` → N.
fn block_of(name: &str) -> Option<u64> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Imatrix {
        let mut entries = BTreeMap::new();
        entries.insert("blk.0.attn_q.weight".into(), Entry { sums: vec![4.0, 8.0, 0.5], counts: vec![2.0] });
        entries.insert(
            "blk.0.ffn_up_exps.weight".into(),
            Entry { sums: vec![1.0, 2.0, 3.0, 4.0], counts: vec![1.0, 0.0] },
        );
        Imatrix { entries, datasets: vec!["episodes:a".into()], chunk_count: 3, chunk_size: 512 }
    }

    #[test]
    fn importance_is_the_mean_and_one_where_nothing_was_seen() {
        let m = sample();
        assert_eq!(m.entries["blk.0.attn_q.weight"].importance(), vec![2.0, 4.0, 0.25]);
        assert_eq!(m.entries["blk.0.ffn_up_exps.weight"].importance(), vec![1.0, 2.0, 1.0, 1.0]);
        assert_eq!(m.entries["blk.0.ffn_up_exps.weight"].columns(), 2);
    }

    #[test]
    fn writes_and_reads_back_and_refuses_what_is_not_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.imatrix.gguf");
        let m = sample();
        m.write(&path).unwrap();
        assert_eq!(Imatrix::read(&path).unwrap(), m);

        // Truncated: the header promises data the file does not hold.
        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.path().join("cut.gguf");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let e = Imatrix::read(&cut).unwrap_err().to_string();
        assert!(e.contains("not a valid GGUF") && e.contains("sqale imatrix"), "{e}");

        // Not an imatrix: no general.type.
        let other = dir.path().join("other.gguf");
        gguf::write::<std::io::Error>(&other, &[], &[], |_, _| Ok(()), |_| {}).unwrap();
        let e = Imatrix::read(&other).unwrap_err().to_string();
        assert!(e.contains("general.type"), "{e}");
    }

    #[test]
    fn merging_adds_sums_and_counts() {
        let mut a = sample();
        a.merge(&sample());
        assert_eq!(a.entries["blk.0.attn_q.weight"].sums, vec![8.0, 16.0, 1.0]);
        assert_eq!(a.entries["blk.0.attn_q.weight"].counts, vec![4.0]);
        assert_eq!(a.chunk_count, 6);
        assert_eq!(a.datasets.len(), 2);
    }
}
