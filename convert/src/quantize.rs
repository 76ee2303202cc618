//! Quantisation through llama.cpp's own quantiser (`llama_model_quantize`), with progress read
//! from its per-tensor log lines (`[  12/ 320] blk.0.attn_q.weight - ...`).

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::sync::{Mutex, Once};

use llama_cpp_sys_2 as sys;

use crate::ConvertError;

/// The quantised types offered (llama.cpp's `llama_ftype` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantType {
    /// 8-bit, blocks of 32 with one scale (`q8_0`): near-lossless.
    Q8_0,
    /// 6-bit k-quant (`q6_k`).
    Q6K,
    /// 5-bit k-quant, medium (`q5_k_m`).
    Q5KM,
    /// 5-bit k-quant, small (`q5_k_s`).
    Q5KS,
    /// 4-bit k-quant, medium (`q4_k_m`): the usual edge choice.
    Q4KM,
    /// 4-bit k-quant, small (`q4_k_s`).
    Q4KS,
    /// 4-bit, blocks of 32 with one scale (`q4_0`).
    Q4_0,
    /// 4-bit non-linear (`iq4_nl`).
    Iq4Nl,
    /// 3-bit k-quant, medium (`q3_k_m`).
    Q3KM,
}

/// Every quantised type with its name, llama.cpp `llama_ftype`, and rough bits per weight.
pub const QUANT_TYPES: &[(QuantType, &str, u32)] = &[
    (QuantType::Q8_0, "q8_0", 7),
    (QuantType::Q6K, "q6_k", 18),
    (QuantType::Q5KM, "q5_k_m", 17),
    (QuantType::Q5KS, "q5_k_s", 16),
    (QuantType::Q4KM, "q4_k_m", 15),
    (QuantType::Q4KS, "q4_k_s", 14),
    (QuantType::Q4_0, "q4_0", 2),
    (QuantType::Iq4Nl, "iq4_nl", 25),
    (QuantType::Q3KM, "q3_k_m", 12),
];

impl QuantType {
    fn ftype(self) -> u32 {
        QUANT_TYPES.iter().find(|t| t.0 == self).map(|t| t.2).expect("every type is listed")
    }
}

impl std::fmt::Display for QuantType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(QUANT_TYPES.iter().find(|t| t.0 == *self).map(|t| t.1).unwrap_or("?"))
    }
}

impl std::str::FromStr for QuantType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.to_ascii_lowercase();
        QUANT_TYPES.iter().find(|t| t.1 == lower).map(|t| t.0).ok_or_else(|| {
            let names: Vec<&str> = QUANT_TYPES.iter().map(|t| t.1).collect();
            format!("unknown type {s:?}; choose f32, f16, bf16 or one of {}", names.join(", "))
        })
    }
}

/// `(tensor, total)` pairs the log callback saw, drained by [`quantize`]'s thread.
static PROGRESS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
static QUANTIZING: Mutex<()> = Mutex::new(());

unsafe extern "C" fn log_callback(_level: sys::ggml_log_level, text: *const c_char, _user: *mut c_void) {
    if text.is_null() {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string valid for the call.
    let line = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    if let Some((i, n)) = parse_progress(&line) {
        if let Ok(mut queue) = PROGRESS.lock() {
            queue.push((i, n));
        }
    }
}

/// `[  12/ 320] ...` → (12, 320).
fn parse_progress(line: &str) -> Option<(usize, usize)> {
    let inner = line.trim_start().strip_prefix('[')?;
    let (nums, _) = inner.split_once(']')?;
    let (a, b) = nums.split_once('/')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// Quantises the GGUF at `input` to `out` (via a temporary file renamed into place), reporting
/// `(tensor, total)` as it goes. Returns the output size.
pub fn quantize(
    input: &Path,
    out: &Path,
    ty: QuantType,
    threads: Option<i32>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<u64, ConvertError> {
    if !input.is_file() {
        return Err(ConvertError::Quantize(format!("{} not found", input.display())));
    }
    static INIT: Once = Once::new();
    // SAFETY: plain initialisation, once per process.
    INIT.call_once(|| unsafe { sys::llama_backend_init() });
    let _one = QUANTIZING.lock().unwrap_or_else(|e| e.into_inner());
    let tmp =
        crate::atomic::AtomicFile::create(out).map_err(|e| ConvertError::Io { path: out.to_path_buf(), source: e })?;
    let to_c = |p: &Path| {
        CString::new(p.to_string_lossy().as_bytes())
            .map_err(|_| ConvertError::Quantize("path contains a NUL byte".into()))
    };
    let (cin, cout) = (to_c(input)?, to_c(tmp.temp_path())?);

    // The log callback is process-wide and 'static: it queues (tensor, total) pairs, and this
    // thread forwards them to `progress` while the quantiser runs on a scoped thread.
    let drain = || PROGRESS.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default();
    drain();
    let ftype = ty.ftype();
    let nthread = threads.unwrap_or(0);
    let rc = std::thread::scope(|s| {
        let worker = s.spawn(|| {
            // SAFETY: params come from llama.cpp's defaults; the paths are valid C strings that
            // outlive the call; the log callback only reads its argument.
            unsafe {
                let mut params = sys::llama_model_quantize_default_params();
                params.ftype = ftype as _;
                params.nthread = nthread;
                sys::llama_log_set(Some(log_callback), std::ptr::null_mut());
                let rc = sys::llama_model_quantize(cin.as_ptr(), cout.as_ptr(), &params);
                sys::llama_log_set(None, std::ptr::null_mut());
                rc
            }
        });
        loop {
            let finished = worker.is_finished();
            for (i, n) in drain() {
                progress(i, n);
            }
            if finished {
                break worker.join().unwrap_or(u32::MAX);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    if rc != 0 {
        return Err(ConvertError::Quantize(format!(
            "llama_model_quantize returned {rc} for {} (is it a GGUF llama.cpp can read?)",
            input.display()
        )));
    }
    tmp.commit().map_err(|e| ConvertError::Io { path: out.to_path_buf(), source: e })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_and_names_parse() {
        assert_eq!(parse_progress("[  12/ 320]              blk.0.attn_q.weight - [ 2048"), Some((12, 320)));
        assert_eq!(parse_progress("llama_model_quantize_impl: model size"), None);
        assert_eq!("Q4_K_M".parse::<QuantType>().unwrap(), QuantType::Q4KM);
        assert!("q9".parse::<QuantType>().unwrap_err().contains("q4_k_m"));
    }
}
