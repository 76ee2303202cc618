//! Bad inputs to `sqale convert`: each gets a clear error, and no output (nor temporary) file is
//! left behind.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sqale_convert::{ConvertError, ConvertOptions};

fn fixture(variant: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny").join(variant)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Converts `ck` into an empty folder; returns the error and checks nothing was left there.
fn convert_fails(ck: &Path, ty: &str) -> ConvertError {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("out.gguf");
    let opts = ConvertOptions {
        out_type: ty.parse().unwrap(),
        name: None,
        repo: None,
        threads: Some(2),
        ..Default::default()
    };
    let err = sqale_convert::convert(ck, &out, &opts, &mut |_| {}).expect_err("conversion must fail");
    assert!(common::dir_listing(out_dir.path()).is_empty(), "left behind: {:?}", common::dir_listing(out_dir.path()));
    err
}

fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn missing_and_truncated_shards() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    copy_dir(&fixture("untied"), &ck);
    std::fs::remove_file(ck.join("model-00002-of-00002.safetensors")).unwrap();
    let err = convert_fails(&ck, "f16");
    assert!(matches!(err, ConvertError::MissingShard { .. }), "{err}");
    assert!(err.to_string().contains("download it again"), "{err}");

    copy_dir(&fixture("untied"), &ck);
    let shard = ck.join("model-00002-of-00002.safetensors");
    let len = std::fs::metadata(&shard).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&shard).unwrap().set_len(len - 1000).unwrap();
    let err = convert_fails(&ck, "q8_0");
    assert!(matches!(err, ConvertError::BadShard { .. }), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn a_shape_that_contradicts_the_config() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("tied"), dir.path());
    edit_json(&dir.path().join("config.json"), |v| v["text_config"]["intermediate_size"] = 96.into());
    let err = convert_fails(dir.path(), "f32");
    match &err {
        ConvertError::Shape { tensor, actual, expected } => {
            assert!(tensor.contains("mlp.gate_proj"), "{tensor}");
            assert_eq!(actual, &vec![128, 64]);
            assert_eq!(expected, &vec![96, 64]);
        }
        other => panic!("expected a shape error, got {other}"),
    }
}

#[test]
fn an_architecture_other_than_qwen35() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("causal"), dir.path());
    edit_json(&dir.path().join("config.json"), |v| v["architectures"] = serde_json::json!(["LlamaForCausalLM"]));
    let err = convert_fails(dir.path(), "f16");
    assert!(matches!(&err, ConvertError::Architecture(a) if a == "LlamaForCausalLM"), "{err}");
    assert!(err.to_string().contains("Qwen3_5ForConditionalGeneration"));
}

#[test]
fn an_unknown_dtype() {
    use safetensors::tensor::{Dtype, TensorView};
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("causal"), dir.path());
    let path = dir.path().join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    // Re-save with the final norm as float64, a dtype sqale does not read.
    let mut f64_data = Vec::new();
    let mut views = Vec::new();
    for (name, view) in st.tensors() {
        if name == "model.norm.weight" {
            for c in view.data().chunks_exact(2) {
                let x = half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64();
                f64_data.extend_from_slice(&x.to_le_bytes());
            }
        } else {
            views.push((name, view));
        }
    }
    let shape = st.tensor("model.norm.weight").unwrap().shape().to_vec();
    views.push(("model.norm.weight".to_string(), TensorView::new(Dtype::F64, shape, &f64_data).unwrap()));
    let out = dir.path().join("model.safetensors.new");
    safetensors::serialize_to_file(views, None, &out).unwrap();
    drop(st);
    std::fs::rename(&out, &path).unwrap();
    let err = convert_fails(dir.path(), "bf16");
    assert!(matches!(&err, ConvertError::Dtype { tensor, .. } if tensor == "model.norm.weight"), "{err}");
}

#[test]
fn an_unknown_tokenizer() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("causal"), dir.path());
    edit_json(&dir.path().join("tokenizer.json"), |v| {
        v["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+|\\s+".into();
    });
    let err = convert_fails(dir.path(), "f16");
    assert!(matches!(&err, ConvertError::Tokenizer(m) if m.contains("unknown pre-tokenizer regex")), "{err}");
}

#[test]
fn the_cli_names_the_problem_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.gguf");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["convert", "--type", "q4_k_m", "-o"])
        .arg(&out)
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("is not a Hugging Face checkpoint folder"), "{stderr}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["convert", "--type", "q9_x", "-o"])
        .arg(&out)
        .arg(fixture("tied"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("q4_k_m"));
    assert!(!out.exists());
}
