//! Which of llama.cpp's CPU kernels run, and whether a token's logits depend on its batch.
//!
//! Speculative decoding is exact only if a token decoded in a verify batch gets bit for bit the
//! logits it gets decoded alone (docs/speculative-decoding.md). Most of llama.cpp's CPU matrix
//! products compute each output element as one dot product over the same data in the same order,
//! whatever the batch; a few kernels take over from some batch size and round differently:
//!
//! - built in or not (`GGML_*` CMake options, reported by llama.cpp's system report):
//!   llamafile's sgemm (2+ rows), repacked weights (their GEMM from 4 rows), KleidiAI and AMX
//!   (their own matrix kernels), ARM's int8 matrix multiply (two rows per dot product);
//! - switched at run time: the tiled K-quant matrix product (`ggml-cpu/tiled/`, x86 with AVX or
//!   better), which takes Q2_K…Q6_K and IQ weights from [`TILED_MIN_ROWS`] rows on. Its switch is
//!   the environment variable `GGML_CPU_TILED_MM`, read once at the first matrix product.
//!
//! The first kind decides [`batch_invariant`]. The tiled kernel is left on: it is what makes
//! prefill of a K-quant model fast (on the synthetic Qwen3.5-2B at q4_k_m, 30.5 against 18.8
//! tokens/s here), and a verify batch of fewer than [`TILED_MIN_ROWS`] rows never meets it, so the
//! engine keeps drafts short enough on a model with such weights ([`tiled_kernel_on`],
//! [`super::Model::has_tiled_weights`]). `GGML_CPU_TILED_MM=0` makes every batch invariant, for
//! `eval --parallel` and `sqale serve` to play exactly the lone episodes of a K-quant model
//! (docs/speculative-decoding.md, "Exactness").

/// The CPU kernels whose arithmetic for one token depends on how many tokens share its batch,
/// by their names in llama.cpp's system report.
const BATCH_SHAPED_KERNELS: &[&str] = &["LLAMAFILE", "REPACK", "KLEIDIAI", "AMX_INT8", "MATMUL_INT8"];

/// The environment variable that switches llama.cpp's tiled K-quant matrix product (on unless
/// set to a number that reads as 0, as C's `atoi` reads it).
pub const TILED_MM_VAR: &str = "GGML_CPU_TILED_MM";

/// The CPU kernels llama.cpp was compiled with and can use here, as its own system report
/// names them (e.g. `AVX2`, `NEON`, `DOTPROD`, `OPENMP`): the features it reports as `= 1`.
pub fn cpu_kernels() -> Vec<String> {
    if super::model::backend().is_err() {
        return Vec::new();
    }
    // SAFETY: llama.cpp returns a pointer to a static, NUL-terminated buffer.
    let report = unsafe {
        let p = llama_cpp_sys_2::llama_print_system_info();
        if p.is_null() {
            return Vec::new();
        }
        std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    kernels_in(&report)
}

/// Why a token decoded in a batch with others may get other logits than decoded alone in this
/// process, or `None` when it gets exactly the same (the condition for exact speculative
/// decoding). Decided once per process.
pub fn batch_variance() -> Option<&'static str> {
    static ONCE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let kernels = cpu_kernels();
        variance(super::GPU_BACKENDS, &kernels)
    })
    .as_deref()
}

/// Whether a token decoded in a batch with others gets exactly the logits it gets decoded
/// alone in this build, in every batch the engine verifies drafts in: a CPU-only build without
/// the batch-shaped kernels ([`batch_variance`] says why not). The engine's other settings (an
/// f32 KV cache, flash attention off) are always so on the CPU, and its verify batches stay
/// below the tiled kernel's size where that kernel would take them.
pub fn batch_invariant() -> bool {
    batch_variance().is_none()
}

/// The reason, from the GPU backends built in and the kernels reported.
fn variance(gpu_backends: &str, kernels: &[String]) -> Option<String> {
    if !gpu_backends.is_empty() {
        return Some(format!("a GPU backend ({gpu_backends}) is built in"));
    }
    if kernels.is_empty() {
        return Some("llama.cpp reported no CPU kernels".into());
    }
    if let Some(k) = batch_shaped(kernels) {
        return Some(format!(
            "llama.cpp was built with {k}; build with GGML_LLAMAFILE=OFF GGML_CPU_REPACK=OFF (docs/speculative-decoding.md)"
        ));
    }
    None
}

/// How far a token's logits are independent of its batch in this process: what speculative
/// decoding, `--parallel` and a service can keep exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exactness {
    /// In every batch: a batch-invariant build, the tiled K-quant kernel off.
    AnyBatch,
    /// In batches below [`TILED_MIN_ROWS`] rows of K-quant weights, and in any batch of other
    /// weights: a lone sequence's verify batches (the engine keeps them that short), not
    /// several sequences sharing one.
    BelowTiledRows,
    /// Not even in small batches: a GPU backend or batch-shaped CPU kernels ([`batch_variance`]).
    No,
}

/// This process's [`Exactness`].
pub fn exactness() -> Exactness {
    if !batch_invariant() {
        Exactness::No
    } else if tiled_kernel_on() {
        Exactness::BelowTiledRows
    } else {
        Exactness::AnyBatch
    }
}

/// Makes every batch exact for the rest of this process ([`Exactness::AnyBatch`]): switches the
/// tiled K-quant kernel off through [`TILED_MM_VAR`], which costs prefill speed on K-quant files
/// only. Call before anything else starts threads or runs llama.cpp (llama.cpp and
/// [`tiled_kernel_on`] read the switch once). Fails, naming the reason, on a build that can't be
/// exact ([`batch_variance`]).
pub fn make_exact() -> Result<(), super::EngineError> {
    if let Some(why) = batch_variance() {
        return Err(super::EngineError::NotExact(why.to_string()));
    }
    std::env::set_var(TILED_MM_VAR, "0");
    Ok(())
}

/// Rows from which llama.cpp's tiled K-quant kernel takes a matrix product.
pub const TILED_MIN_ROWS: usize = 8;

/// Whether llama.cpp's tiled K-quant kernel runs in this process: built for x86 with AVX or
/// better, and not switched off by `GGML_CPU_TILED_MM`.
/// Read once, as llama.cpp reads it.
pub fn tiled_kernel_on() -> bool {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ONCE.get_or_init(|| {
        cfg!(any(target_arch = "x86_64", target_arch = "x86"))
            && super::GPU_BACKENDS.is_empty()
            && tiled_on(std::env::var(TILED_MM_VAR).ok().as_deref())
    })
}

/// Whether the tiled kernel takes matrices of this ggml type (its type switch in
/// `ggml-cpu/tiled/tiled.cpp`).
pub(super) fn tiled_type(name: &str) -> bool {
    matches!(
        name,
        "q2_K"
            | "q3_K"
            | "q4_K"
            | "q5_K"
            | "q6_K"
            | "iq4_xs"
            | "iq2_xxs"
            | "iq2_xs"
            | "iq2_s"
            | "iq3_xxs"
            | "iq3_s"
            | "iq1_s"
            | "iq1_m"
    )
}

/// The first batch-shaped kernel among those reported.
fn batch_shaped(kernels: &[String]) -> Option<&str> {
    kernels.iter().map(String::as_str).find(|k| BATCH_SHAPED_KERNELS.contains(k))
}

/// Whether llama.cpp's tiled kernel is on for this value of its variable: on when unset, off
/// when the value reads as 0 the way C's `atoi` reads it (leading spaces, a sign, digits; no
/// digits reads as 0).
fn tiled_on(value: Option<&str>) -> bool {
    let Some(v) = value else { return true };
    let v = v.trim_start().strip_prefix(['+', '-']).unwrap_or_else(|| v.trim_start());
    v.chars().take_while(char::is_ascii_digit).any(|c| c != '0')
}

/// The `NAME = 1` entries of a llama.cpp system report.
fn kernels_in(report: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in report.split('|') {
        // Entries look like "CPU : SSE3 = 1" (the first of a backend) or " AVX2 = 1 ".
        let entry = part.rsplit(':').next().unwrap_or(part);
        if let Some((name, value)) = entry.split_once('=') {
            let name = name.trim().to_string();
            if value.trim() == "1" && !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_llamas_system_report() {
        let r = "CPU : NEON = 1 | ARM_FMA = 1 | FP16_VA = 0 | DOTPROD = 1 | OPENMP = 1 | REPACK = 1 | ";
        assert_eq!(kernels_in(r), ["NEON", "ARM_FMA", "DOTPROD", "OPENMP", "REPACK"]);
        let here = cpu_kernels();
        #[cfg(target_arch = "x86_64")]
        assert!(here.iter().any(|k| k == "AVX2"), "{here:?}");
        #[cfg(target_arch = "aarch64")]
        assert!(here.iter().any(|k| k == "NEON"), "{here:?}");
    }

    #[test]
    fn names_what_makes_a_batch_change_a_token() {
        let clean = names(&["AVX2", "FMA", "OPENMP"]);
        assert_eq!(variance("", &clean), None);
        let repack = variance("", &names(&["NEON", "REPACK"])).unwrap();
        assert!(repack.contains("REPACK") && repack.contains("GGML_CPU_REPACK=OFF"), "{repack}");
        assert!(variance("", &names(&["AVX2", "LLAMAFILE"])).unwrap().contains("LLAMAFILE"));
        assert!(variance("vulkan", &clean).unwrap().contains("vulkan"));
        assert!(variance("", &[]).is_some(), "no report is no proof");
    }

    #[test]
    fn reads_the_tiled_switch_as_llama_cpp_does() {
        // `enabled = env == NULL || atoi(env) != 0`
        for (value, on) in [
            (None, true),
            (Some("1"), true),
            (Some(" 2"), true),
            (Some("-1"), true),
            (Some("10"), true),
            (Some("0"), false),
            (Some("00"), false),
            (Some("+0"), false),
            (Some(""), false),
            (Some("off"), false),
            (Some("0x1"), false),
        ] {
            assert_eq!(tiled_on(value), on, "{value:?}");
        }
    }
}
