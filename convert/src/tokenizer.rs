//! The tokenizer as GGUF metadata: a byte-level BPE vocabulary from `tokenizer.json`, its
//! merges, token types, special ids, chat template, and the pre-tokenizer type decided from the
//! tokenizer's own split regex.

use serde_json::Value;

use crate::checkpoint::Checkpoint;
use crate::gguf::{Array, Value as Gv};
use crate::ConvertError;

/// The Qwen3.5 pre-tokenizer regex as `tokenizer.json` stores it (letters and combining marks
/// together) → llama.cpp's `qwen35`.
pub const QWEN35_REGEX: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// The Qwen2/2.5/3 regex → llama.cpp's `qwen2`.
pub const QWEN2_REGEX: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

const NORMAL: i32 = 1;
const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;
const UNUSED: i32 = 5;

/// Finds the split regex of the pre-tokenizer (a `Split` alone or inside a `Sequence`).
fn split_regex(pre: &Value) -> Option<&str> {
    match pre.get("type").and_then(Value::as_str) {
        Some("Split") => pre.get("pattern").and_then(|p| p.get("Regex")).and_then(Value::as_str),
        Some("Sequence") => pre.get("pretokenizers").and_then(Value::as_array)?.iter().find_map(split_regex),
        _ => None,
    }
}

/// llama.cpp's pre-tokenizer name for this tokenizer.
pub fn pre_tokenizer(tokenizer: &Value) -> Result<&'static str, ConvertError> {
    let regex = tokenizer.get("pre_tokenizer").and_then(split_regex);
    match regex {
        Some(QWEN35_REGEX) => Ok("qwen35"),
        Some(QWEN2_REGEX) => Ok("qwen2"),
        Some(other) => Err(ConvertError::Tokenizer(format!(
            "unknown pre-tokenizer regex {other:?}: sqale knows the Qwen3.5 (qwen35) and Qwen2/3 (qwen2) patterns only"
        ))),
        None => Err(ConvertError::Tokenizer(
            "tokenizer.json has no Split pre-tokenizer regex; sqale converts byte-level BPE tokenizers of the Qwen family only".into(),
        )),
    }
}

fn looks_special(content: &str) -> bool {
    (content.starts_with("<|") && content.ends_with("|>"))
        || (content.starts_with("<｜") && content.ends_with("｜>"))
        || content.starts_with("<unused")
        || matches!(content, "<pad>" | "<mask>" | "<unk>" | "<s>" | "</s>")
}

/// The tokenizer metadata for a vocabulary of `n_vocab` rows (the embedding's row count: ids
/// the tokenizer does not use are padded as `[PAD{id}]`).
pub fn metadata(ck: &Checkpoint, n_vocab: usize) -> Result<Vec<(String, Gv)>, ConvertError> {
    let tok = &ck.tokenizer;
    let model = tok.get("model").ok_or_else(|| ConvertError::Tokenizer("tokenizer.json has no model".into()))?;
    if model.get("type").and_then(Value::as_str) != Some("BPE") {
        return Err(ConvertError::Tokenizer(format!(
            "tokenizer model is {:?}, expected byte-level BPE",
            model.get("type")
        )));
    }
    let pre = pre_tokenizer(tok)?;
    let vocab = model
        .get("vocab")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError::Tokenizer("tokenizer.json model.vocab is missing".into()))?;
    let mut tokens: Vec<Option<String>> = vec![None; n_vocab];
    let mut types = vec![UNUSED; n_vocab];
    let mut place = |id: u64, text: &str, ty: i32| -> Result<(), ConvertError> {
        let slot = tokens.get_mut(id as usize).ok_or_else(|| {
            ConvertError::Tokenizer(format!("token {text:?} has id {id}, beyond the model's vocabulary of {n_vocab}"))
        })?;
        *slot = Some(text.to_string());
        types[id as usize] = ty;
        Ok(())
    };
    for (text, id) in vocab {
        let id = id.as_u64().ok_or_else(|| ConvertError::Tokenizer(format!("token {text:?} has a non-integer id")))?;
        place(id, text, NORMAL)?;
    }
    let added: Vec<&Value> =
        tok.get("added_tokens").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    for t in &added {
        let (Some(id), Some(content)) = (t.get("id").and_then(Value::as_u64), t.get("content").and_then(Value::as_str))
        else {
            continue;
        };
        let special = t.get("special").and_then(Value::as_bool).unwrap_or(false);
        place(id, content, if special || looks_special(content) { CONTROL } else { USER_DEFINED })?;
    }
    let tokens: Vec<String> =
        tokens.into_iter().enumerate().map(|(i, t)| t.unwrap_or_else(|| format!("[PAD{i}]"))).collect();

    let merges: Vec<String> = match model.get("merges").and_then(Value::as_array) {
        Some(m) => m
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                Value::Array(pair) if pair.len() == 2 => {
                    let part = |v: &Value| v.as_str().map(|s| s.replace(' ', "\u{0120}"));
                    match (part(&pair[0]), part(&pair[1])) {
                        (Some(a), Some(b)) => Ok(format!("{a} {b}")),
                        _ => Err(ConvertError::Tokenizer("a merge is not a pair of strings".into())),
                    }
                }
                _ => Err(ConvertError::Tokenizer("a merge is neither a string nor a pair".into())),
            })
            .collect::<Result<_, _>>()?,
        None => return Err(ConvertError::Tokenizer("tokenizer.json model.merges is missing".into())),
    };

    // Special ids: tokenizer_config's token strings matched to added tokens, then config ids.
    let id_of = |content: &str| {
        added
            .iter()
            .find(|t| t.get("content").and_then(Value::as_str) == Some(content))
            .and_then(|t| t.get("id").and_then(Value::as_u64))
    };
    let special = |typ: &str| -> Option<u64> {
        let from_tc =
            ck.tokenizer_config.as_ref().and_then(|tc| tc.get(format!("{typ}_token"))).and_then(|v| match v {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("content").and_then(Value::as_str),
                _ => None,
            });
        from_tc.and_then(id_of).or_else(|| ck.hparam(&format!("{typ}_token_id")).and_then(Value::as_u64))
    };
    let eos = special("eos").or_else(|| id_of("<|im_end|>")).ok_or_else(|| {
        ConvertError::Tokenizer(
            "no end-of-sequence token: tokenizer_config.json has no eos_token and there is no <|im_end|>".into(),
        )
    })?;
    let bos = special("bos").or_else(|| id_of("<|endoftext|>")).unwrap_or(eos);
    let pad = special("pad").or_else(|| id_of("<|endoftext|>")).unwrap_or(eos);
    let add_bos =
        ck.tokenizer_config.as_ref().and_then(|tc| tc.get("add_bos_token")).and_then(Value::as_bool).unwrap_or(false);

    let mut md = vec![
        ("tokenizer.ggml.model".to_string(), Gv::Str("gpt2".into())),
        ("tokenizer.ggml.pre".to_string(), Gv::Str(pre.into())),
        ("tokenizer.ggml.tokens".to_string(), Gv::Array(Array::Str(tokens))),
        ("tokenizer.ggml.token_type".to_string(), Gv::Array(Array::I32(types))),
        ("tokenizer.ggml.merges".to_string(), Gv::Array(Array::Str(merges))),
        ("tokenizer.ggml.bos_token_id".to_string(), Gv::U32(bos as u32)),
        ("tokenizer.ggml.eos_token_id".to_string(), Gv::U32(eos as u32)),
        ("tokenizer.ggml.padding_token_id".to_string(), Gv::U32(pad as u32)),
        ("tokenizer.ggml.add_bos_token".to_string(), Gv::Bool(add_bos)),
        ("tokenizer.ggml.add_eos_token".to_string(), Gv::Bool(false)),
    ];
    if let Some(eot) = id_of("<|im_end|>") {
        md.push(("tokenizer.ggml.eot_token_id".to_string(), Gv::U32(eot as u32)));
    }
    if let Some(t) = &ck.chat_template {
        md.push(("tokenizer.chat_template".to_string(), Gv::Str(t.clone())));
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pre_tokenizer_is_decided_by_the_regex() {
        let seq = |re: &str| {
            json!({"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": re}, "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}})
        };
        assert_eq!(pre_tokenizer(&seq(QWEN35_REGEX)).unwrap(), "qwen35");
        assert_eq!(pre_tokenizer(&seq(QWEN2_REGEX)).unwrap(), "qwen2");
        assert!(
            matches!(pre_tokenizer(&seq("\\w+")), Err(ConvertError::Tokenizer(m)) if m.contains("unknown pre-tokenizer"))
        );
        assert!(pre_tokenizer(&json!({"pre_tokenizer": {"type": "Whitespace"}})).is_err());
    }
}
