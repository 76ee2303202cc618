//! Which of llama.cpp's CPU kernels run, for which batches, and whether a token's logits depend
//! on its batch.
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
//! sqale's llama.cpp carries a patch (`vendor/patches/llama-cpp-sys-2/`) that switches the CPU
//! backend to llama.cpp's reference kernels for the graphs one thread computes
//! ([`use_reference_kernels`]): no llamafile, no tiled kernel, no fusion, repacked weights one
//! row at a time, ARM's int8 product one row at a time, and flash attention over fixed chunks
//! of [`FLASH_ATTENTION_CHUNK`] cached positions combined in order. Under it, a verify batch still
//! shares work between its rows where the sharing changes no row's arithmetic: Q4_1, Q8_0, Q4_K
//! and Q6_K weight rows (and repacked Q4_K blocks) against up to four batch rows at once (x86),
//! and a token's query heads that share a KV head together in flash attention. The engine turns
//! it on for batches that hold generated tokens (one-token decoding, verify batches) and off for
//! appended text (prompt, question, tool results), which a plain and a drafting run decode in
//! the same batches: prefill runs on the fastest kernels, and generated tokens stay exact
//! ([`KernelChoice`]). Without the patch (another llama.cpp), the batch-shaped kernels decide
//! [`batch_invariant`] as before: a build without them is exact, the tiled kernel aside.

use std::sync::OnceLock;

/// What a batch holds, which decides the CPU kernels it runs on ([`use_reference_kernels`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BatchKind {
    /// Text appended to a sequence (a prompt, a question, a tool result, known text scored):
    /// decoded in the same batches whether drafts are verified or not, so any kernel keeps
    /// plain and drafting runs identical. The fast kernels.
    Appended,
    /// Generated tokens: one-token decoding and verify batches, whose rows must round as one
    /// token decoded alone does. The reference kernels, where the switch exists.
    Generated,
}

/// The patch's `void ggml_cpu_set_thread_use_ref(bool)`.
type UseRefFn = unsafe extern "C" fn(bool);

/// The patch's switch, found through the CPU backend's registry (so that it works when the CPU
/// backend is a library loaded at run time, `--features portable`); `None` in a llama.cpp
/// without the patch or without a CPU backend.
fn reference_switch() -> Option<UseRefFn> {
    static ONCE: OnceLock<Option<UseRefFn>> = OnceLock::new();
    *ONCE.get_or_init(|| {
        super::model::backend().ok()?;
        // SAFETY: registry look-ups by NUL-terminated name; a non-null address for this name
        // is the patch's `void ggml_cpu_set_thread_use_ref(bool)` (the patch registers it under
        // that name only).
        unsafe {
            let reg = llama_cpp_sys_2::ggml_backend_reg_by_name(c"CPU".as_ptr());
            if reg.is_null() {
                return None;
            }
            let f = llama_cpp_sys_2::ggml_backend_reg_get_proc_address(reg, c"ggml_cpu_set_thread_use_ref".as_ptr());
            if f.is_null() {
                return None;
            }
            Some(std::mem::transmute::<*mut std::ffi::c_void, UseRefFn>(f))
        }
    })
}

/// Whether llama.cpp here can switch kernels per batch (sqale's patch is in, with a CPU backend).
pub fn kernels_per_batch() -> bool {
    reference_switch().is_some()
}

/// Sets the CPU kernels of the batches this thread decodes next: the reference kernels for
/// [`BatchKind::Generated`], the fast ones for [`BatchKind::Appended`]. A no-op without the
/// switch ([`kernels_per_batch`]); GPU backends are not affected.
pub(crate) fn use_reference_kernels(kind: BatchKind) {
    if let Some(set) = reference_switch() {
        // SAFETY: the patch's function takes a bool and sets a thread-local flag.
        unsafe { set(kind == BatchKind::Generated) }
    }
}

/// Which kernels serve which batches in this process, in words, for `sqale info`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelChoice {
    /// The kernels appended text (prefill) runs on.
    pub prefill: String,
    /// The kernels generated tokens (one-token decoding, verify batches) run on.
    pub generated: String,
}

/// This process's [`KernelChoice`].
pub fn kernel_choice() -> KernelChoice {
    let mut kernels = cpu_kernels();
    let repacking = super::model::repack_policy() != super::model::RepackPolicy::None;
    if !repacking || !repacked_kernels_in(&kernels) {
        // Compiled in, but models are loaded without repacked weights, or this CPU has none.
        kernels.retain(|k| k != "REPACK");
    }
    choice(&kernels, kernels_per_batch(), tiled_kernel_on(), super::GPU_BACKENDS)
}

/// Whether llama.cpp has repacked kernels for this CPU: a build with `REPACK` compiled in
/// repacks nothing where the CPU lacks the instructions its repacked kernels use.
pub fn repacked_kernels_here() -> bool {
    repacked_kernels_in(&cpu_kernels())
}

/// Whether the reported kernels include `REPACK` and the instructions llama.cpp's repacked
/// kernels need (`ggml_repack_get_optimal_repack_type` in `repack.cpp`): on ARM the dot
/// product or the int8 matrix multiply (a Cortex-A72, armv8-a, has neither), on x86 AVX2.
fn repacked_kernels_in(kernels: &[String]) -> bool {
    let has = |k: &str| kernels.iter().any(|x| x == k);
    if !has("REPACK") {
        return false;
    }
    if has("NEON") {
        has("DOTPROD") || has("MATMUL_INT8")
    } else if has("SSE3") || has("AVX") {
        has("AVX2") || has("AVX512")
    } else {
        // Another architecture: llama.cpp's own check decides per tensor.
        true
    }
}

/// The choice from the kernels in use (`REPACK` where weights are repacked), whether the switch
/// exists, and the tiled kernel's state.
fn choice(kernels: &[String], switch: bool, tiled: bool, gpu_backends: &str) -> KernelChoice {
    let has = |k: &str| kernels.iter().any(|x| x == k);
    let mut fast = Vec::new();
    if has("LLAMAFILE") {
        fast.push("llamafile sgemm");
    }
    if has("REPACK") {
        fast.push("repacked GEMM from 4 rows");
    }
    if tiled {
        fast.push("tiled K-quant product from 8 rows");
    }
    if has("MATMUL_INT8") {
        fast.push("int8 matrix multiply, two rows at a time");
    }
    let fast = if fast.is_empty() { "llama.cpp's plain dot products".to_string() } else { fast.join(", ") };
    let gpu =
        if gpu_backends.is_empty() { String::new() } else { format!(" (layers on {gpu_backends}: its own kernels)") };
    if switch {
        let mut one_row =
            (if has("REPACK") { "repacked GEMV, one row at a time" } else { "one dot product a row" }).to_string();
        if has("AVX2") {
            // sqale's patch 0004: each column rounded as alone, up to four sharing a weight row's load
            one_row.push_str("; Q4_1, Q8_0, Q4_K and Q6_K weight rows up to four batch rows at a time");
            if has("REPACK") {
                one_row.push_str(", repacked Q4_K too");
            }
        }
        KernelChoice {
            prefill: format!("{fast}, tiled flash attention{gpu}"),
            generated: format!(
                "llama.cpp's reference kernels ({one_row}, flash attention in fixed chunks of {FLASH_ATTENTION_CHUNK} \
                 cached positions; no sgemm, tiled product or fusion){gpu}"
            ),
        }
    } else {
        KernelChoice { prefill: format!("{fast}{gpu}"), generated: format!("the same as prefill{gpu}") }
    }
}

/// Cached positions per chunk of the reference kernels' flash attention (sqale's patch to
/// llama.cpp, `GGML_FA_REF_CHUNK`): a generated row's attention is summed chunk by chunk and the
/// chunks combined in order, so its rounding depends on neither its batch nor the thread count.
pub const FLASH_ATTENTION_CHUNK: usize = 256;

/// The CPU kernels whose arithmetic for one token depends on how many tokens share its batch
/// and that the per-batch switch keeps from generated tokens ([`use_reference_kernels`]), by
/// their names in llama.cpp's system report.
const SWITCHED_KERNELS: &[&str] = &["LLAMAFILE", "REPACK", "MATMUL_INT8"];

/// The batch-shaped CPU kernels the switch does not cover, with the CMake option that leaves
/// each out.
const UNSWITCHED_KERNELS: &[(&str, &str)] = &[("KLEIDIAI", "GGML_CPU_KLEIDIAI"), ("AMX_INT8", "GGML_AMX_INT8")];

/// The environment variable that switches llama.cpp's tiled K-quant matrix product (on unless
/// set to a number that reads as 0, as C's `atoi` reads it).
pub const TILED_MM_VAR: &str = "GGML_CPU_TILED_MM";

/// The CPU kernels llama.cpp was compiled with and can use here, as its own system report
/// names them (e.g. `AVX2`, `NEON`, `DOTPROD`, `OPENMP`): the features it reports as `= 1`.
pub fn cpu_kernels() -> Vec<String> {
    // Read once per process: llama.cpp builds the report in one static string that each call
    // clears and refills, so two threads calling it at once (tests in parallel, `serve`'s
    // requests) could read it while the other rewrites it. The kernels don't change while a
    // process runs.
    static REPORT: OnceLock<Vec<String>> = OnceLock::new();
    REPORT
        .get_or_init(|| {
            if super::model::backend().is_err() {
                return Vec::new();
            }
            // SAFETY: llama.cpp returns a pointer to a static, NUL-terminated buffer, read here
            // once, under the OnceLock, before any other caller could rewrite it.
            let report = unsafe {
                let p = llama_cpp_sys_2::llama_print_system_info();
                if p.is_null() {
                    return Vec::new();
                }
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            };
            kernels_in(&report)
        })
        .clone()
}

/// Why a token decoded in a batch with others may get other logits than decoded alone in this
/// process, or `None` when it gets exactly the same (the condition for exact speculative
/// decoding). Decided once per process.
pub fn batch_variance() -> Option<&'static str> {
    static ONCE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let kernels = cpu_kernels();
        variance(super::GPU_BACKENDS, &kernels, kernels_per_batch())
    })
    .as_deref()
}

/// Whether a token decoded in a batch with others gets exactly the logits it gets decoded
/// alone in this build, in every batch the engine verifies drafts in: a CPU-only build without
/// the batch-shaped kernels ([`batch_variance`] says why not). The engine's other settings
/// (generated tokens on the reference kernels, whose flash attention sums fixed chunks of the
/// cache) keep it so, and its verify batches stay below the tiled kernel's size where that
/// kernel would take them.
pub fn batch_invariant() -> bool {
    batch_variance().is_none()
}

/// The reason, from the GPU backends built in, the kernels reported, and whether the per-batch
/// switch exists (it covers llamafile, repacking and ARM's int8 product, not KleidiAI or AMX).
fn variance(gpu_backends: &str, kernels: &[String], switch: bool) -> Option<String> {
    if !gpu_backends.is_empty() {
        return Some(format!("a GPU backend ({gpu_backends}) is built in"));
    }
    if kernels.is_empty() {
        return Some("llama.cpp reported no CPU kernels".into());
    }
    let reported = |k: &str| kernels.iter().any(|x| x == k);
    if let Some((k, option)) = UNSWITCHED_KERNELS.iter().find(|(k, _)| reported(k)) {
        return Some(format!(
            "llama.cpp was built with {k}; build without it ({option}=OFF) (docs/speculative-decoding.md)"
        ));
    }
    if let Some(k) = SWITCHED_KERNELS.iter().find(|k| !switch && reported(k)) {
        return Some(format!(
            "llama.cpp was built with {k}; build sqale's patched llama.cpp (vendor/llama-cpp-sys-2), or with \
             GGML_LLAMAFILE=OFF GGML_CPU_REPACK=OFF (docs/speculative-decoding.md)"
        ));
    }
    None
}

/// How far a token's logits are independent of its batch in this process: what speculative
/// decoding, `--parallel` and a service can keep exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exactness {
    /// In every batch: generated tokens on the reference kernels (sqale's llama.cpp), or a
    /// batch-invariant build with the tiled K-quant kernel off.
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
    } else if tiled_kernel_on() && !kernels_per_batch() {
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
    if kernels_per_batch() {
        // Verify batches run on the reference kernels, which the tiled kernel is not one of:
        // every batch is exact already, and prefill keeps the tiled kernel.
        return Ok(());
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

/// Whether the tiled K-quant kernel is on and runs its AVX-512 VNNI path (`ggml-cpu/tiled/`,
/// with AVX512_VNNI in llama.cpp's kernel report: a build for x86-64-v4 with VNNI, or the
/// portable build's AVX-512 variant), where it prefills K-quants faster than their repacked GEMM;
/// on AVX2 the repacked GEMM is faster ([`super::default_repack_policy`]).
pub fn tiled_kernel_vnni() -> bool {
    tiled_kernel_on() && cpu_kernels().iter().any(|k| k == "AVX512_VNNI")
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

    /// llama.cpp rewrites its report in one static string at each call; read from several
    /// threads at once (as tests and `serve`'s requests do) it must still come out whole.
    #[test]
    fn the_kernel_report_reads_the_same_from_many_threads() {
        let first = cpu_kernels();
        let threads: Vec<_> =
            (0..4).map(|_| std::thread::spawn(|| (0..300).map(|_| cpu_kernels()).collect::<Vec<_>>())).collect();
        for t in threads {
            for report in t.join().expect("a reading thread") {
                assert_eq!(report, first);
            }
        }
    }

    #[test]
    fn names_what_makes_a_batch_change_a_token() {
        let clean = names(&["AVX2", "FMA", "OPENMP"]);
        assert_eq!(variance("", &clean, false), None);
        // Without the per-batch switch, the batch-shaped kernels make a build inexact.
        let repack = variance("", &names(&["NEON", "REPACK"]), false).unwrap();
        assert!(repack.contains("REPACK") && repack.contains("GGML_CPU_REPACK=OFF"), "{repack}");
        assert!(variance("", &names(&["AVX2", "LLAMAFILE"]), false).unwrap().contains("LLAMAFILE"));
        // With it, llamafile, repacking and ARM's int8 product serve prefill only.
        assert_eq!(variance("", &names(&["AVX2", "LLAMAFILE", "REPACK"]), true), None);
        assert_eq!(variance("", &names(&["NEON", "DOTPROD", "MATMUL_INT8", "REPACK"]), true), None);
        let amx = variance("", &names(&["AVX512", "AMX_INT8", "REPACK"]), true).unwrap();
        assert!(amx.contains("AMX_INT8") && amx.contains("GGML_AMX_INT8=OFF"), "{amx}");
        assert!(variance("vulkan", &clean, true).unwrap().contains("vulkan"));
        assert!(variance("", &[], true).is_some(), "no report is no proof");
    }

    #[test]
    fn this_build_chooses_kernels_per_batch() {
        // sqale's llama.cpp (vendor/llama-cpp-sys-2) carries the switch, and builds the fast
        // kernels in (.cargo/config.toml): prefill takes them, generated tokens do not.
        assert!(kernels_per_batch(), "the patched llama.cpp exports ggml_cpu_set_thread_use_ref");
        let here = kernel_choice();
        assert!(here.generated.starts_with("llama.cpp's reference kernels"), "{here:?}");
        #[cfg(target_arch = "x86_64")]
        if super::super::GPU_BACKENDS.is_empty() {
            assert!(here.prefill.contains("llamafile sgemm"), "{here:?}");
            assert_eq!(exactness(), Exactness::AnyBatch);
        }
    }

    #[test]
    fn repacks_only_where_the_cpu_has_the_repacked_kernels_instructions() {
        assert!(repacked_kernels_in(&names(&["NEON", "ARM_FMA", "DOTPROD", "REPACK"])));
        assert!(repacked_kernels_in(&names(&["NEON", "MATMUL_INT8", "REPACK"])));
        // A Raspberry Pi 4 (`.ci/aarch64 a72`): REPACK compiled in, nothing it can repack.
        assert!(!repacked_kernels_in(&names(&["NEON", "ARM_FMA", "LLAMAFILE", "OPENMP", "REPACK"])));
        assert!(repacked_kernels_in(&names(&["SSE3", "AVX", "AVX2", "REPACK"])));
        assert!(!repacked_kernels_in(&names(&["SSE3", "AVX", "REPACK"])));
        assert!(!repacked_kernels_in(&names(&["NEON", "DOTPROD"])));
    }

    #[test]
    fn names_the_kernels_of_each_batch() {
        let c = choice(&names(&["AVX2", "LLAMAFILE", "REPACK"]), true, true, "");
        assert_eq!(
            c.prefill,
            "llamafile sgemm, repacked GEMM from 4 rows, tiled K-quant product from 8 rows, tiled flash attention"
        );
        assert!(c.generated.contains("flash attention in fixed chunks of 256"), "{c:?}");
        assert!(c.generated.contains("repacked GEMV, one row at a time"), "{c:?}");
        assert!(c.generated.contains("Q4_K and Q6_K weight rows up to four batch rows at a time"), "{c:?}");
        assert!(c.generated.contains("repacked Q4_K too"), "{c:?}");
        let arm = choice(&names(&["NEON", "ARM_FMA", "DOTPROD", "REPACK"]), true, false, "");
        assert!(!arm.generated.contains("four batch rows at a time"), "{arm:?}");
        let c = choice(&names(&["AVX2"]), false, false, "");
        assert_eq!(c.prefill, "llama.cpp's plain dot products");
        assert_eq!(c.generated, "the same as prefill");
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
