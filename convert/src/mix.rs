//! The tensor types a GGUF file really holds, and the tensors that could not take its file
//! type's blocks.
//!
//! A file named for one type mixes several: the `_m` and `_s` variants keep some tensors at more
//! bits, norms stay `f32`, and a weight whose rows do not divide into the type's blocks is stored
//! by llama.cpp in a larger type instead (a k-quant's super-blocks hold 256 weights: SmolLM2's
//! 576-wide rows take `q4_0` and `q5_0` in a "q3_k_m" file). [`type_mix`] counts what is there;
//! [`fallback`] says which tensors fell back and why.

use serde::{Deserialize, Serialize};

use crate::gguf::{self, GgmlType};

/// The tensors of one ggml type in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeCount {
    /// ggml's name for the type (`q4_0`, `q4_K`, `f32`).
    #[serde(rename = "type")]
    pub name: String,
    /// Tensors of that type.
    pub tensors: usize,
    /// Their elements (weights).
    pub elements: u64,
}

/// Every type in `header` with its tensors and elements, most elements first.
pub fn type_mix(header: &gguf::GgufHeader) -> Vec<TypeCount> {
    let mut mix: Vec<TypeCount> = Vec::new();
    for t in &header.tensors {
        match mix.iter_mut().find(|m| m.name == t.type_name()) {
            Some(m) => {
                m.tensors += 1;
                m.elements += t.elements();
            }
            None => mix.push(TypeCount { name: t.type_name().to_string(), tensors: 1, elements: t.elements() }),
        }
    }
    mix.sort_by(|a, b| b.elements.cmp(&a.elements).then(a.name.cmp(&b.name)));
    mix
}

/// The mix in words: `120 q4_0, 58 q5_0, 29 q4_K, 65 f32` (tensors per type, most weights first).
pub fn mix_text(mix: &[TypeCount]) -> String {
    mix.iter().map(|m| format!("{} {}", m.tensors, m.name)).collect::<Vec<_>>().join(", ")
}

/// The tensors of a quantised file stored in another type than its file type's, because their
/// rows do not divide into that type's blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fallback {
    /// The file type the header declares (`general.file_type`: `q3_k_m`).
    pub file_type: String,
    /// Weights per block of that type (256 for the k-quants and most lattice types).
    pub block: u64,
    /// Quantised tensors whose rows are not a multiple of `block`: each is stored in another
    /// type.
    pub tensors: usize,
    /// Quantised tensors in the file (not f32, f16 or bf16).
    pub quantised: usize,
    /// The row widths that do not divide, smallest first.
    pub widths: Vec<u64>,
    /// The types those tensors were stored in, as [`type_mix`] counts them.
    pub into: Vec<TypeCount>,
}

impl Fallback {
    /// The fallback in one sentence, for a warning or a report: how many, why, and into what.
    pub fn sentence(&self) -> String {
        let widths: Vec<String> = self.widths.iter().map(u64::to_string).collect();
        format!(
            "{} of {} quantised tensors are not {}: their rows ({} wide) are not a multiple of its {}-weight blocks, so llama.cpp stored them as {}",
            self.tensors,
            self.quantised,
            self.file_type,
            widths.join(", "),
            self.block,
            mix_text(&self.into)
        )
    }

    /// A short label for where a type is shown: `q3_k_m, mostly q4_0 (fallback)`.
    pub fn label(&self, mix: &[TypeCount]) -> String {
        let quantised: Vec<&TypeCount> = mix.iter().filter(|m| !is_float(&m.name)).collect();
        match quantised.first() {
            Some(main) => format!("{}, mostly {} (fallback)", self.file_type, main.name),
            None => format!("{} (fallback)", self.file_type),
        }
    }
}

fn is_float(name: &str) -> bool {
    ["f32", "f16", "bf16"].contains(&name)
}

/// Weights per block of the type a file type is named for; `None` for float file types and
/// names llama.cpp's file types do not use.
fn file_type_block(file_type: &str) -> Option<u64> {
    let t = file_type.to_ascii_lowercase();
    if is_float(&t) {
        return None;
    }
    let legacy = ["q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "iq4_nl"];
    if legacy.contains(&t.as_str()) {
        Some(32)
    } else if (t.starts_with('q') && t.contains("_k")) || t.starts_with("iq") {
        Some(256)
    } else {
        None
    }
}

/// The tensors of `header` that fell back from its file type, when any did: quantised tensors
/// whose rows (`ne[0]`) are not a multiple of the file type's block. `None` for a float file, one
/// without `general.file_type`, or one where every quantised tensor could take the type.
pub fn fallback(header: &gguf::GgufHeader) -> Option<Fallback> {
    let file_type = crate::quantize::file_type(header)?;
    let block = file_type_block(file_type)?;
    let floats = [GgmlType::F32.id(), GgmlType::F16.id(), GgmlType::Bf16.id()];
    let quantised: Vec<&gguf::TensorHeader> = header.tensors.iter().filter(|t| !floats.contains(&t.ty)).collect();
    let fell: Vec<&gguf::TensorHeader> =
        quantised.iter().copied().filter(|t| t.ne.first().is_some_and(|w| w % block != 0)).collect();
    if fell.is_empty() {
        return None;
    }
    let mut widths: Vec<u64> = fell.iter().filter_map(|t| t.ne.first().copied()).collect();
    widths.sort_unstable();
    widths.dedup();
    let sub = gguf::GgufHeader { tensors: fell.iter().map(|t| (*t).clone()).collect(), ..header.clone() };
    Some(Fallback {
        file_type: file_type.to_string(),
        block,
        tensors: fell.len(),
        quantised: quantised.len(),
        widths,
        into: type_mix(&sub),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(name: &str, ne0: u64, ty: u32) -> gguf::TensorHeader {
        gguf::TensorHeader { name: name.into(), ne: vec![ne0, 4], ty, offset: 0, size: 0 }
    }

    fn header(file_type: u64, tensors: Vec<gguf::TensorHeader>) -> gguf::GgufHeader {
        gguf::GgufHeader {
            version: 3,
            metadata: vec![("general.file_type".into(), gguf::Value::U32(file_type as u32))],
            tensors,
            alignment: 32,
            data_offset: 0,
            file_size: 0,
        }
    }

    #[test]
    fn rows_that_do_not_divide_into_super_blocks_are_counted_as_fallback() {
        // A q3_k_m file (12) with two 576-wide weights in q4_0 (2), one 256-wide in q4_K (12)
        // and a norm in f32.
        let h = header(12, vec![tensor("a", 576, 2), tensor("b", 576, 2), tensor("c", 256, 12), tensor("n", 576, 0)]);
        let mix = type_mix(&h);
        assert_eq!(mix_text(&mix), "2 q4_0, 1 f32, 1 q4_K");
        let f = fallback(&h).expect("a fallback");
        assert_eq!((f.tensors, f.quantised, f.block, f.widths.clone()), (2, 3, 256, vec![576]));
        assert_eq!(
            f.sentence(),
            "2 of 3 quantised tensors are not q3_k_m: their rows (576 wide) are not a multiple of its 256-weight blocks, so llama.cpp stored them as 2 q4_0"
        );
        assert_eq!(f.label(&mix), "q3_k_m, mostly q4_0 (fallback)");
        // A q4_0 file (2) of the same shapes takes its type everywhere.
        assert_eq!(fallback(&header(2, vec![tensor("a", 576, 2), tensor("n", 576, 0)])), None);
        // A float file has no fallback.
        assert_eq!(fallback(&header(0, vec![tensor("a", 576, 0)])), None);
    }
}
