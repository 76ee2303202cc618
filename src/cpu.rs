//! The CPU features this build was compiled for, against what the CPU it runs on has.
//!
//! A binary built for x86-64-v3 (sqale's default on x86-64 Linux) dies with an illegal
//! instruction on a CPU without AVX2; checking first turns that into a message that says what to
//! rebuild with.

/// Features the build needs that this CPU lacks (empty when it has them all).
pub fn missing_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        macro_rules! need {
            ($($f:tt),*) => {$(
                if cfg!(target_feature = $f) && !std::arch::is_x86_feature_detected!($f) {
                    missing.push($f);
                }
            )*};
        }
        need!("sse4.2", "avx", "avx2", "fma", "f16c", "bmi2");
        // A build for x86-64-v4 and its extensions (docs/backends.md, "Building for this CPU").
        need!(
            "avx512f",
            "avx512bw",
            "avx512cd",
            "avx512dq",
            "avx512vl",
            "avx512vnni",
            "avx512bf16",
            "avx512vbmi",
            "avxvnni"
        );
    }
    missing
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_test_machine_runs_this_build() {
        assert!(super::missing_features().is_empty());
    }
}
