//! A checkpoint without its MTP head, as transformers' `save_pretrained` writes a fine-tune.

use std::path::Path;

use safetensors::tensor::TensorView;
use safetensors::SafeTensors;

/// Copies the checkpoint folder `from` to `to` without its `mtp.*` tensors (shards and index
/// rewritten).
pub fn headless_copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_owned();
        if p.extension().is_some_and(|x| x == "safetensors") {
            let bytes = std::fs::read(&p).unwrap();
            let st = SafeTensors::deserialize(&bytes).unwrap();
            let views: Vec<(String, TensorView)> =
                st.tensors().into_iter().filter(|(n, _)| !n.starts_with("mtp.")).collect();
            safetensors::serialize_to_file(views, None, &to.join(&name)).unwrap();
        } else if name == "model.safetensors.index.json" {
            let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v["weight_map"].as_object_mut().unwrap().retain(|k, _| !k.starts_with("mtp."));
            std::fs::write(to.join(&name), v.to_string()).unwrap();
        } else {
            std::fs::copy(&p, to.join(&name)).unwrap();
        }
    }
}
