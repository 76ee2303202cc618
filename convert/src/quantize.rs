//! Quantisation through llama.cpp's own quantiser (`llama_model_quantize`), with progress read
//! from its per-tensor log lines (`[  12/ 320] blk.0.attn_q.weight - ...`).

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::sync::{Mutex, Once};

use llama_cpp_sys_2 as sys;

use crate::gguf::{self, GgmlType};
use crate::imatrix::Imatrix;
use crate::ConvertError;

/// The quantised types offered (llama.cpp's `llama_ftype` names), and `f32` for a quantised
/// file's weights dequantised exactly.
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
    /// 6-bit, blocks of 32 with a scale and a minimum (`q5_1`).
    Q5_1,
    /// 5-bit, blocks of 32 with one scale (`q5_0`).
    Q5_0,
    /// 4-bit k-quant, medium (`q4_k_m`): the usual edge choice.
    Q4KM,
    /// 4-bit k-quant, small (`q4_k_s`).
    Q4KS,
    /// 4-bit, blocks of 32 with a scale and a minimum (`q4_1`).
    Q4_1,
    /// 4-bit, blocks of 32 with one scale (`q4_0`).
    Q4_0,
    /// 4-bit non-linear (`iq4_nl`).
    Iq4Nl,
    /// 4.25-bit non-linear, super-blocks of 256 (`iq4_xs`).
    Iq4Xs,
    /// 3-bit k-quant, large (`q3_k_l`).
    Q3KL,
    /// 3-bit k-quant, medium (`q3_k_m`).
    Q3KM,
    /// 3-bit k-quant, small (`q3_k_s`).
    Q3KS,
    /// 3.44-bit lattice (`iq3_s`).
    Iq3S,
    /// 3.06-bit lattice (`iq3_xxs`): needs an importance matrix.
    Iq3Xxs,
    /// 2-bit k-quant (`q2_k`).
    Q2K,
    /// 2.5-bit lattice (`iq2_s`): needs an importance matrix.
    Iq2S,
    /// 2.31-bit lattice (`iq2_xs`): needs an importance matrix.
    Iq2Xs,
    /// Every weight as 32-bit floats: a quantised file dequantised exactly (with
    /// `allow_requantize`), usable as a full-precision reference.
    F32,
}

/// Every type with its name, llama.cpp `llama_ftype`, and whether llama.cpp refuses it without an
/// importance matrix, from the largest to the smallest.
pub const QUANT_TYPES: &[(QuantType, &str, u32, bool)] = &[
    (QuantType::F32, "f32", 0, false),
    (QuantType::Q8_0, "q8_0", 7, false),
    (QuantType::Q6K, "q6_k", 18, false),
    (QuantType::Q5KM, "q5_k_m", 17, false),
    (QuantType::Q5KS, "q5_k_s", 16, false),
    (QuantType::Q5_1, "q5_1", 9, false),
    (QuantType::Q5_0, "q5_0", 8, false),
    (QuantType::Q4KM, "q4_k_m", 15, false),
    (QuantType::Q4KS, "q4_k_s", 14, false),
    (QuantType::Q4_1, "q4_1", 3, false),
    (QuantType::Q4_0, "q4_0", 2, false),
    (QuantType::Iq4Nl, "iq4_nl", 25, false),
    (QuantType::Iq4Xs, "iq4_xs", 30, false),
    (QuantType::Q3KL, "q3_k_l", 13, false),
    (QuantType::Q3KM, "q3_k_m", 12, false),
    (QuantType::Q3KS, "q3_k_s", 11, false),
    (QuantType::Iq3S, "iq3_s", 26, false),
    (QuantType::Iq3Xxs, "iq3_xxs", 23, true),
    (QuantType::Q2K, "q2_k", 10, false),
    (QuantType::Iq2S, "iq2_s", 28, true),
    (QuantType::Iq2Xs, "iq2_xs", 20, true),
];

impl QuantType {
    fn row(self) -> &'static (QuantType, &'static str, u32, bool) {
        QUANT_TYPES.iter().find(|t| t.0 == self).expect("every type is listed")
    }

    fn ftype(self) -> u32 {
        self.row().2
    }

    /// Whether llama.cpp's quantiser refuses this type without an importance matrix (its
    /// lattice types of 3 bits and less: without one their rounding ruins the model).
    pub fn needs_imatrix(self) -> bool {
        self.row().3
    }

    /// Whether an importance matrix changes the result (every quantised type; not `f32`).
    pub fn uses_imatrix(self) -> bool {
        self != QuantType::F32
    }
}

impl std::fmt::Display for QuantType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.row().1)
    }
}

impl std::str::FromStr for QuantType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.to_ascii_lowercase();
        QUANT_TYPES.iter().find(|t| t.1 == lower).map(|t| t.0).ok_or_else(|| {
            let names: Vec<&str> = QUANT_TYPES.iter().filter(|t| t.0 != QuantType::F32).map(|t| t.1).collect();
            format!("unknown type {s:?}; choose f32, f16, bf16 or one of {}", names.join(", "))
        })
    }
}

/// How to quantise, beyond the type.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuantizeOptions<'a> {
    /// Threads (default: all).
    pub threads: Option<i32>,
    /// The importance matrix to weigh rounding errors by, with the file it came from (named in
    /// the output's `quantize.imatrix.file`).
    pub imatrix: Option<(&'a Imatrix, &'a Path)>,
    /// Quantise an input that is already quantised (llama.cpp refuses by default: the result
    /// carries both roundings), or dequantise one to `f32`.
    pub allow_requantize: bool,
}

/// Metadata keys llama.cpp's `llama-quantize` writes for an importance matrix, and sqale too.
pub const KEY_IMATRIX_FILE: &str = "quantize.imatrix.file";
/// The first calibration source of the matrix.
pub const KEY_IMATRIX_DATASET: &str = "quantize.imatrix.dataset";
/// Entries in the matrix.
pub const KEY_IMATRIX_ENTRIES: &str = "quantize.imatrix.entries_count";
/// Chunks the matrix was collected over.
pub const KEY_IMATRIX_CHUNKS: &str = "quantize.imatrix.chunks_count";

/// `(tensor, total)` pairs the log callback saw, drained by [`quantize`]'s thread.
static PROGRESS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
/// The error lines llama.cpp logged while quantising, for the error message.
static ERRORS: Mutex<String> = Mutex::new(String::new());
static QUANTIZING: Mutex<()> = Mutex::new(());
/// The size llama.cpp's quantiser reported (`quant size  = N MiB`), MiB.
static PLANNED: Mutex<Option<f64>> = Mutex::new(None);

unsafe extern "C" fn log_callback(level: sys::ggml_log_level, text: *const c_char, _user: *mut c_void) {
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
    if let Some(mib) = parse_planned(&line) {
        if let Ok(mut p) = PLANNED.lock() {
            *p = Some(mib);
        }
    }
    if level == sys::GGML_LOG_LEVEL_ERROR {
        if let Ok(mut errors) = ERRORS.lock() {
            let text = line.trim().trim_matches('=').trim();
            if !text.is_empty() && errors.len() < 4096 {
                errors.push_str(text);
                errors.push('\n');
            }
        }
    }
}

/// `llama_model_quantize_impl: quant size  =    82.21 MiB (4.88 BPW)` → 82.21.
fn parse_planned(line: &str) -> Option<f64> {
    let (_, rest) = line.split_once("quant size")?;
    rest.trim_start().strip_prefix('=')?.split_whitespace().next()?.parse().ok()
}

/// `[  12/ 320] ...` → (12, 320).
fn parse_progress(line: &str) -> Option<(usize, usize)> {
    let inner = line.trim_start().strip_prefix('[')?;
    let (nums, _) = inner.split_once(']')?;
    let (a, b) = nums.split_once('/')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// llama.cpp's file types (`llama_ftype`, the `general.file_type` of a GGUF) and their names as
/// `llama-quantize` spells them in lower case (`q4_k_m`).
pub const FILE_TYPES: &[(u64, &str)] = &[
    (0, "f32"),
    (1, "f16"),
    (2, "q4_0"),
    (3, "q4_1"),
    (7, "q8_0"),
    (8, "q5_0"),
    (9, "q5_1"),
    (10, "q2_k"),
    (11, "q3_k_s"),
    (12, "q3_k_m"),
    (13, "q3_k_l"),
    (14, "q4_k_s"),
    (15, "q4_k_m"),
    (16, "q5_k_s"),
    (17, "q5_k_m"),
    (18, "q6_k"),
    (19, "iq2_xxs"),
    (20, "iq2_xs"),
    (21, "q2_k_s"),
    (22, "iq3_xs"),
    (23, "iq3_xxs"),
    (24, "iq1_s"),
    (25, "iq4_nl"),
    (26, "iq3_s"),
    (27, "iq3_m"),
    (28, "iq2_s"),
    (29, "iq2_m"),
    (30, "iq4_xs"),
    (31, "iq1_m"),
    (32, "bf16"),
    (36, "tq1_0"),
    (37, "tq2_0"),
    (38, "mxfp4_moe"),
    (39, "nvfp4"),
    (40, "q1_0"),
    (41, "q2_0"),
];

/// The file type `header` declares (`general.file_type`, as [`FILE_TYPES`] names it): `q4_1`
/// for a Q4_1 file. `None` when the key is missing or names no type llama.cpp knows.
pub fn file_type(header: &gguf::GgufHeader) -> Option<&'static str> {
    let id = header.get("general.file_type").and_then(gguf::Value::as_u64)?;
    FILE_TYPES.iter().find(|(i, _)| *i == id).map(|(_, name)| *name)
}

/// The quantised type holding most of `header`'s weights, if any is quantised.
pub fn quantized_type(header: &gguf::GgufHeader) -> Option<&'static str> {
    let floats = [GgmlType::F32.id(), GgmlType::F16.id(), GgmlType::Bf16.id()];
    largest_type(header.tensors.iter().filter(|t| !floats.contains(&t.ty)))
}

/// The type holding most of `header`'s weights (`q4_K` in a q4_k_m file, `bf16` in a bf16 one).
pub fn main_type(header: &gguf::GgufHeader) -> Option<&'static str> {
    largest_type(header.tensors.iter())
}

fn largest_type<'a>(tensors: impl Iterator<Item = &'a gguf::TensorHeader>) -> Option<&'static str> {
    let mut by_type: Vec<(&'static str, u64)> = Vec::new();
    for t in tensors {
        match by_type.iter_mut().find(|(name, _)| *name == t.type_name()) {
            Some((_, n)) => *n += t.elements(),
            None => by_type.push((t.type_name(), t.elements())),
        }
    }
    by_type.into_iter().max_by_key(|(_, n)| *n).map(|(name, _)| name)
}

/// Checks what llama.cpp would refuse, before it starts: an input that is not GGUF, a type that
/// needs an importance matrix given none, an already quantised input without
/// `allow_requantize`, an importance matrix made for another model.
fn check(input: &Path, ty: QuantType, opts: &QuantizeOptions<'_>) -> Result<(), ConvertError> {
    if !input.is_file() {
        return Err(ConvertError::Quantize(format!("{} not found", input.display())));
    }
    let header = gguf::read_header(input).map_err(|e| ConvertError::Quantize(e.to_string()))?;
    if ty.needs_imatrix() && opts.imatrix.is_none() {
        return Err(ConvertError::NeedsImatrix(ty));
    }
    if let Some(from) = quantized_type(&header) {
        if !opts.allow_requantize {
            return Err(ConvertError::Requantize { input: input.to_path_buf(), from: from.to_string(), to: ty });
        }
    }
    if let Some((m, path)) = opts.imatrix {
        m.check_model(&header, path, input)?;
    }
    Ok(())
}

/// A C string of at most 127 bytes (llama.cpp's override values), cut at a character boundary.
fn c_field(text: &str) -> [c_char; 128] {
    let mut out = [0 as c_char; 128];
    let mut end = text.len().min(127);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    for (o, b) in out.iter_mut().zip(text[..end].bytes()) {
        *o = b as c_char;
    }
    out
}

fn kv_str(key: &str, value: &str) -> sys::llama_model_kv_override {
    sys::llama_model_kv_override {
        tag: sys::LLAMA_KV_OVERRIDE_TYPE_STR,
        key: c_field(key),
        __bindgen_anon_1: sys::llama_model_kv_override__bindgen_ty_1 { val_str: c_field(value) },
    }
}

fn kv_int(key: &str, value: i64) -> sys::llama_model_kv_override {
    sys::llama_model_kv_override {
        tag: sys::LLAMA_KV_OVERRIDE_TYPE_INT,
        key: c_field(key),
        __bindgen_anon_1: sys::llama_model_kv_override__bindgen_ty_1 { val_i64: value },
    }
}

/// What llama.cpp's quantiser is handed for an importance matrix: the per-column weights (the
/// mean squared activations) by name, NUL-terminated arrays, and the metadata overrides naming
/// the matrix in the output, as `llama-quantize` writes them.
struct ImatrixArgs {
    _names: Vec<CString>,
    _values: Vec<Vec<f32>>,
    data: Vec<sys::llama_model_imatrix_data>,
    overrides: Vec<sys::llama_model_kv_override>,
}

impl ImatrixArgs {
    fn new(m: &Imatrix, path: &Path) -> Result<ImatrixArgs, ConvertError> {
        let mut names = Vec::with_capacity(m.entries.len());
        let mut values = Vec::with_capacity(m.entries.len());
        for (name, e) in &m.entries {
            names.push(CString::new(name.as_str()).map_err(|_| ConvertError::Quantize(format!("{name}: a NUL byte")))?);
            values.push(e.importance());
        }
        let mut data: Vec<sys::llama_model_imatrix_data> = names
            .iter()
            .zip(&values)
            .map(|(n, v)| sys::llama_model_imatrix_data { name: n.as_ptr(), data: v.as_ptr(), size: v.len() })
            .collect();
        data.push(sys::llama_model_imatrix_data { name: std::ptr::null(), data: std::ptr::null(), size: 0 });
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let mut overrides = vec![kv_str(KEY_IMATRIX_FILE, &file), kv_int(KEY_IMATRIX_ENTRIES, m.entries.len() as i64)];
        if let Some(d) = m.datasets.first() {
            overrides.push(kv_str(KEY_IMATRIX_DATASET, d));
        }
        if m.chunk_count > 0 {
            overrides.push(kv_int(KEY_IMATRIX_CHUNKS, i64::from(m.chunk_count)));
        }
        // The array ends with an empty key.
        overrides.push(kv_int("", 0));
        Ok(ImatrixArgs { _names: names, _values: values, data, overrides })
    }
}

/// Refuses an output of [`quantize`] that is a folder, the input or the importance matrix (the
/// error suggests `FOLDER/<input>-<type>.gguf` for a folder).
pub fn check_output(input: &Path, out: &Path, ty: QuantType, imatrix: Option<&Path>) -> Result<(), ConvertError> {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let mut inputs = vec![crate::atomic::Input::file("the input GGUF", input)];
    if let Some(path) = imatrix {
        inputs.push(crate::atomic::Input::file("the importance matrix", path));
    }
    Ok(crate::atomic::check_output(out, &format!("{stem}-{ty}.gguf"), &inputs)?)
}

/// Quantises the GGUF at `input` to `out` (via a temporary file renamed into place), reporting
/// `(tensor, total)` as it goes. Returns the output size. An output that is a folder, the input
/// or the importance matrix is refused before anything is read.
pub fn quantize(
    input: &Path,
    out: &Path,
    ty: QuantType,
    opts: &QuantizeOptions<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<u64, ConvertError> {
    check_output(input, out, ty, opts.imatrix.map(|(_, path)| path))?;
    check(input, ty, opts)?;
    let tmp =
        crate::atomic::AtomicFile::create(out).map_err(|e| ConvertError::Io { path: out.to_path_buf(), source: e })?;
    run(input, tmp.temp_path(), ty, opts, false, progress)?;
    tmp.commit().map_err(|e| ConvertError::Io { path: out.to_path_buf(), source: e })
}

/// The bytes of tensor data a quantisation of `input` to `ty` would write, as llama.cpp's
/// quantiser plans it (its dry run: the types it picks per tensor, nothing computed or
/// written). An already quantised input is sized as if requantised.
pub fn planned_bytes(input: &Path, ty: QuantType, threads: Option<i32>) -> Result<u64, ConvertError> {
    if !input.is_file() {
        return Err(ConvertError::Quantize(format!("{} not found", input.display())));
    }
    let opts = QuantizeOptions { threads, imatrix: None, allow_requantize: true };
    let nowhere = std::env::temp_dir().join(format!("sqale-dry-run-{}.gguf", std::process::id()));
    run(input, &nowhere, ty, &opts, true, &mut |_, _| {})?;
    let mib = PLANNED.lock().ok().and_then(|v| *v);
    mib.map(|m| (m * 1024.0 * 1024.0) as u64)
        .ok_or_else(|| ConvertError::Quantize(format!("llama.cpp's dry run of {ty} printed no size")))
}

/// Runs llama.cpp's quantiser from `input` to `out` on a scoped thread, forwarding its progress.
fn run(
    input: &Path,
    out: &Path,
    ty: QuantType,
    opts: &QuantizeOptions<'_>,
    dry_run: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), ConvertError> {
    static INIT: Once = Once::new();
    // SAFETY: plain initialisation, once per process.
    INIT.call_once(|| unsafe { sys::llama_backend_init() });
    let _one = QUANTIZING.lock().unwrap_or_else(|e| e.into_inner());
    let to_c = |p: &Path| {
        CString::new(p.to_string_lossy().as_bytes())
            .map_err(|_| ConvertError::Quantize("path contains a NUL byte".into()))
    };
    let (cin, cout) = (to_c(input)?, to_c(out)?);

    // The log callback is process-wide and 'static: it queues (tensor, total) pairs, and this
    // thread forwards them to `progress` while the quantiser runs on a scoped thread.
    let drain = || PROGRESS.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default();
    drain();
    if let Ok(mut e) = ERRORS.lock() {
        e.clear();
    }
    if let Ok(mut p) = PLANNED.lock() {
        *p = None;
    }
    let ftype = ty.ftype();
    let nthread = opts.threads.unwrap_or(0);
    let allow_requantize = opts.allow_requantize;
    let rc = std::thread::scope(|s| {
        let worker = s.spawn(|| -> Result<u32, ConvertError> {
            // Made on this thread: the arrays hold raw pointers, which stay on it.
            let imatrix = opts.imatrix.map(|(m, path)| ImatrixArgs::new(m, path)).transpose()?;
            // SAFETY: params come from llama.cpp's defaults; the paths are valid C strings, and
            // the importance matrix's names, values and overrides (NUL-terminated arrays) live in
            // `imatrix`, all outliving the call; the log callback only reads its argument.
            unsafe {
                let mut params = sys::llama_model_quantize_default_params();
                params.ftype = ftype as _;
                params.nthread = nthread;
                params.allow_requantize = allow_requantize;
                params.dry_run = dry_run;
                if let Some(m) = &imatrix {
                    params.imatrix = m.data.as_ptr();
                    params.kv_overrides = m.overrides.as_ptr();
                }
                sys::llama_log_set(Some(log_callback), std::ptr::null_mut());
                let rc = sys::llama_model_quantize(cin.as_ptr(), cout.as_ptr(), &params);
                sys::llama_log_set(None, std::ptr::null_mut());
                Ok(rc)
            }
        });
        loop {
            let finished = worker.is_finished();
            for (i, n) in drain() {
                progress(i, n);
            }
            if finished {
                break worker.join().unwrap_or(Ok(u32::MAX));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    })?;
    if rc != 0 {
        let said = ERRORS.lock().map(|e| e.trim().replace('\n', "; ")).unwrap_or_default();
        return Err(ConvertError::Quantize(format!(
            "llama_model_quantize returned {rc} for {}{}",
            input.display(),
            if said.is_empty() {
                " (is it a GGUF llama.cpp can read?)".to_string()
            } else {
                format!(": llama.cpp said: {said}")
            }
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_and_names_parse() {
        assert_eq!(parse_progress("[  12/ 320]              blk.0.attn_q.weight - [ 2048"), Some((12, 320)));
        assert_eq!(parse_progress("llama_model_quantize_impl: model size"), None);
        assert_eq!(parse_planned("llama_model_quantize_impl: quant size  =    82.21 MiB (4.88 BPW)"), Some(82.21));
        assert_eq!(parse_planned("llama_model_quantize_impl: model size  =   512.00 MiB"), None);
        assert_eq!("Q4_K_M".parse::<QuantType>().unwrap(), QuantType::Q4KM);
        assert!("q9".parse::<QuantType>().unwrap_err().contains("q4_k_m"));
        assert!("iq2_xs".parse::<QuantType>().unwrap().needs_imatrix());
        assert!(!"q2_k".parse::<QuantType>().unwrap().needs_imatrix());
        for (ty, name, _, _) in QUANT_TYPES {
            assert_eq!(name.parse::<QuantType>().unwrap(), *ty);
            assert_eq!(ty.to_string(), *name);
        }
    }
}
