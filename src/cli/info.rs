//! `sqale info`: what this build is, which devices llama.cpp sees, and what a model and a
//! context will take in memory.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

/// Arguments of `sqale info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A GGUF model to size up.
    #[arg(long, short = 'm')]
    model: Option<PathBuf>,
    /// Context window to size for.
    #[arg(long, default_value_t = 16_384)]
    ctx: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Bytes from `/proc/meminfo` (`MemTotal`, `MemAvailable`), when there is one.
fn meminfo() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let get = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some((get("MemTotal:")?, get("MemAvailable:")?))
}

/// Memory a model needs at a context size, from its GGUF metadata: weights, KV cache of the
/// full-attention layers (f16 K and V), recurrent state of the linear-attention layers (f32).
fn estimate(model: &sqale::engine::Model, ctx: u64) -> serde_json::Value {
    let arch = model.meta("general.architecture").unwrap_or_default();
    let num = |k: &str| model.meta(&format!("{arch}.{k}")).and_then(|v| v.parse::<u64>().ok());
    let layers = num("block_count").unwrap_or(0);
    let heads = num("attention.head_count").unwrap_or(1).max(1);
    let kv_heads = num("attention.head_count_kv").unwrap_or(heads);
    let embd = num("embedding_length").unwrap_or(0);
    let k_len = num("attention.key_length").unwrap_or(embd / heads);
    let v_len = num("attention.value_length").unwrap_or(embd / heads);
    // Which layers are recurrent: every layer but each n-th for a hybrid model with an
    // interval (llama.cpp's metadata API does not expose the per-layer array), all for a
    // recurrent one, none otherwise.
    let recurrent = match num("full_attention_interval") {
        Some(i) if i > 0 && model.is_recurrent_or_hybrid() => layers - layers / i,
        _ if model.llama().is_recurrent() => layers,
        _ => 0,
    };
    let full = layers - recurrent;
    let kv = ctx * full * kv_heads * (k_len + v_len) * 2;
    let state = if recurrent > 0 {
        let conv_k = num("ssm.conv_kernel").unwrap_or(4);
        let groups = num("ssm.group_count").unwrap_or(0);
        let d_state = num("ssm.state_size").unwrap_or(0);
        let inner = num("ssm.inner_size").unwrap_or(0);
        let v_heads = num("ssm.time_step_rank").unwrap_or(0);
        let conv = (conv_k.saturating_sub(1)) * (inner + 2 * groups * d_state) * 4;
        let ssm = v_heads * d_state * d_state * 4;
        recurrent * (conv + ssm)
    } else {
        0
    };
    json!({
        "architecture": arch, "layers": layers, "full_attention_layers": full, "recurrent_layers": recurrent,
        "weights_bytes": model.size(), "kv_cache_bytes": kv, "recurrent_state_bytes": state,
        "total_bytes": model.size() + kv + state,
    })
}

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let devices: Vec<serde_json::Value> = sqale::engine::devices()
        .into_iter()
        .map(|d| json!({"index": d.index, "name": d.name, "description": d.description, "backend": d.backend,
                        "memory_total": d.memory_total, "memory_free": d.memory_free}))
        .collect();
    let mut out = json!({
        "version": env!("CARGO_PKG_VERSION"),
        "backends": env!("SQALE_BACKENDS").split(',').collect::<Vec<_>>(),
        "target": env!("SQALE_TARGET"),
        "cpu_features": env!("SQALE_CPU_FEATURES").split(',').filter(|s| !s.is_empty()).collect::<Vec<_>>(),
        "cpu_kernels": env!("SQALE_CPU_KERNELS"),
        "gpu_offload": sqale::engine::gpu_offload_supported(),
        "threads_default": sqale::engine::default_threads(),
        "devices": devices,
    });
    let mem = meminfo();
    if let Some((total, avail)) = mem {
        out["memory_total"] = total.into();
        out["memory_available"] = avail.into();
    }
    if let Some(path) = &args.model {
        let model = sqale::engine::Model::load(path, &sqale::engine::ModelOptions { gpu_layers: Some(0), ..Default::default() })?;
        let mut e = estimate(&model, args.ctx as u64);
        e["model"] = path.display().to_string().into();
        e["ctx"] = args.ctx.into();
        if let Some((_, avail)) = mem {
            // llama.cpp's compute buffers come on top: keep 10% headroom.
            e["fits_in_available_memory"] = (e["total_bytes"].as_u64().unwrap_or(0) as f64 * 1.1 < avail as f64).into();
        }
        out["model"] = e;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let gb = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as f64 / (1u64 << 30) as f64;
    println!("sqale {}  target {}  backends {}", out["version"].as_str().unwrap_or(""), env!("SQALE_TARGET"), env!("SQALE_BACKENDS"));
    println!("CPU features compiled in: {} (llama.cpp's CPU kernels: {})", env!("SQALE_CPU_FEATURES"), env!("SQALE_CPU_KERNELS"));
    println!("default threads: {}", out["threads_default"]);
    for d in out["devices"].as_array().into_iter().flatten() {
        println!("device {}: {} ({}, {}) {:.1} GiB total, {:.1} GiB free", d["index"], d["name"].as_str().unwrap_or(""), d["description"].as_str().unwrap_or(""), d["backend"].as_str().unwrap_or(""), gb(&d["memory_total"]), gb(&d["memory_free"]));
    }
    if mem.is_some() {
        println!("memory: {:.1} GiB total, {:.1} GiB available", gb(&out["memory_total"]), gb(&out["memory_available"]));
    }
    if let Some(m) = out.get("model") {
        println!("model {} ({}, {} layers: {} full attention, {} recurrent)", m["model"].as_str().unwrap_or(""), m["architecture"].as_str().unwrap_or(""), m["layers"], m["full_attention_layers"], m["recurrent_layers"]);
        println!("  weights           {:>8.2} GiB", gb(&m["weights_bytes"]));
        println!("  KV cache @ {:>6}  {:>8.2} GiB (f16, full-attention layers only)", m["ctx"], gb(&m["kv_cache_bytes"]));
        println!("  recurrent state   {:>8.3} GiB", gb(&m["recurrent_state_bytes"]));
        println!("  total             {:>8.2} GiB, plus llama.cpp's compute buffer and, on CPU, repacked copies of\n                    Q4_0/Q4_K/IQ4_NL weights (see --verbose){}", gb(&m["total_bytes"]),
            match m.get("fits_in_available_memory").and_then(|v| v.as_bool()) { Some(true) => ": fits", Some(false) => ": does NOT fit the available memory", None => "" });
    }
    Ok(())
}
