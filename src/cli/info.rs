//! `sqale info`: what this build is, which devices llama.cpp sees, and what a model and a
//! context will take in memory (computed by [`sqale::memory::estimate`]).

use std::path::PathBuf;

use clap::Args;
use sqale::system::SystemInfo;

/// Arguments of `sqale info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A GGUF model to size up.
    #[arg(long, short = 'm')]
    model: Option<PathBuf>,
    /// Context window to size for.
    #[arg(long, default_value_t = sqale::defaults::CONTEXT_TOKENS)]
    ctx: u32,
    /// With --model: also the memory of the model in every quantised type, f32 down to 2 bits
    /// (llama.cpp's quantiser plans each, reading the file: seconds for a small model, a minute for a
    /// 4 GB one).
    #[arg(long, requires = "model")]
    types: bool,
    /// With --model: the KV cache's element type to size it in (as the commands that run a
    /// model take it).
    #[arg(long, default_value_t = sqale::engine::KvType::Auto)]
    kv_type: sqale::engine::KvType,
    #[command(flatten)]
    pub(crate) exact: super::ExactArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let estimate = match &args.model {
        Some(path) => {
            let model = sqale::engine::Model::load(
                path,
                &sqale::engine::ModelOptions { gpu_layers: Some(0), ..Default::default() },
            )?;
            Some(sqale::memory::estimate_with_kv(&model, args.ctx, args.kv_type))
        }
        None => None,
    };
    let cache = args.model.as_deref().map(super::prompt_cache::for_model).transpose()?;
    let available = sqale::memory::machine().map(|m| m.available);
    let types = match (&args.model, &estimate) {
        (Some(path), Some(est)) if args.types => sqale::memory::per_type(path, est, available),
        _ => Vec::new(),
    };
    let info = SystemInfo::current(estimate);
    // The tensor types the file really holds (a file named for a type may hold others).
    let header = args.model.as_deref().and_then(|p| sqale_convert::gguf::read_header(p).ok());
    let mix = header.as_ref().map(sqale_convert::mix::type_mix).unwrap_or_default();
    let fallback = header.as_ref().and_then(sqale_convert::mix::fallback);
    if args.json {
        // Through a `Value`: keys sorted, as `sqale info --json` has always printed them.
        let mut value = serde_json::to_value(&info)?;
        if let (Some(cache), Some(obj)) = (cache, value.as_object_mut()) {
            obj.insert("prompt_cache".into(), cache);
        }
        if let (false, Some(obj)) = (types.is_empty(), value.as_object_mut()) {
            obj.insert("memory_per_type".into(), serde_json::to_value(&types)?);
        }
        if let (false, Some(obj)) = (mix.is_empty(), value.as_object_mut()) {
            obj.insert("tensor_types".into(), serde_json::to_value(&mix)?);
            obj.insert("fallback".into(), serde_json::to_value(&fallback)?);
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
    let b = &info.build;
    say(format!("sqale {}  target {}  backends {}", b.version, b.target, b.backends.join(",")));
    say(format!("CPU features compiled in: {} (llama.cpp's CPU kernels: {})", b.cpu_features.join(","), b.cpu_kernels));
    say(format!("llama.cpp CPU kernels in use: {}", info.llama_cpu_kernels.join(", ")));
    match &info.batch_variance {
        None => say("batch-invariant kernels: yes (speculation is exact: --speculate auto drafts)"),
        Some(why) => say(format!("batch-invariant kernels: no, {why} (--speculate auto decodes plainly)")),
    }
    say(format!("kernels for prompt text (prefill): {}", info.kernels.prefill));
    say(format!("kernels for generated tokens (decoding, verify batches): {}", info.kernels.generated));
    let var = sqale::engine::REPACK_VAR;
    let repack = match info.repack_weights {
        sqale::engine::RepackPolicy::None => format!("no ({var}=0)"),
        _ if !info.repacked_kernels => "none on this CPU (llama.cpp's repacked kernels need the dot product or \
             int8 matrix multiply on ARM, AVX2 on x86)"
            .to_string(),
        sqale::engine::RepackPolicy::All if std::env::var_os(var).is_some() => format!("yes, every file ({var})"),
        sqale::engine::RepackPolicy::All if cfg!(target_arch = "aarch64") => {
            format!("yes (ARM's repacked dot-product kernels; {var}=0 turns them off)")
        }
        sqale::engine::RepackPolicy::All => format!(
            "yes (Q4_0, IQ4_NL and K-quants; llama.cpp repacks no Q8_0 on x86; without AVX-512 VNNI the \
             repacked K-quant GEMM prefills faster than the tiled kernel; {var}=0 turns them off)"
        ),
        sqale::engine::RepackPolicy::WithoutKQuants => format!(
            "files without K-quant weights (Q4_0 and IQ4_NL: llama.cpp repacks no Q8_0 on x86; the tiled \
             K-quant kernel's AVX-512 VNNI path takes K-quants; {var}=0|1 for none or all)"
        ),
    };
    say(format!("repacked weights: {repack}"));
    if info.tiled_kernel && !info.kernels_per_batch {
        say(format!(
            "tiled K-quant kernel: on (batches of {}+ rows of K-quant weights: fast prefill; drafts stop at {} on \
             such models; --exact or {}=0 makes every batch exact: docs/speculative-decoding.md, \"Exactness\")",
            sqale::engine::TILED_MIN_ROWS,
            sqale::engine::TILED_MIN_ROWS - 2,
            sqale::engine::TILED_MM_VAR
        ));
    }
    let exact = match info.exactness {
        sqale::engine::Exactness::AnyBatch => "in any batch (drafting, --parallel and serve play the lone episodes)",
        sqale::engine::Exactness::BelowTiledRows => {
            "lone episodes, drafting included; several sequences in one batch on K-quant files only with --exact"
        }
        sqale::engine::Exactness::No => "no (a token's logits depend on its batch here)",
    };
    say(format!("exact decoding: {exact}"));
    say(format!("KV cache: {} by default (--kv-type f16|f32; f32 doubles its memory)", info.kv_type));
    let t = &info.threading;
    let policy = match t.policy_from {
        Some(from) => format!(", {} (from {from})", t.wait_settings()),
        None => String::new(),
    };
    say(format!(
        "default threads: {} ({}{policy}; see docs/backends.md, \"A busy machine\")",
        info.threads_default, t.pool
    ));
    for d in &info.devices {
        say(format!(
            "device {}: {} ({}, {}) {:.1} GiB total, {:.1} GiB free",
            d.index,
            d.name,
            d.description,
            d.backend,
            gib(d.memory_total as u64),
            gib(d.memory_free as u64)
        ));
    }
    if let Some(m) = &info.memory {
        say(format!("memory: {:.1} GiB total, {:.1} GiB available", gib(m.total), gib(m.available)));
    }
    if let Some(m) = &info.model {
        say(format!(
            "model {} ({}, {} layers: {} full attention, {} recurrent)",
            m.model, m.architecture, m.layers, m.full_attention_layers, m.recurrent_layers
        ));
        say(format!("  weights           {:>8.2} GiB", gib(m.weights_bytes)));
        if !mix.is_empty() {
            say(format!("  tensor types      {}", sqale_convert::mix::mix_text(&mix)));
        }
        if let Some(f) = &fallback {
            say(format!("  fallback          {}", f.sentence()));
        }
        say(format!(
            "  KV cache @ {}  {:>8.2} GiB ({}, full-attention layers only)",
            m.ctx,
            gib(m.kv_cache_bytes),
            m.kv_cache_type
        ));
        say(format!("  recurrent state   {:>8.3} GiB", gib(m.recurrent_state_bytes)));
        let fits = match m.fits_in_available_memory {
            Some(true) => ": fits",
            Some(false) => ": does NOT fit the available memory",
            None => "",
        };
        say(format!(
            "  total             {:>8.2} GiB, plus llama.cpp's compute buffer and, on CPU, repacked copies of\n                    Q4_0/Q4_K/IQ4_NL weights (see --verbose){fits}",
            gib(m.total_bytes)
        ));
    }
    if !types.is_empty() {
        print_types(&types, args.ctx);
    }
    if let Some(cache) = &cache {
        super::prompt_cache::print_for_model(cache);
    }
    Ok(())
}

/// The memory-per-type table of `info --model --types`.
fn print_types(types: &[sqale::memory::TypeMemory], ctx: u32) {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING);
    table.set_header(vec!["type".to_string(), "weights GiB".into(), format!("total GiB @ {ctx}"), "".into()]);
    let gib = |bytes: u64| format!("{:.2}", bytes as f64 / (1u64 << 30) as f64);
    for t in types {
        let mut notes = Vec::new();
        if t.needs_imatrix {
            notes.push("needs an importance matrix (sqale imatrix)");
        }
        if t.fits_in_available_memory == Some(false) {
            notes.push("does NOT fit the available memory");
        }
        table.add_row(vec![t.ty.clone(), gib(t.weights_bytes), gib(t.total_bytes), notes.join("; ")]);
    }
    for i in 1..3 {
        if let Some(c) = table.column_mut(i) {
            c.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    say("memory per type (weights as llama.cpp's quantiser plans them, plus the KV cache and recurrent state):");
    say(table.to_string());
}

/// One line (or several) on stdout for people, escaped for the terminal: names and types come
/// from the model file's metadata, which any file can set.
fn say(text: impl AsRef<str>) {
    println!("{}", sqale::printable::escape_controls(text.as_ref()));
}
