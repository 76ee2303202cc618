//! GGUF v3: a streaming writer and a header reader, over one metadata value type.
//!
//! GGUF puts every tensor's name, shape, type and offset before the data, so [`write()`] takes a
//! plan (all tensor descriptions, computed up front from the checkpoint's headers), writes the
//! header, then asks for each tensor's bytes in order. Only one tensor is in memory at a time.
//! The file is written to a temporary file beside the destination and renamed into place when
//! complete: an interrupted or failed write leaves nothing behind.
//!
//! [`read_header`] is the matching reader: it reads and validates a GGUF file's header
//! (metadata of every GGUF type, tensor descriptions) with the checks llama.cpp makes, without
//! reading the tensor data, so a runtime can refuse a damaged file with a clear message before
//! handing it to llama.cpp, and read metadata (vocabularies, hyperparameters) from it.
//!
//! The modules: `value` (the metadata [`Value`], written and read alike), `types` (ggml's
//! tensor types), `write` (the writer), `read` (the reader).

mod read;
mod types;
mod value;
mod write;

pub use read::{read_header, read_header_from, GgufHeader, ReadError, TensorHeader};
pub use types::{type_layout, GgmlType, TypeLayout};
pub use value::{Array, Value};
pub use write::{write, TensorInfo, WriteError};

/// Alignment of the data section and of each tensor (GGUF's default).
pub const ALIGNMENT: u64 = 32;
/// Longest tensor name plus one (ggml's `GGML_MAX_NAME`): names must be shorter.
pub const MAX_NAME: usize = 64;
/// Most dimensions a tensor may have (ggml's `GGML_MAX_DIMS`).
pub const MAX_DIMS: usize = 4;
/// The metadata key that overrides [`ALIGNMENT`] (a `u32`, a power of two).
pub const ALIGNMENT_KEY: &str = "general.alignment";
