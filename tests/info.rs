//! `sqale info` and `--version`: the build's backends, the devices llama.cpp sees, and the
//! memory a model and context need, computed from the GGUF's metadata.

mod common;

use std::process::Command;

fn info(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sqale")).arg("info").arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn version_and_devices_name_the_backends() {
    let out = Command::new(env!("CARGO_BIN_EXE_sqale")).arg("--version").output().unwrap();
    let v = String::from_utf8_lossy(&out.stdout);
    assert!(v.contains("backends: cpu"), "{v}");
    let i = info(&[]);
    assert_eq!(i["backends"][0], "cpu");
    let devices = i["devices"].as_array().unwrap();
    assert!(devices.iter().any(|d| d["backend"] == "CPU"), "{devices:?}");
    if cfg!(target_arch = "x86_64") {
        assert!(i["cpu_features"].as_array().unwrap().iter().any(|f| f == "avx2"), "x86-64-v3 build");
    }
}

#[test]
fn memory_for_a_transformer_and_a_hybrid_model() {
    // SmolLM2-135M: 30 layers, all full attention, 3 KV heads of 64.
    let m = &info(&["--model", common::test_model().to_str().unwrap(), "--ctx", "16384"])["model"];
    assert_eq!(m["full_attention_layers"], 30);
    assert_eq!(m["recurrent_layers"], 0);
    // f16 K and V by default (docs/memory.md), f32 on asking: twice as much.
    assert_eq!(m["kv_cache_type"], "f16");
    assert_eq!(m["kv_cache_bytes"], 16384u64 * 30 * 3 * (64 + 64) * 2);
    assert!(m["weights_bytes"].as_u64().unwrap() > 90_000_000);
    let double =
        &info(&["--model", common::test_model().to_str().unwrap(), "--ctx", "16384", "--kv-type", "f32"])["model"];
    assert_eq!(double["kv_cache_type"], "f32");
    assert_eq!(double["kv_cache_bytes"], 16384u64 * 30 * 3 * (64 + 64) * 4);
    assert_eq!(double["weights_bytes"], m["weights_bytes"]);

    // The tiny qwen35: 3 linear-attention layers and 1 full-attention layer (2 KV heads of 16);
    // conv state 3 x (64 + 2*2*16) f32 and SSM state 4 x 16 x 16 f32 per recurrent layer.
    let dir = tempfile::tempdir().unwrap();
    let gguf = common::convert_tiny("tied", "f16", dir.path());
    let m = &info(&["--model", gguf.to_str().unwrap(), "--ctx", "16384"])["model"];
    assert_eq!(m["architecture"], "qwen35");
    assert_eq!(m["full_attention_layers"], 1);
    assert_eq!(m["recurrent_layers"], 3);
    assert_eq!(m["kv_cache_bytes"], 16384u64 * 2 * (16 + 16) * 2);
    assert_eq!(m["recurrent_state_bytes"], 3u64 * (3 * (64 + 2 * 2 * 16) * 4 + 4 * 16 * 16 * 4));
}

#[test]
fn memory_per_type_goes_from_f32_down_to_two_bits() {
    let model = common::test_model();
    let i = info(&["--model", model.to_str().unwrap(), "--ctx", "4096", "--types"]);
    let types = i["memory_per_type"].as_array().unwrap();
    let names: Vec<&str> = types.iter().map(|t| t["type"].as_str().unwrap()).collect();
    assert_eq!(names.first(), Some(&"f32"));
    for want in ["q8_0", "q4_k_m", "q3_k_s", "iq3_xxs", "q2_k", "iq2_s", "iq2_xs"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let bytes = |name: &str| types.iter().find(|t| t["type"] == name).unwrap()["weights_bytes"].as_u64().unwrap();
    // SmolLM2-135M: 135 M parameters as f32 (540 MB), and far less at 2-3 bits.
    assert!(bytes("f32") > 500_000_000 && bytes("f32") < 560_000_000, "{}", bytes("f32"));
    assert!(bytes("q8_0") < bytes("f32") / 3 && bytes("q2_k") < bytes("q4_k_m") && bytes("q4_k_m") < bytes("q8_0"));
    let kv = i["model"]["kv_cache_bytes"].as_u64().unwrap();
    for t in types {
        assert_eq!(t["total_bytes"].as_u64().unwrap(), t["weights_bytes"].as_u64().unwrap() + kv, "{t}");
        let needs = ["iq3_xxs", "iq2_s", "iq2_xs"].contains(&t["type"].as_str().unwrap());
        assert_eq!(t["needs_imatrix"], needs, "{t}");
    }
}

#[test]
fn info_names_llamas_kernels_and_the_thread_defaults() {
    let i = info(&[]);
    let kernels: Vec<&str> = i["llama_cpu_kernels"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    if cfg!(target_arch = "x86_64") {
        assert!(kernels.contains(&"AVX2"), "{kernels:?}");
    }
    assert!(kernels.contains(&"OPENMP"), "the default build uses OpenMP: {kernels:?}");
    assert_eq!(i["threading"]["pool"], "openmp");
    // sqale's default wait policy, unless the environment sets one.
    if std::env::var_os("OMP_WAIT_POLICY").is_none() && std::env::var_os("GOMP_SPINCOUNT").is_none() {
        assert_eq!(i["threading"]["gomp_spincount"], sqale::engine::GOMP_SPINCOUNT_DEFAULT);
        assert!(i["threading"].get("omp_wait_policy").is_none(), "{}", i["threading"]);
        assert_eq!(i["threading"]["policy_from"], "sqale");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["info", "--json"])
        .env("OMP_WAIT_POLICY", "ACTIVE")
        .env_remove("GOMP_SPINCOUNT")
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["threading"]["omp_wait_policy"], "ACTIVE");
    assert!(
        j["threading"].get("gomp_spincount").is_none(),
        "a policy the user set is kept as it is: {}",
        j["threading"]
    );
    assert_eq!(j["threading"]["policy_from"], "environment");
}

/// sqale's own build chooses kernels per batch: prompt text on llama.cpp's fast kernels,
/// generated tokens on its reference kernels, so decoding is exact in any batch with the tiled
/// K-quant kernel on (it follows `GGML_CPU_TILED_MM`) and `--exact` has nothing to switch off.
#[test]
fn info_says_which_kernels_serve_which_batches_and_how_far_decoding_is_exact() {
    let run_with = |tiled: Option<&str>, exact: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sqale"));
        c.args(["info", "--json"]);
        if exact {
            c.arg("--exact");
        }
        match tiled {
            Some(v) => c.env(sqale::engine::TILED_MM_VAR, v),
            None => c.env_remove(sqale::engine::TILED_MM_VAR),
        };
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let run = |tiled: Option<&str>| run_with(tiled, false);
    let default = run(None);
    if sqale::engine::GPU_BACKENDS.is_empty() {
        assert_eq!(default["batch_invariant"], true, "sqale's own build: {default}");
        assert!(default.get("batch_variance").is_none(), "{default}");
    } else {
        assert_eq!(default["batch_invariant"], false, "{default}");
        assert!(default["batch_variance"].as_str().unwrap().contains("GPU backend"), "{default}");
    }
    let x86_cpu = cfg!(target_arch = "x86_64") && sqale::engine::GPU_BACKENDS.is_empty();
    assert_eq!(default["tiled_kernel"], x86_cpu, "{default}");
    assert_eq!(run(Some("1"))["tiled_kernel"], x86_cpu);
    assert_eq!(run(Some("0"))["tiled_kernel"], false);
    assert_eq!(run(Some("0"))["batch_invariant"], default["batch_invariant"]);

    // How far decoding is exact, and the named mode that makes it exact in any batch.
    let exact = run_with(None, true);
    assert_eq!(default["kernels_per_batch"], true, "sqale's llama.cpp carries the switch: {default}");
    let generated = default["kernels"]["generated"].as_str().unwrap();
    if sqale::engine::GPU_BACKENDS.is_empty() {
        assert_eq!(default["exactness"], "any_batch", "{default}");
        assert!(generated.starts_with("llama.cpp's reference kernels"), "{default}");
        if x86_cpu {
            let prefill = default["kernels"]["prefill"].as_str().unwrap();
            assert!(prefill.contains("llamafile sgemm") && prefill.contains("tiled K-quant"), "{default}");
        }
        assert_eq!(exact["exactness"], "any_batch", "{exact}");
        assert_eq!(exact["tiled_kernel"], x86_cpu, "--exact leaves prefill's tiled kernel on: {exact}");
        assert_eq!(run(Some("0"))["exactness"], "any_batch");
    } else {
        assert_eq!(default["exactness"], "no", "{default}");
        let out = Command::new(env!("CARGO_BIN_EXE_sqale")).args(["info", "--exact"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "refused on a build that can't be exact");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("can't decode exactly") && err.contains("GPU backend"), "{err}");
    }
    assert_eq!(default["kv_type"], "f16");
}

#[test]
fn bench_busy_measures_each_level_against_idle() {
    let _g = common::one_at_a_time();
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["bench", "--busy", "1", "--pp", "8", "--tg", "8", "--reps", "1", "--ctx", "256", "--json", "--model"])
        .arg(common::test_model())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let levels = r["levels"].as_array().unwrap();
    assert_eq!(levels.iter().map(|l| l["busy"].as_u64().unwrap()).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(levels[0]["tg_over_idle"], 1.0);
    for l in levels {
        assert!(l["tg_tps_mean"].as_f64().unwrap() > 0.0, "{l}");
    }
    assert_eq!(r["threading"]["pool"], "openmp");
}

/// A file named for a type may hold others: SmolLM2's rows are 576 wide, not a multiple of a
/// k-quant's 256-weight blocks, so llama.cpp stores most of a "q3_k_m" file's weights as q4_0
/// and q5_0. `quantize` says so (the mix it wrote, and a warning with how many fell back and
/// why), `info --model` shows the mix, and `eval`'s entry for the file labels it a fallback.
#[test]
fn quantize_info_and_eval_show_the_types_a_fallback_file_really_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q3_k_m.gguf");
    let model = common::test_model();
    let o = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["quantize", model.to_str().unwrap(), out.to_str().unwrap(), "--type", "q3_k_m", "--allow-requantize"])
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("MiB") && !stdout.contains(" MB"), "{stdout}");
    let types = stdout.lines().find(|l| l.starts_with("tensor types: ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(types.contains(" q4_0") && types.contains(" f32"), "{types}");
    let warning =
        stderr.lines().find(|l| l.contains("quantised tensors are not q3_k_m")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        warning.starts_with("warning: ") && warning.contains("(576 wide)") && warning.contains("256-weight blocks"),
        "{warning}"
    );
    let h = sqale_convert::gguf::read_header(&out).unwrap();
    let f = sqale_convert::mix::fallback(&h).expect("a fallback");
    let mix = sqale_convert::mix::type_mix(&h);
    assert!(!mix.iter().any(|m| m.name == "q3_K"), "no weight of SmolLM2 takes q3_K: {mix:?}");
    assert!(f.tensors > f.quantised / 2, "most of SmolLM2's weights fall back: {f:?}");
    assert_eq!(f.tensors, f.into.iter().map(|t| t.tensors).sum::<usize>());
    eprintln!("{}", f.sentence());

    let i = info(&["--model", out.to_str().unwrap()]);
    assert_eq!(i["tensor_types"].as_array().unwrap().len(), mix.len(), "{}", i["tensor_types"]);
    assert_eq!(i["fallback"]["tensors"], f.tensors as u64);
    let text =
        Command::new(env!("CARGO_BIN_EXE_sqale")).args(["info", "--model", out.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("tensor types      ") && text.contains("fallback          "), "{text}");

    let entry = sqale::eval::results::ModelEntry::file(&out, 134_515_008);
    assert_eq!(entry.type_label().as_deref(), Some("q3_k_m, mostly q4_0 (fallback)"), "{entry:?}");
    assert_eq!(entry.fallback.as_ref(), Some(&f));
    // A q4_0 file of the same model takes its type everywhere: no fallback.
    let q4 = dir.path().join("q4_0.gguf");
    let o = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["quantize", model.to_str().unwrap(), q4.to_str().unwrap(), "--type", "q4_0", "--allow-requantize"])
        .output()
        .unwrap();
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stderr).contains("not q4_0"), "{o:?}");
    assert_eq!(sqale::eval::results::ModelEntry::file(&q4, 1).fallback, None);
}
