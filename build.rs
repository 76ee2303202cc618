//! Records which llama.cpp backends this build enables and the CPU features it targets, for
//! `sqale --version` and `sqale info`.

fn main() {
    let mut backends = vec!["cpu"];
    for (feature, name) in
        [("CARGO_FEATURE_VULKAN", "vulkan"), ("CARGO_FEATURE_CUDA", "cuda"), ("CARGO_FEATURE_METAL", "metal")]
    {
        if std::env::var_os(feature).is_some() {
            backends.push(name);
        }
    }
    println!("cargo:rustc-env=SQALE_BACKENDS={}", backends.join(","));
    println!("cargo:rustc-env=SQALE_GPU_BACKENDS={}", backends[1..].join(","));
    let cpu_kernels = if std::env::var_os("CARGO_FEATURE_PORTABLE").is_some() {
        "all variants, chosen at run time"
    } else {
        "this build's target features"
    };
    println!("cargo:rustc-env=SQALE_CPU_KERNELS={cpu_kernels}");
    if std::env::var_os("CARGO_FEATURE_PORTABLE").is_some()
        && std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
    {
        // llama.cpp is shared libraries here: let the binary find them beside itself, where
        // scripts/package-portable puts them.
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,$ORIGIN");
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=SQALE_TARGET={target}");
    // The SIMD features llama.cpp's CPU kernels are compiled for (llama-cpp-sys-2 maps these).
    let wanted =
        ["sse4.2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512vnni", "neon", "dotprod", "i8mm", "sve"];
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let on: Vec<&str> = features.split(',').filter(|f| wanted.contains(f)).collect();
    println!("cargo:rustc-env=SQALE_CPU_FEATURES={}", on.join(","));
    println!("cargo:rerun-if-changed=build.rs");
}
