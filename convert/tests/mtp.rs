//! The multi-token-prediction head: kept tensor by tensor as llama.cpp's converter maps it,
//! dropped byte for byte as before, grafted from a checkpoint or a GGUF, and refused with a clear
//! error (and nothing written) when the source does not fit.
//!
//! The expected mapping is written out here as a table, independently of `qwen35.rs`, and the
//! expected values are computed from the safetensors files directly.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;
use sha2::{Digest, Sha256};
use sqale_convert::gguf::{self, Array, GgufHeader, Value};
use sqale_convert::{ConvertError, ConvertOptions, Graft, IfPresent, Mtp};

/// The headless copy the runtime crate's tests use too.
#[path = "../../tests/support/headless.rs"]
mod headless;
use headless::headless_copy;

fn fixture(variant: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qwen35-tiny").join(variant)
}

/// HF name → (GGUF name, RMSNorm: +1 and F32 whatever the output type).
const HEAD: &[(&str, &str, bool)] = &[
    ("mtp.fc.weight", "blk.4.nextn.eh_proj.weight", false),
    ("mtp.pre_fc_norm_embedding.weight", "blk.4.nextn.enorm.weight", true),
    ("mtp.pre_fc_norm_hidden.weight", "blk.4.nextn.hnorm.weight", true),
    ("mtp.norm.weight", "blk.4.nextn.shared_head_norm.weight", true),
    ("mtp.layers.0.input_layernorm.weight", "blk.4.attn_norm.weight", true),
    ("mtp.layers.0.post_attention_layernorm.weight", "blk.4.post_attention_norm.weight", true),
    ("mtp.layers.0.self_attn.q_proj.weight", "blk.4.attn_q.weight", false),
    ("mtp.layers.0.self_attn.k_proj.weight", "blk.4.attn_k.weight", false),
    ("mtp.layers.0.self_attn.v_proj.weight", "blk.4.attn_v.weight", false),
    ("mtp.layers.0.self_attn.o_proj.weight", "blk.4.attn_output.weight", false),
    ("mtp.layers.0.self_attn.q_norm.weight", "blk.4.attn_q_norm.weight", true),
    ("mtp.layers.0.self_attn.k_norm.weight", "blk.4.attn_k_norm.weight", true),
    ("mtp.layers.0.mlp.gate_proj.weight", "blk.4.ffn_gate.weight", false),
    ("mtp.layers.0.mlp.up_proj.weight", "blk.4.ffn_up.weight", false),
    ("mtp.layers.0.mlp.down_proj.weight", "blk.4.ffn_down.weight", false),
];

fn opts(ty: &str, mtp: Mtp) -> ConvertOptions {
    ConvertOptions { out_type: ty.parse().unwrap(), threads: Some(2), mtp, ..Default::default() }
}

fn convert(ck: &Path, out: &Path, ty: &str, mtp: Mtp) -> sqale_convert::Report {
    sqale_convert::convert(ck, out, &opts(ty, mtp), &mut |_| {}).unwrap()
}

fn graft(from: &Path, if_present: IfPresent) -> Mtp {
    Mtp::Graft(Graft { from: from.to_path_buf(), if_present })
}

/// Every tensor of a checkpoint folder: name → (dtype, shape, bytes).
fn checkpoint_tensors(dir: &Path) -> HashMap<String, (Dtype, Vec<usize>, Vec<u8>)> {
    let mut out = HashMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "safetensors") {
            let bytes = std::fs::read(&p).unwrap();
            let st = SafeTensors::deserialize(&bytes).unwrap();
            for (name, v) in st.tensors() {
                out.insert(name, (v.dtype(), v.shape().to_vec(), v.data().to_vec()));
            }
        }
    }
    out
}

fn values(dtype: Dtype, bytes: &[u8]) -> Vec<f32> {
    match dtype {
        Dtype::BF16 => bytes.chunks_exact(2).map(|b| bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
        Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        other => panic!("fixture dtype {other:?}"),
    }
}

/// Tensors by name: (ggml type, ne, data bytes).
type Tensors = BTreeMap<String, (u32, Vec<u64>, Vec<u8>)>;

/// A GGUF's header and each tensor's data bytes.
fn read_gguf(path: &Path) -> (GgufHeader, Tensors) {
    let h = gguf::read_header(path).unwrap();
    let file = std::fs::read(path).unwrap();
    let data = h
        .tensors
        .iter()
        .map(|t| {
            let start = (h.data_offset + t.offset) as usize;
            (t.name.clone(), (t.ty, t.ne.clone(), file[start..start + t.size as usize].to_vec()))
        })
        .collect();
    (h, data)
}

fn u(h: &GgufHeader, key: &str) -> Option<u64> {
    h.get(key).and_then(Value::as_u64)
}

fn head_of(data: &Tensors) -> Tensors {
    data.iter().filter(|(k, _)| k.starts_with("blk.4.")).map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn sha256(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap()).iter().map(|b| format!("{b:02x}")).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn the_head_is_kept_tensor_by_tensor_as_llama_cpp_maps_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = checkpoint_tensors(&fixture("tied"));
    for ty in ["f32", "f16"] {
        let out = dir.path().join(format!("tied-{ty}.gguf"));
        let report = convert(&fixture("tied"), &out, ty, Mtp::Keep);
        assert_eq!(report.mtp_tensors, HEAD.len());
        assert_eq!(report.mtp_source, None);
        assert_eq!(report.dropped, 36 - HEAD.len(), "only the vision tower is dropped");
        let (_, data) = read_gguf(&out);
        let head = head_of(&data);
        let names: Vec<&str> = head.keys().map(String::as_str).collect();
        let mut expected: Vec<&str> = HEAD.iter().map(|t| t.1).collect();
        expected.sort();
        assert_eq!(names, expected, "{ty}: exactly the head's tensors in block 4");
        for &(hf, name, norm) in HEAD {
            let (dtype, shape, bytes) = &src[hf];
            let (gty, ne, gbytes) = &head[name];
            let ne_expected: Vec<u64> = shape.iter().rev().map(|&d| d as u64).collect();
            assert_eq!(ne, &ne_expected, "{name}: shape");
            let want: Vec<f32> = values(*dtype, bytes).into_iter().map(|x| if norm { x + 1.0 } else { x }).collect();
            let got: Vec<f32> = if norm || ty == "f32" {
                assert_eq!(*gty, 0, "{ty} {name}: F32");
                values(Dtype::F32, gbytes)
            } else {
                assert_eq!(*gty, 1, "{ty} {name}: F16");
                gbytes.chunks_exact(2).map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32()).collect()
            };
            let want: Vec<f32> =
                if norm || ty == "f32" { want } else { want.iter().map(|&x| f16::from_f32(x).to_f32()).collect() };
            assert_eq!(got, want, "{ty} {name}: values");
        }
    }
}

#[test]
fn the_metadata_counts_the_head_block_and_the_trunk_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let (with, without) = (dir.path().join("with.gguf"), dir.path().join("without.gguf"));
    convert(&fixture("untied"), &with, "f32", Mtp::Keep);
    convert(&fixture("untied"), &without, "f32", Mtp::Drop);
    let (hw, dw) = read_gguf(&with);
    let (ho, d_o) = read_gguf(&without);
    assert_eq!(u(&hw, "qwen35.block_count"), Some(5));
    assert_eq!(u(&hw, "qwen35.nextn_predict_layers"), Some(1));
    assert_eq!(u(&hw, "qwen35.full_attention_interval"), Some(4), "the trunk's interval");
    let recurrent = |h: &GgufHeader| match h.get("qwen35.attention.recurrent_layers") {
        Some(Value::Array(Array::Bool(b))) => b.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(recurrent(&hw), [true, true, true, false, false], "one entry per block; the head's is not recurrent");
    assert_eq!(u(&ho, "qwen35.block_count"), Some(4));
    assert_eq!(u(&ho, "qwen35.nextn_predict_layers"), None);
    assert_eq!(recurrent(&ho), [true, true, true, false]);
    // Every trunk tensor is the same with or without the head.
    let trunk: BTreeMap<_, _> = dw.into_iter().filter(|(k, _)| !k.starts_with("blk.4.")).collect();
    assert_eq!(trunk, d_o);
}

#[test]
fn no_mtp_is_byte_identical_to_the_converter_before_heads() {
    // SHA-256 of what the converter wrote before it kept heads (main at 12b815b, `sqale convert`
    // of the fixture folders; general.name is the folder's name, so the paths do not matter).
    let dir = tempfile::tempdir().unwrap();
    for (variant, ty, sha) in [
        ("tied", "f32", "1e5a117b1d45ab694df7cfbd84c27beb910890eb68aca5d6110fec2c8e932449"),
        ("untied", "f16", "baff65744b8f414fd931107adb77cfc36e57e08e20d24f03f16debcfb2765a51"),
        ("untied", "q8_0", "c68d00f35a020e7dc537449ab27e7d915f5586082fe7a71963008b32d7d67417"),
        ("causal", "bf16", "a028a260fe7a7d6fc8fc898a01122fa181fdc1882a8f9d904be9d82b84e4655f"),
    ] {
        let out = dir.path().join(format!("{variant}-{ty}.gguf"));
        let report = convert(&fixture(variant), &out, ty, Mtp::Drop);
        assert_eq!(report.mtp_tensors, 0);
        assert_eq!(sha256(&out), sha, "{variant} {ty} --no-mtp");
    }
    // causal/ has no head: keeping it changes nothing there.
    let out = dir.path().join("causal-keep.gguf");
    assert_eq!(convert(&fixture("causal"), &out, "bf16", Mtp::Keep).mtp_tensors, 0);
    assert_eq!(sha256(&out), "a028a260fe7a7d6fc8fc898a01122fa181fdc1882a8f9d904be9d82b84e4655f");
}

#[test]
fn a_grafted_head_equals_the_converted_head_of_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let headless = dir.path().join("untied-headless");
    headless_copy(&fixture("untied"), &headless);
    let tied_f32 = dir.path().join("tied.gguf");
    convert(&fixture("tied"), &tied_f32, "f32", Mtp::Keep);
    let (_, tied) = read_gguf(&tied_f32);

    // Without a head and without a graft: no head.
    let plain = dir.path().join("plain.gguf");
    assert_eq!(convert(&headless, &plain, "f32", Mtp::Keep).mtp_tensors, 0);
    let (_, plain) = read_gguf(&plain);

    // From the checkpoint folder.
    let out = dir.path().join("from-ck.gguf");
    let report = convert(&headless, &out, "f32", graft(&fixture("tied"), IfPresent::Refuse));
    assert_eq!((report.mtp_tensors, report.mtp_source.as_deref()), (HEAD.len(), Some(fixture("tied").as_path())));
    let (h, data) = read_gguf(&out);
    assert_eq!(u(&h, "qwen35.block_count"), Some(5));
    assert_eq!(head_of(&data), head_of(&tied), "the same head tensors as converting tied/");
    let trunk: BTreeMap<_, _> = data.into_iter().filter(|(k, _)| !k.starts_with("blk.4.")).collect();
    assert_eq!(trunk, plain, "the trunk is untied/'s");

    // From the converted GGUF: f32 copies exactly.
    let out = dir.path().join("from-gguf.gguf");
    let report = convert(&headless, &out, "f32", graft(&tied_f32, IfPresent::Refuse));
    assert_eq!(report.mtp_source.as_deref(), Some(tied_f32.as_path()));
    assert_eq!(head_of(&read_gguf(&out).1), head_of(&tied));

    // From a q8_0 GGUF: dequantised, written in the output's types, close to the original.
    let tied_q8 = dir.path().join("tied-q8.gguf");
    convert(&fixture("tied"), &tied_q8, "q8_0", Mtp::Keep);
    let out = dir.path().join("from-q8.gguf");
    convert(&headless, &out, "f32", graft(&tied_q8, IfPresent::Refuse));
    let (got, want) = (head_of(&read_gguf(&out).1), head_of(&tied));
    for (name, (ty, ne, bytes)) in &got {
        assert_eq!((ty, ne), (&want[name].0, &want[name].1), "{name}");
        let (a, b) = (values(Dtype::F32, bytes), values(Dtype::F32, &want[name].2));
        let max = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        let scale = b.iter().map(|x| x.abs()).fold(0f32, f32::max);
        assert!(max <= scale / 100.0, "{name}: max difference {max} of {scale}");
    }
}

#[test]
fn a_quantised_output_keeps_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q.gguf");
    convert(&fixture("tied"), &out, "q4_k_m", Mtp::Keep);
    let (h, data) = read_gguf(&out);
    assert_eq!(u(&h, "qwen35.nextn_predict_layers"), Some(1));
    assert_eq!(head_of(&data).len(), HEAD.len());
    for &(_, name, norm) in HEAD {
        if norm {
            assert_eq!(data[name].0, 0, "{name} stays F32");
        }
    }
    assert_ne!(data["blk.4.ffn_up.weight"].0, 30, "the head's matrices are quantised too");
}

/// Converts, expecting an error, and checks that nothing was written.
fn fails(ck: &Path, mtp: Mtp) -> ConvertError {
    let dir = tempfile::tempdir().unwrap();
    let err = sqale_convert::convert(ck, &dir.path().join("out.gguf"), &opts("f32", mtp), &mut |_| {})
        .expect_err("must fail");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written for: {err}");
    err
}

fn edit_json(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, v.to_string()).unwrap();
}

#[test]
fn a_head_that_does_not_fit_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let headless = dir.path().join("headless");
    headless_copy(&fixture("untied"), &headless);

    // The checkpoint has its own head: refused unless replacing.
    let err = fails(&fixture("tied"), graft(&fixture("untied"), IfPresent::Refuse));
    assert!(matches!(err, ConvertError::GraftOntoOwnHead { .. }), "{err}");
    assert!(err.to_string().contains("already has its own MTP head") && err.to_string().contains("replace it"));
    let out = dir.path().join("replaced.gguf");
    let report = convert(&fixture("tied"), &out, "f32", graft(&fixture("untied"), IfPresent::Replace));
    assert_eq!(report.mtp_source.as_deref(), Some(fixture("untied").as_path()));
    let untied = dir.path().join("untied.gguf");
    convert(&fixture("untied"), &untied, "f32", Mtp::Keep);
    assert_eq!(head_of(&read_gguf(&out).1), head_of(&read_gguf(&untied).1), "untied/'s head");

    // A head of the wrong shape (mtp.fc as [64, 64]), in the checkpoint and as a graft source.
    let bad = dir.path().join("bad-shape");
    copy_dir(&fixture("tied"), &bad);
    let shard = bad.join("model-00002-of-00002.safetensors");
    let bytes = std::fs::read(&shard).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let half_fc = st.tensor("mtp.fc.weight").unwrap().data()[..64 * 64 * 2].to_vec();
    let mut views: Vec<(String, TensorView)> = st.tensors().into_iter().filter(|(n, _)| n != "mtp.fc.weight").collect();
    views.push(("mtp.fc.weight".into(), TensorView::new(Dtype::BF16, vec![64, 64], &half_fc).unwrap()));
    let tmp = bad.join("new.tmp");
    safetensors::serialize_to_file(views, None, &tmp).unwrap();
    std::fs::rename(&tmp, &shard).unwrap();
    let err = fails(&bad, Mtp::Keep);
    assert!(matches!(&err, ConvertError::Shape { tensor, .. } if tensor == "mtp.fc.weight"), "{err}");
    assert!(convert(&bad, &dir.path().join("ok.gguf"), "f32", Mtp::Drop).mtp_tensors == 0, "--no-mtp still works");
    let err = fails(&headless, graft(&bad, IfPresent::Refuse));
    assert!(err.to_string().contains("mtp.fc.weight") && err.to_string().contains(&*bad.to_string_lossy()), "{err}");

    // A head of two blocks (llama.cpp reads one): refused, unless left out.
    let deep = dir.path().join("two-blocks");
    copy_dir(&fixture("tied"), &deep);
    edit_json(&deep.join("config.json"), |v| v["text_config"]["mtp_num_hidden_layers"] = 2.into());
    let err = fails(&deep, Mtp::Keep);
    assert!(matches!(err, ConvertError::MtpBlocks { blocks: 2 }), "{err}");
    assert!(convert(&deep, &dir.path().join("deep.gguf"), "f32", Mtp::Drop).mtp_tensors == 0);

    // Another architecture.
    let other = dir.path().join("llama");
    copy_dir(&fixture("tied"), &other);
    edit_json(&other.join("config.json"), |v| v["architectures"] = serde_json::json!(["LlamaForCausalLM"]));
    let err = fails(&headless, graft(&other, IfPresent::Refuse));
    let msg = err.to_string();
    assert!(msg.contains("LlamaForCausalLM") && msg.contains(&*other.to_string_lossy()), "{msg}");
    assert!(msg.contains(&*headless.to_string_lossy()), "names the trunk too: {msg}");

    // Other dimensions.
    let wide = dir.path().join("wide");
    copy_dir(&fixture("tied"), &wide);
    edit_json(&wide.join("config.json"), |v| v["text_config"]["intermediate_size"] = 256.into());
    let err = fails(&headless, graft(&wide, IfPresent::Refuse));
    assert!(err.to_string().contains("dimensions differ"), "{err}");

    // Another vocabulary: one token renamed.
    let vocab = dir.path().join("vocab");
    copy_dir(&fixture("tied"), &vocab);
    edit_json(&vocab.join("tokenizer.json"), |v| {
        let map = v["model"]["vocab"].as_object_mut().unwrap();
        let id = map.remove("SELECT").unwrap();
        map.insert("SELECTED".into(), id);
    });
    let err = fails(&headless, graft(&vocab, IfPresent::Refuse));
    assert!(err.to_string().contains("vocabularies differ") && err.to_string().contains("SELECT"), "{err}");

    // A source checkpoint without a head; a GGUF without a head; a file that is not GGUF.
    let err = fails(&headless, graft(&fixture("causal"), IfPresent::Refuse));
    assert!(err.to_string().contains("has no MTP head"), "{err}");
    let no_head = dir.path().join("no-head.gguf");
    convert(&fixture("tied"), &no_head, "f32", Mtp::Drop);
    let err = fails(&headless, graft(&no_head, IfPresent::Refuse));
    assert!(matches!(err, ConvertError::GraftFromHeadlessGguf { .. }), "{err}");
    assert!(err.to_string().contains("no MTP head") && err.to_string().contains("no-head.gguf"), "{err}");
    let err = fails(&headless, graft(&fixture("tied").join("config.json"), IfPresent::Refuse));
    assert!(err.to_string().contains("not a valid GGUF"), "{err}");
    let err = fails(&headless, graft(&dir.path().join("nope"), IfPresent::Refuse));
    assert!(err.to_string().contains("no such file"), "{err}");
}

#[test]
fn the_synthetic_checkpoint_has_a_head_unless_asked_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let mut preset = sqale_convert::synth::Preset::tiny();
    for mtp in [true, false] {
        preset.mtp = mtp;
        let ck = dir.path().join(format!("synth-{mtp}"));
        sqale_convert::synth::write_checkpoint(&ck, &preset, &fixture("tied"), 1 << 20, 7, &mut |_, _| {}).unwrap();
        let out = dir.path().join(format!("synth-{mtp}.gguf"));
        let report = convert(&ck, &out, "f16", Mtp::Keep);
        assert_eq!(report.mtp_tensors, if mtp { HEAD.len() } else { 0 });
        assert_eq!(report.dropped, 0);
        let (h, data) = read_gguf(&out);
        assert_eq!(u(&h, "qwen35.block_count"), Some(if mtp { 5 } else { 4 }));
        assert_eq!(head_of(&data).len(), report.mtp_tensors);
    }
}
