//! Tokenising the turns sqale appends: by the server's own `/tokenize`, or on the client with a
//! `tokenizer.json` (the `tokenizers` crate), which the pool checks once against the server.

use std::path::{Path, PathBuf};

/// Where text becomes token ids.
#[derive(Debug)]
pub enum Tokenizer {
    /// The server's `/tokenize` (nothing local needed).
    Server,
    /// A local `tokenizer.json`.
    Local(Box<LocalTokenizer>),
}

impl Tokenizer {
    /// A local tokenizer from `spec`: a `tokenizer.json` file, or a Hugging Face repo id whose
    /// `tokenizer.json` is in the local Hugging Face cache (as `sqale pull` leaves it).
    pub fn local(spec: &Path) -> Result<Self, String> {
        let path = if spec.exists() {
            spec.to_path_buf()
        } else {
            let repo = spec.to_string_lossy().into_owned();
            hf_hub::Cache::from_env().model(repo.clone()).get("tokenizer.json").ok_or_else(|| {
                format!(
                    "{}: no such file, and no tokenizer.json for a repo {repo:?} in the Hugging Face cache \
                     (give a tokenizer.json path, or pull the model into the cache first)",
                    spec.display()
                )
            })?
        };
        let bytes = crate::regular_file::read_at_most(&path, crate::regular_file::MAX_CONFIG_BYTES)
            .map_err(|e| format!("cannot read the tokenizer: {e}"))?;
        let inner = tokenizers::Tokenizer::from_bytes(&bytes)
            .map_err(|e| format!("{}: not a tokenizer.json the tokenizers crate reads: {e}", path.display()))?;
        let mut plain = inner.clone();
        plain.set_encode_special_tokens(true);
        let mut specials: Vec<String> =
            inner.get_added_tokens_decoder().into_values().filter(|t| t.special).map(|t| t.content).collect();
        specials.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Ok(Tokenizer::Local(Box::new(LocalTokenizer { path, inner, plain, specials })))
    }
}

/// A `tokenizer.json` loaded with the `tokenizers` crate.
pub struct LocalTokenizer {
    path: PathBuf,
    inner: tokenizers::Tokenizer,
    /// The same tokenizer with its special tokens read as plain text.
    plain: tokenizers::Tokenizer,
    /// The texts of its special tokens, longest first.
    specials: Vec<String>,
}

impl std::fmt::Debug for LocalTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTokenizer").field("path", &self.path).finish()
    }
}

impl LocalTokenizer {
    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The texts of its special tokens (added tokens marked special), longest first.
    pub fn specials(&self) -> &[String] {
        &self.specials
    }

    /// Token ids of `text`; with `parse_special`, special tokens (`<|im_start|>` …) in the text
    /// are matched as such, without it they are plain text; the post-processor's BOS/EOS are
    /// added only with `add_special`.
    pub fn encode(&self, text: &str, add_special: bool, parse_special: bool) -> Result<Vec<u32>, String> {
        let t = if parse_special { &self.inner } else { &self.plain };
        t.encode(text, add_special)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| format!("tokenising with {}: {e}", self.path.display()))
    }
}
