//! What this build is and what it runs on: the backends and CPU features compiled in, the
//! devices llama.cpp sees, the machine's memory, and optionally what a model would take there.

use serde::Serialize;

use crate::memory::{Estimate, MachineMemory};

/// The build: version, llama.cpp backends, target and CPU features compiled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BuildInfo {
    /// The crate's version.
    pub version: &'static str,
    /// llama.cpp backends compiled in, `cpu` first.
    pub backends: Vec<&'static str>,
    /// The target triple.
    pub target: &'static str,
    /// CPU features the Rust side was compiled for.
    pub cpu_features: Vec<&'static str>,
    /// llama.cpp's CPU kernels (native, or every variant picked at run time).
    pub cpu_kernels: &'static str,
}

impl BuildInfo {
    /// This build's.
    pub fn current() -> Self {
        BuildInfo {
            version: env!("CARGO_PKG_VERSION"),
            backends: env!("SQALE_BACKENDS").split(',').collect(),
            target: env!("SQALE_TARGET"),
            cpu_features: env!("SQALE_CPU_FEATURES").split(',').filter(|s| !s.is_empty()).collect(),
            cpu_kernels: env!("SQALE_CPU_KERNELS"),
        }
    }
}

/// A device llama.cpp sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Device {
    /// Its index (what `--device` takes, as does its name).
    pub index: usize,
    /// Its name, e.g. `Vulkan0`.
    pub name: String,
    /// What it is, e.g. the GPU's model.
    pub description: String,
    /// The backend, e.g. `CPU`, `Vulkan`, `CUDA`.
    pub backend: String,
    /// Memory in bytes.
    pub memory_total: usize,
    /// Free memory in bytes.
    pub memory_free: usize,
}

/// The build, the devices, the machine's memory and, when asked, a model's estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemInfo {
    /// The build.
    #[serde(flatten)]
    pub build: BuildInfo,
    /// Whether llama.cpp can offload layers to a GPU.
    pub gpu_offload: bool,
    /// Threads used when none are asked for.
    pub threads_default: i32,
    /// llama.cpp's CPU kernels in this build that this CPU can use, by llama.cpp's names.
    pub llama_cpu_kernels: Vec<String>,
    /// Whether a token decoded in a batch gets the logits it gets alone in this build, so that
    /// `--speculate auto` drafts ([`crate::engine::batch_invariant`]).
    pub batch_invariant: bool,
    /// Why not, when not ([`crate::engine::batch_variance`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_variance: Option<String>,
    /// Whether llama.cpp's tiled K-quant kernel runs ([`crate::engine::tiled_kernel_on`]).
    pub tiled_kernel: bool,
    /// Whether batches of generated tokens get kernels of their own, apart from prefill's
    /// ([`crate::engine::kernels_per_batch`]).
    pub kernels_per_batch: bool,
    /// Which kernels serve which batches ([`crate::engine::kernel_choice`]).
    pub kernels: crate::engine::KernelChoice,
    /// Which files are loaded with weights repacked for llama.cpp's CPU kernels
    /// ([`crate::engine::repack_policy`]).
    pub repack_weights: crate::engine::RepackPolicy,
    /// Whether llama.cpp has repacked kernels for this CPU ([`crate::engine::repacked_kernels_here`]):
    /// where it has none, no file's weights are repacked whatever `repack_weights` says.
    pub repacked_kernels: bool,
    /// How far decoding is exact in this process ([`crate::engine::exactness`]).
    pub exactness: crate::engine::Exactness,
    /// The KV cache's element type by default on the default device (`--kv-type auto`).
    pub kv_type: &'static str,
    /// How llama.cpp's CPU threads wait for each other.
    pub threading: crate::engine::Threading,
    /// The devices llama.cpp sees.
    pub devices: Vec<Device>,
    /// The machine's memory, where the system tells.
    #[serde(flatten)]
    pub memory: Option<MachineMemory>,
    /// A model's estimate, judged against the available memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Estimate>,
}

/// The devices llama.cpp sees.
pub fn devices() -> Vec<Device> {
    crate::engine::devices()
        .into_iter()
        .map(|d| Device {
            index: d.index,
            name: d.name,
            description: d.description,
            backend: d.backend,
            memory_total: d.memory_total,
            memory_free: d.memory_free,
        })
        .collect()
}

impl SystemInfo {
    /// This build on this machine; with `model`, its estimate judged against the available
    /// memory.
    pub fn current(model: Option<Estimate>) -> Self {
        let memory = crate::memory::machine();
        SystemInfo {
            build: BuildInfo::current(),
            gpu_offload: crate::engine::gpu_offload_supported(),
            threads_default: crate::engine::default_threads(),
            llama_cpu_kernels: crate::engine::cpu_kernels(),
            batch_invariant: crate::engine::batch_invariant(),
            batch_variance: crate::engine::batch_variance().map(str::to_string),
            tiled_kernel: crate::engine::tiled_kernel_on(),
            kernels_per_batch: crate::engine::kernels_per_batch(),
            kernels: crate::engine::kernel_choice(),
            repack_weights: crate::engine::repack_policy(),
            repacked_kernels: crate::engine::repacked_kernels_here(),
            exactness: crate::engine::exactness(),
            kv_type: crate::engine::KvType::Auto.resolve(),
            threading: crate::engine::threading(),
            devices: devices(),
            memory,
            model: model.map(|e| e.judge(memory.map(|m| m.available))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_info_names_cpu_first_and_serializes_flat() {
        let b = BuildInfo::current();
        assert_eq!(b.backends[0], "cpu");
        let info = SystemInfo {
            build: b,
            gpu_offload: false,
            threads_default: 2,
            llama_cpu_kernels: vec!["AVX2".into()],
            batch_invariant: false,
            batch_variance: Some("a GPU backend (vulkan) is built in".into()),
            tiled_kernel: false,
            kernels_per_batch: false,
            kernels: crate::engine::KernelChoice { prefill: "p".into(), generated: "g".into() },
            repack_weights: crate::engine::RepackPolicy::None,
            repacked_kernels: false,
            exactness: crate::engine::Exactness::No,
            kv_type: "f16",
            threading: crate::engine::threading(),
            devices: Vec::new(),
            memory: Some(MachineMemory { total: 8, available: 4 }),
            model: None,
        };
        let j = serde_json::to_value(&info).unwrap();
        for key in [
            "version",
            "backends",
            "target",
            "cpu_features",
            "cpu_kernels",
            "gpu_offload",
            "threads_default",
            "llama_cpu_kernels",
            "batch_invariant",
            "tiled_kernel",
            "kernels_per_batch",
            "kernels",
            "repack_weights",
            "repacked_kernels",
            "exactness",
            "kv_type",
            "threading",
            "devices",
            "memory_total",
            "memory_available",
        ] {
            assert!(j.get(key).is_some(), "{key} missing: {j}");
        }
        assert!(j.get("model").is_none());
        let j = serde_json::to_value(SystemInfo { memory: None, ..info }).unwrap();
        assert!(j.get("memory_total").is_none());
    }
}
