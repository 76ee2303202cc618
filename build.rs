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
    println!("cargo:rustc-env=SQALE_LLAMA_CPP={}{}", llama_cpp_version(), patches());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=vendor/patches");
    println!("cargo:rerun-if-changed=Cargo.lock");
}

/// `llama-cpp-sys-2 VERSION`, the llama.cpp sqale is built with, from Cargo.lock (part of the
/// prompt cache's key: another llama.cpp may lay out its state differently).
fn llama_cpp_version() -> String {
    let lock = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("Cargo.lock");
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"llama-cpp-sys-2\"" {
            if let Some(v) = lines.next().and_then(|l| l.trim().strip_prefix("version = ")) {
                return format!("llama-cpp-sys-2 {}", v.trim_matches('"'));
            }
        }
    }
    "llama-cpp-sys-2 (version unknown)".into()
}

/// ` + patches NAMES (HASH)`: the patches vendor/llama-cpp-sys-2 and vendor/llama-cpp-2 carry
/// (vendor/patches), by name and a hash of their text (FNV-1a), so that a prompt cache written by
/// another patch level is refused as stale (the bindings' patches decide what llama.cpp computes
/// with too: which weights it may repack); empty without patches.
fn patches() -> String {
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let files: Vec<_> = ["llama-cpp-sys-2", "llama-cpp-2"]
        .iter()
        .flat_map(|krate| {
            let mut files: Vec<_> = std::fs::read_dir(root.join("vendor/patches").join(krate))
                .map(|d| {
                    d.filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
                        .collect()
                })
                .unwrap_or_default();
            files.sort();
            files
        })
        .collect();
    if files.is_empty() {
        return String::new();
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut names = Vec::new();
    for f in &files {
        for b in std::fs::read(f).unwrap_or_default() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        names.push(f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    }
    format!(" + patches {} ({hash:016x})", names.join(", "))
}
