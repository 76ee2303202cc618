//! The KV cache's element type: f16 by default, f32 on asking.
//!
//! On sqale's CPU build (generated tokens on llama.cpp's reference kernels, whose flash
//! attention sums fixed chunks of the cache) attention over either type gives a generated token
//! the same logits whatever batch it is decoded in, so speculative decoding and `--parallel` stay
//! exact with both (`examples/verify_probe.rs`, tests/speculation.rs). f16 halves the cache's
//! memory and traffic: deep in a context, where attention reads the cache for every token, it
//! prefills and decodes faster (docs/measurements.md, "Kernels per batch"), as llama.cpp's own
//! default does. A GPU reads f16 natively.

use std::fmt;
use std::str::FromStr;

/// The KV cache's element type, as asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KvType {
    /// f16, on the CPU and on a GPU.
    #[default]
    Auto,
    /// 16-bit floats.
    F16,
    /// 32-bit floats.
    F32,
}

impl KvType {
    /// The type in force (`auto` is f16, on the CPU and on a GPU): `"f16"` or `"f32"`.
    pub fn resolve(self) -> &'static str {
        match self {
            KvType::Auto | KvType::F16 => "f16",
            KvType::F32 => "f32",
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
    fn auto_is_f16_on_the_cpu_and_on_a_gpu() {
        assert_eq!(KvType::Auto.resolve(), "f16");
        assert_eq!(KvType::F32.resolve(), "f32");
        assert_eq!(KvType::F16.resolve(), "f16");
        assert_eq!("F16".parse::<KvType>().unwrap(), KvType::F16);
        assert!("q8_0".parse::<KvType>().unwrap_err().contains("auto, f16 or f32"));
        assert_eq!(KvType::F32.to_string(), "f32");
    }
}
