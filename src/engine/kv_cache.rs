//! The KV cache's element type: f32 on the CPU backend by default, f16 on a GPU.
//!
//! On sqale's CPU build (flash attention off, no batch-shaped kernels) attention over either type
//! gives a token the same logits whatever batch it is decoded in, so speculative decoding and
//! `--parallel` stay exact with both (`examples/verify_probe.rs`, tests/speculation.rs). f16
//! halves the cache's memory and decodes about 1.1x faster deep in a context; f32 prefills as fast
//! or faster on the CPU, whose f16 dot products convert every element as they go
//! (docs/measurements.md, "Decoding at depth"), and an agent episode appends more tokens than it
//! generates, so f32 is the CPU's default. A GPU reads f16 natively.

use std::fmt;
use std::str::FromStr;

/// The KV cache's element type, as asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KvType {
    /// f32 on the CPU backend, f16 on a GPU.
    #[default]
    Auto,
    /// 16-bit floats.
    F16,
    /// 32-bit floats.
    F32,
}

impl KvType {
    /// The type in force for a model on the GPU (`on_gpu`) or the CPU: `"f16"` or `"f32"`.
    pub fn resolve(self, on_gpu: bool) -> &'static str {
        match self {
            KvType::Auto if on_gpu => "f16",
            KvType::Auto | KvType::F32 => "f32",
            KvType::F16 => "f16",
        }
    }
}

impl fmt::Display for KvType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KvType::Auto => "auto",
            KvType::F16 => "f16",
            KvType::F32 => "f32",
        })
    }
}

impl FromStr for KvType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(KvType::Auto),
            "f16" => Ok(KvType::F16),
            "f32" => Ok(KvType::F32),
            other => Err(format!("unknown KV cache type {other:?}: choose auto, f16 or f32")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_f32_on_the_cpu_and_f16_on_a_gpu() {
        assert_eq!(KvType::Auto.resolve(false), "f32");
        assert_eq!(KvType::Auto.resolve(true), "f16");
        assert_eq!(KvType::F16.resolve(false), "f16");
        assert_eq!("F16".parse::<KvType>().unwrap(), KvType::F16);
        assert!("q8_0".parse::<KvType>().unwrap_err().contains("auto, f16 or f32"));
        assert_eq!(KvType::F32.to_string(), "f32");
    }
}
