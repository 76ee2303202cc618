//! The collector: a llama.cpp context whose evaluation callback (`cb_eval`, ggml's scheduler
//! callback, as `llama-imatrix` uses it) sees the input of every matrix product with a block's
//! weight, and sums each input column's squared activation per weight.
//!
//! llama-cpp-2 wraps neither the callback nor a raw context, so this goes through the sys
//! crate: its own model handle (the file is memory-mapped, so its pages are shared with the
//! engine's), one context, one sequence, batches of tokens decoded with every row an output.

use std::collections::BTreeMap;
use std::ffi::{c_void, CStr, CString};
use std::path::Path;
use std::ptr::NonNull;

use llama_cpp_sys_2 as sys;

use super::ImatrixError;

/// Sums of one weight: squared activations per input column (per matrix), and tokens.
#[derive(Debug, Clone)]
pub(super) struct Sums {
    /// `columns × matrices`, column fastest.
    pub(super) squares: Vec<f64>,
    /// Tokens summed per matrix.
    pub(super) counts: Vec<u64>,
}

/// What the callback writes into while a batch is decoded.
#[derive(Debug, Default)]
struct State {
    sums: BTreeMap<String, Sums>,
    /// Whether the batch being decoded is counted (a shared prefix is counted once).
    counting: bool,
    /// Bytes of an input that lives off the host (a GPU buffer), copied for reading.
    scratch: Vec<u8>,
    /// Why the callback stopped the computation.
    error: Option<String>,
}

/// A weight's GGUF name, from a matrix product's first operand: a block's weight itself, not a
/// view of one and not an activation (attention's products multiply two activations).
///
/// # Safety
/// `w` points to a live ggml tensor.
unsafe fn weight_name(w: *const sys::ggml_tensor) -> Option<String> {
    let w = unsafe { &*w };
    if !w.view_src.is_null() {
        return None;
    }
    // SAFETY: ggml keeps names NUL-terminated within the array.
    let name = unsafe { CStr::from_ptr(w.name.as_ptr()) }.to_str().ok()?;
    // A backend may decorate a copy's name (`CUDA0#blk.0.attn_q.weight#0`).
    let name = name.split('#').find(|p| p.starts_with("blk.")).unwrap_or(name);
    (name.starts_with("blk.") && name.ends_with(".weight")).then(|| name.to_string())
}

/// ggml's evaluation callback: asked (`ask`) whether a node is wanted, then handed it computed.
/// Returning false from the second call stops the computation (the decode fails).
unsafe extern "C" fn observe(t: *mut sys::ggml_tensor, ask: bool, user: *mut c_void) -> bool {
    // SAFETY: `user` is the collector's boxed state, alive and not otherwise borrowed while a
    // decode runs; `t` and its sources are live tensors of the graph being computed.
    let state = unsafe { &mut *(user as *mut State) };
    let t = unsafe { &*t };
    let (w, x) = (t.src[0], t.src[1]);
    if t.op == sys::GGML_OP_MUL_MAT_ID {
        if ask {
            return state.counting;
        }
        state.error =
            Some("the model routes tokens to experts (a mixture of experts): sqale collects dense models only".into());
        return false;
    }
    if t.op != sys::GGML_OP_MUL_MAT || w.is_null() || x.is_null() {
        return !ask;
    }
    let Some(name) = (unsafe { weight_name(w) }) else { return !ask };
    let x = unsafe { &*x };
    if ask {
        return state.counting && x.type_ == sys::GGML_TYPE_F32;
    }
    unsafe { accumulate(state, name, &*w, x) };
    true
}

/// Adds the squares of `x`'s rows (the inputs of `w`) to `w`'s sums.
///
/// # Safety
/// `x` is a computed f32 tensor whose data its strides describe.
unsafe fn accumulate(state: &mut State, name: String, w: &sys::ggml_tensor, x: &sys::ggml_tensor) {
    let cols = x.ne[0] as usize;
    let matrices = (w.ne[2] * w.ne[3]).max(1) as usize;
    // SAFETY: the tensor's buffer is a live backend buffer.
    let on_host = x.buffer.is_null() || unsafe { sys::ggml_backend_buffer_is_host(x.buffer) };
    let base: *const u8 = if on_host {
        x.data as *const u8
    } else {
        let bytes = unsafe { sys::ggml_nbytes(x) };
        state.scratch.resize(bytes, 0);
        unsafe { sys::ggml_backend_tensor_get(x, state.scratch.as_mut_ptr() as *mut c_void, 0, bytes) };
        state.scratch.as_ptr()
    };
    if x.nb[0] != std::mem::size_of::<f32>() {
        state.error = Some(format!("the input of {name} is not laid out in rows"));
        return;
    }
    let sums = state
        .sums
        .entry(name.clone())
        .or_insert_with(|| Sums { squares: vec![0.0; cols * matrices], counts: vec![0; matrices] });
    if sums.squares.len() != cols * matrices {
        state.error = Some(format!("{name} was multiplied by inputs of two widths"));
        return;
    }
    for i3 in 0..x.ne[3] as usize {
        for i2 in 0..x.ne[2] as usize {
            let m = (i3 % w.ne[3].max(1) as usize) * w.ne[2].max(1) as usize + (i2 % w.ne[2].max(1) as usize);
            let acc = &mut sums.squares[m * cols..(m + 1) * cols];
            for row in 0..x.ne[1] as usize {
                let offset = row * x.nb[1] + i2 * x.nb[2] + i3 * x.nb[3];
                // SAFETY: `offset` addresses a row of `cols` f32 values inside the tensor.
                let values = unsafe { std::slice::from_raw_parts(base.add(offset) as *const f32, cols) };
                for (a, &v) in acc.iter_mut().zip(values) {
                    *a += f64::from(v) * f64::from(v);
                }
            }
            sums.counts[m] += x.ne[1] as u64;
        }
    }
    if sums.squares.iter().any(|v| !v.is_finite()) {
        state.error = Some(format!("the activations into {name} are not finite: the model file is damaged"));
    }
}

/// A model and a context that collect activation statistics as they decode.
pub(super) struct Collector {
    model: NonNull<sys::llama_model>,
    ctx: NonNull<sys::llama_context>,
    state: Box<State>,
    batch: sys::llama_batch,
    n_batch: usize,
    n_ctx: usize,
}

impl Collector {
    /// Loads `path` and makes a context of `n_ctx` tokens decoding `n_batch` at a time.
    pub(super) fn new(path: &Path, n_ctx: u32, n_batch: u32, threads: i32) -> Result<Collector, ImatrixError> {
        static INIT: std::sync::Once = std::sync::Once::new();
        // SAFETY: llama.cpp's process-wide initialisation, once.
        INIT.call_once(|| unsafe { sys::llama_backend_init() });
        let c_path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| ImatrixError::Model(format!("{}: the path has a NUL byte", path.display())))?;
        // SAFETY: default parameters; the path is a valid C string for the call.
        let model = unsafe { sys::llama_model_load_from_file(c_path.as_ptr(), sys::llama_model_default_params()) };
        let model = NonNull::new(model)
            .ok_or_else(|| ImatrixError::Model(format!("llama.cpp could not load {}", path.display())))?;
        let mut state = Box::<State>::default();
        let n_batch = n_batch.clamp(1, n_ctx.max(1));
        // SAFETY: default parameters, with the callback and its state (boxed: its address is
        // stable for the context's life, which ends before the box's in Drop).
        let ctx = unsafe {
            let mut p = sys::llama_context_default_params();
            p.n_ctx = n_ctx;
            p.n_batch = n_batch;
            p.n_ubatch = n_batch;
            p.n_seq_max = 1;
            p.n_threads = threads;
            p.n_threads_batch = threads;
            p.cb_eval = Some(observe);
            p.cb_eval_user_data = &mut *state as *mut State as *mut c_void;
            sys::llama_init_from_model(model.as_ptr(), p)
        };
        let Some(ctx) = NonNull::new(ctx) else {
            // SAFETY: the model was loaded above and nothing else holds it.
            unsafe { sys::llama_model_free(model.as_ptr()) };
            return Err(ImatrixError::Model(format!("llama.cpp could not make a context of {n_ctx} tokens")));
        };
        // SAFETY: a batch of `n_batch` tokens, one sequence id each; freed in Drop.
        let batch = unsafe { sys::llama_batch_init(n_batch as i32, 0, 1) };
        Ok(Collector { model, ctx, state, batch, n_batch: n_batch as usize, n_ctx: n_ctx as usize })
    }

    /// The context's size in tokens.
    pub(super) fn n_ctx(&self) -> usize {
        self.n_ctx
    }

    /// Decodes `tokens` from an empty context, counting the statistics of those from `count_from`
    /// on; `on_batch(tokens)` after each batch.
    pub(super) fn sequence(
        &mut self,
        tokens: &[i32],
        count_from: usize,
        on_batch: &mut dyn FnMut(usize),
    ) -> Result<(), ImatrixError> {
        // SAFETY: the context is live; clearing its memory drops every position of sequence 0.
        unsafe { sys::llama_memory_clear(sys::llama_get_memory(self.ctx.as_ptr()), true) };
        let tokens = &tokens[..tokens.len().min(self.n_ctx)];
        let mut pos = 0;
        while pos < tokens.len() {
            // A batch never straddles the first counted token.
            let end = if pos < count_from { count_from.min(tokens.len()) } else { tokens.len() };
            let end = end.min(pos + self.n_batch);
            self.state.counting = pos >= count_from;
            self.decode(&tokens[pos..end], pos)?;
            on_batch(end - pos);
            pos = end;
        }
        Ok(())
    }

    fn decode(&mut self, tokens: &[i32], first: usize) -> Result<(), ImatrixError> {
        let b = &mut self.batch;
        // SAFETY: the batch holds `n_batch` >= tokens.len() slots of each array, one sequence id
        // per token (llama_batch_init above).
        let rc = unsafe {
            for (i, &t) in tokens.iter().enumerate() {
                *b.token.add(i) = t;
                *b.pos.add(i) = (first + i) as i32;
                *b.n_seq_id.add(i) = 1;
                *(*b.seq_id.add(i)) = 0;
                // Every row is an output: llama.cpp computes a block's last layer only for the
                // rows it outputs, and the statistics need them all.
                *b.logits.add(i) = 1;
            }
            b.n_tokens = tokens.len() as i32;
            sys::llama_decode(self.ctx.as_ptr(), *b)
        };
        if let Some(why) = self.state.error.take() {
            return Err(ImatrixError::Collect(why));
        }
        if rc != 0 {
            return Err(ImatrixError::Collect(format!("llama_decode returned {rc} at position {first}")));
        }
        Ok(())
    }

    /// The sums collected so far.
    pub(super) fn take(&mut self) -> BTreeMap<String, Sums> {
        std::mem::take(&mut self.state.sums)
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        // SAFETY: each was made in `new` and is freed once, the context before its model.
        unsafe {
            sys::llama_batch_free(self.batch);
            sys::llama_free(self.ctx.as_ptr());
            sys::llama_model_free(self.model.as_ptr());
        }
    }
}
