//! The defaults every command and library type starts from, each named once.
//!
//! The episode budget, context and sampling values are the SQaLe models' own (`PROTOCOL.md`:
//! the checkpoints' `generation_config.json`, the training environment's budget). The library's
//! `Default` impls and the command line's `default_value_t` both read these constants, so
//! changing one changes both.

/// Tokens an episode may hold, system prompt included.
pub const MAX_EPISODE_TOKENS: usize = 12_288;

/// The context window, in tokens.
pub const CONTEXT_TOKENS: u32 = 16_384;

/// Tokens decoded per batch during prefill.
pub const BATCH_TOKENS: u32 = 512;

/// Seconds one SQL statement may run before SQLite is interrupted.
pub const SQL_TIMEOUT_SECONDS: f64 = 5.0;

/// Sampling temperature.
pub const TEMPERATURE: f32 = 0.6;

/// Nucleus (top-p) threshold.
pub const TOP_P: f32 = 0.95;

/// Top-k cut-off.
pub const TOP_K: i32 = 20;

/// Characters of thought a turn under `--calls constrained` may hold before the grammar makes it
/// close the thought and call (about 250 tokens of English).
pub const THOUGHT_CHARS: usize = 1_000;

/// Tool turns an episode may take before the final answer.
pub const TOOL_TURNS: usize = 6;

/// Consecutive failed `run_query` calls that end exploration early.
pub const MAX_FAILED_QUERIES_IN_A_ROW: usize = 4;

/// Longest draft a verify step checks on a model without recurrent state: as long as
/// llama.cpp's `ngram-mod` drafts, for the verbatim repeats (loops, copied passages) whose
/// drafts are nearly all kept. Other drafts stop at 8 (`engine::draft`), and the planner picks
/// shorter ones from the verify cost it measures as it runs.
pub const MAX_DRAFT_TOKENS: usize = 64;

/// Longest draft a verify step checks on a model with recurrent state (Qwen3.5's hybrid
/// layers): llama.cpp keeps a snapshot of that state per token a draft may roll back (18 MB a
/// token for the 2B), and beyond 8 a draft must be nearly all kept to pay on two x86 cores (a
/// batch of 8 rows costs 4.1 to 4.3 single steps for the models here).
pub const MAX_RECURRENT_DRAFT_TOKENS: usize = 8;

/// Reference log-probabilities kept per generated token for `eval --reference` (32 hold nearly
/// all of a trained model's mass at temperature-1 logits; the KLD is a lower bound over them).
pub const KLD_TOP_K: u32 = 32;
