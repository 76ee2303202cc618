//! ggml's tensor types: the few the writer produces, and the storage of every type a file may
//! hold (for the reader's size checks).

/// The ggml tensor types this writer produces directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
}

impl GgmlType {
    /// The `ggml_type` id.
    pub fn id(self) -> u32 {
        match self {
            GgmlType::F32 => 0,
            GgmlType::F16 => 1,
            GgmlType::Bf16 => 30,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            GgmlType::F32 => 4,
            GgmlType::F16 | GgmlType::Bf16 => 2,
        }
    }
}

/// A ggml tensor type's storage: `block_elems` elements take `block_bytes` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeLayout {
    /// ggml's name for the type (`"q4_K"`, `"bf16"`, ...).
    pub name: &'static str,
    /// Elements per block (1 for the plain types).
    pub block_elems: u64,
    /// Bytes per block.
    pub block_bytes: u64,
}

/// The storage of ggml type `id`, as ggml's `type_traits` table has it; `None` for ids ggml does
/// not know or no longer supports in files (4, 5, 31–33, 36–38, ids past the last).
pub fn type_layout(id: u32) -> Option<TypeLayout> {
    let (name, block_elems, block_bytes) = match id {
        0 => ("f32", 1, 4),
        1 => ("f16", 1, 2),
        2 => ("q4_0", 32, 18),
        3 => ("q4_1", 32, 20),
        6 => ("q5_0", 32, 22),
        7 => ("q5_1", 32, 24),
        8 => ("q8_0", 32, 34),
        9 => ("q8_1", 32, 36),
        10 => ("q2_K", 256, 84),
        11 => ("q3_K", 256, 110),
        12 => ("q4_K", 256, 144),
        13 => ("q5_K", 256, 176),
        14 => ("q6_K", 256, 210),
        15 => ("q8_K", 256, 292),
        16 => ("iq2_xxs", 256, 66),
        17 => ("iq2_xs", 256, 74),
        18 => ("iq3_xxs", 256, 98),
        19 => ("iq1_s", 256, 50),
        20 => ("iq4_nl", 32, 18),
        21 => ("iq3_s", 256, 110),
        22 => ("iq2_s", 256, 82),
        23 => ("iq4_xs", 256, 136),
        24 => ("i8", 1, 1),
        25 => ("i16", 1, 2),
        26 => ("i32", 1, 4),
        27 => ("i64", 1, 8),
        28 => ("f64", 1, 8),
        29 => ("iq1_m", 256, 56),
        30 => ("bf16", 1, 2),
        34 => ("tq1_0", 256, 54),
        35 => ("tq2_0", 256, 66),
        39 => ("mxfp4", 32, 17),
        40 => ("nvfp4", 64, 36),
        41 => ("q1_0", 128, 18),
        42 => ("q2_0", 64, 18),
        _ => return None,
    };
    Some(TypeLayout { name, block_elems, block_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use llama_cpp_sys_2 as sys;

    /// The table agrees with the linked ggml's `type_traits` for every id it knows, and has
    /// no entry where ggml has a removed type (block size 0).
    #[test]
    fn type_layouts_match_ggml() {
        for id in 0..sys::GGML_TYPE_COUNT {
            // SAFETY: ids below GGML_TYPE_COUNT index ggml's table.
            let (blck, size) = unsafe { (sys::ggml_blck_size(id), sys::ggml_type_size(id)) };
            match type_layout(id) {
                Some(l) => {
                    assert_eq!((l.block_elems as i64, l.block_bytes as usize), (blck, size), "type {id} ({})", l.name);
                    // SAFETY: as above; ggml returns a static C string.
                    let name = unsafe { std::ffi::CStr::from_ptr(sys::ggml_type_name(id)) };
                    assert_eq!(name.to_str().unwrap(), l.name, "type {id}");
                }
                None => assert_eq!(blck, 0, "type {id} is missing from the table"),
            }
        }
        assert_eq!(type_layout(sys::GGML_TYPE_COUNT), None);
    }

    /// The types the writer produces are plain types of the table's sizes.
    #[test]
    fn written_types_agree_with_the_table() {
        for t in [GgmlType::F32, GgmlType::F16, GgmlType::Bf16] {
            let l = type_layout(t.id()).expect("a known type");
            assert_eq!((l.block_elems, l.block_bytes), (1, t.size()), "{t:?}");
        }
    }
}
