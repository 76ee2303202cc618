//! Converted MTP heads as llama.cpp loads them (`load_mtp` on and off), and the `sqale convert`
//! flags `--no-mtp`, `--mtp-from` and `--mtp-replace`. The head's tensors themselves are checked
//! one by one in `convert/tests/mtp.rs`.

#[path = "support/headless.rs"]
mod headless;

use std::path::{Path, PathBuf};
use std::process::Command;

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use sqale_convert::{ConvertOptions, Graft, IfPresent, Mtp};

fn fixture(variant: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny").join(variant)
}

fn convert(ck: &Path, out: &Path, ty: &str, mtp: Mtp) {
    let opts = ConvertOptions { out_type: ty.parse().unwrap(), threads: Some(2), mtp, ..Default::default() };
    sqale_convert::convert(ck, out, &opts, &mut |_| {}).unwrap();
}

/// Loads with or without the head; returns (trunk layers, `nextn_predict_layers`).
fn load(backend: &LlamaBackend, path: &Path, load_mtp: bool) -> Result<(u32, Option<String>), String> {
    let params = LlamaModelParams::default().with_load_mtp(load_mtp);
    let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| e.to_string())?;
    Ok((model.n_layer(), model.meta_val_str("qwen35.nextn_predict_layers").ok()))
}

#[test]
fn llama_cpp_loads_the_head_with_and_without_load_mtp() {
    let backend = LlamaBackend::init().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let headless = dir.path().join("headless");
    headless::headless_copy(&fixture("untied"), &headless);
    let grafted = dir.path().join("grafted.gguf");
    convert(&headless, &grafted, "f16", Mtp::Graft(Graft { from: fixture("tied"), if_present: IfPresent::Refuse }));
    for (variant, ty) in [("tied", "f32"), ("untied", "q8_0"), ("tied", "q4_k_m")] {
        let out = dir.path().join(format!("{variant}-{ty}.gguf"));
        convert(&fixture(variant), &out, ty, Mtp::Keep);
        for load_mtp in [true, false] {
            let got = load(&backend, &out, load_mtp).unwrap_or_else(|e| panic!("{variant} {ty} {load_mtp}: {e}"));
            assert_eq!(got, (4, Some("1".into())), "{variant} {ty} load_mtp {load_mtp}");
        }
    }
    for load_mtp in [true, false] {
        assert_eq!(load(&backend, &grafted, load_mtp).unwrap(), (4, Some("1".into())), "grafted");
    }
    let without = dir.path().join("without.gguf");
    convert(&fixture("tied"), &without, "f32", Mtp::Drop);
    assert_eq!(load(&backend, &without, true).unwrap(), (4, None));

    // load_mtp really reads the head: with one of its tensors renamed, loading the head fails.
    let mut bytes = std::fs::read(dir.path().join("tied-f32.gguf")).unwrap();
    let name = b"blk.4.nextn.hnorm.weight";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap();
    bytes[at + name.len() - 1] = b'x';
    let broken = dir.path().join("broken.gguf");
    std::fs::write(&broken, bytes).unwrap();
    let err = load(&backend, &broken, true).expect_err("a head without hnorm must not load");
    eprintln!("broken head, load_mtp: {err}");
}

fn sqale(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap()
}

#[test]
fn the_convert_flags() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: &str| dir.path().join(s).to_string_lossy().into_owned();
    let (tied, untied) =
        (fixture("tied").to_string_lossy().into_owned(), fixture("untied").to_string_lossy().into_owned());

    // --no-mtp writes what the library writes with Mtp::Drop; the default keeps the head.
    let o = sqale(&["convert", "--type", "f32", "--no-mtp", "-o", &p("cli.gguf"), &tied]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no MTP head"));
    // stderr is a pipe, not a terminal: progress comes as plain lines, the last one at the end.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.lines().any(|l| l.starts_with("convert: ") && l.contains(" s)")), "{err}");
    convert(&fixture("tied"), &dir.path().join("lib.gguf"), "f32", Mtp::Drop);
    assert_eq!(std::fs::read(p("cli.gguf")).unwrap(), std::fs::read(p("lib.gguf")).unwrap());
    let o = sqale(&["convert", "--type", "f32", "-o", &p("keep.gguf"), &tied]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("MTP head kept, 15 tensors"), "{o:?}");

    // --mtp-from onto a headless checkpoint.
    let headless = dir.path().join("headless");
    headless::headless_copy(&fixture("untied"), &headless);
    let o = sqale(&["convert", "--type", "f16", "--mtp-from", &tied, "-o", &p("g.gguf"), &headless.to_string_lossy()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("grafted, 15 tensors"), "{o:?}");

    // A checkpoint with a head: refused without --mtp-replace, nothing written; replaced with it.
    let o = sqale(&["convert", "--type", "f16", "--mtp-from", &tied, "-o", &p("r.gguf"), &untied]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("already has its own MTP head") && err.contains("--mtp-replace"), "{err}");
    assert!(!Path::new(&p("r.gguf")).exists());
    let o = sqale(&["convert", "--type", "f16", "--mtp-from", &tied, "--mtp-replace", "-o", &p("r.gguf"), &untied]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // Contradictory flags.
    let o = sqale(&["convert", "--no-mtp", "--mtp-from", &tied, "-o", &p("x.gguf"), &untied]);
    assert_eq!(o.status.code(), Some(2));
    let o = sqale(&["convert", "--mtp-replace", "-o", &p("x.gguf"), &untied]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!Path::new(&p("x.gguf")).exists());
}
