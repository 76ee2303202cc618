//! The flags of `sqale eval`, `eval score` and `eval merge`, and the study spec they make.

use std::path::PathBuf;

use clap::Args;
use sqale::eval::parquet_pair::Phrasing;
use sqale::eval::study::{Reference, Servers};
use sqale::eval::subset::SchemaCondition;
use sqale::eval::RunSpec;
use sqale::protocol::Calls;

/// Arguments of `sqale eval merge`.
#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// Results folders to join.
    #[arg(required = true)]
    pub(super) inputs: Vec<PathBuf>,
    /// Output folder.
    #[arg(long, short = 'o')]
    pub(super) out: PathBuf,
    /// Where two folders hold the same model played otherwise (another file, other settings),
    /// keep both as separate entries (the later one marked with what differs) instead of
    /// refusing.
    #[arg(long)]
    pub(super) keep_both: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(super) json: bool,
}

/// Arguments of `sqale eval compare`.
#[derive(Args, Debug)]
pub(super) struct CompareArgs {
    /// The results folder.
    pub(super) dir: PathBuf,
    /// The model compared against (its label in the reports).
    pub(super) a: String,
    /// The model compared.
    pub(super) b: String,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub(super) json: bool,
}

/// Arguments of a `sqale eval` run (the study).
#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// Benchmark: a JSONL manifest (`id, db, question, evidence?, gold_sql, difficulty?`), a
    /// BIRD folder (dev.json + dev_databases/), an EHRSQL-style .json file, or `sqale` /
    /// `sqale:QUERIES,SCHEMAS` (Hugging Face dataset ids or local parquet files/folders; the
    /// databases are built once into the cache).
    #[arg(long)]
    pub(super) bench: Option<String>,
    /// SQaLe: which of the eight phrasings to ask, by number (1-8) or style name.
    #[arg(long, default_value = "1")]
    pub(super) phrasing: Phrasing,
    /// GGUF models to evaluate (repeat for several).
    #[arg(long = "model", short = 'm')]
    pub(super) models: Vec<PathBuf>,
    /// A full-precision reference (bf16/f16/f32 GGUF): it plays each episode first, and every
    /// `--model` is then teacher-forced along the reference's exact token sequence and its
    /// distributions compared with the reference's at every generated token (KL divergence,
    /// top-1 agreement; docs/evaluation.md, "Divergence from a reference").
    #[arg(long)]
    pub(super) reference: Option<PathBuf>,
    /// The reference on inference servers instead (vLLM, for its `prompt_logprobs`; repeatable):
    /// e.g. bf16 on a GPU server against quantised files here. `--server-api-key-file`,
    /// `--server-kind` and `--server-timeout` apply to them too.
    #[arg(long = "reference-server", conflicts_with = "reference")]
    pub(super) reference_servers: Vec<String>,
    /// Reference log-probabilities kept per generated token (the KLD is exact over them plus one
    /// bucket for the rest of the vocabulary, a lower bound of the full figure).
    #[arg(long, default_value_t = sqale::defaults::KLD_TOP_K, value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) kld_top_k: u32,
    /// With `--reference`: measure the models' divergence only, without playing their own
    /// episodes (no EX of theirs).
    #[arg(long)]
    pub(super) kld_only: bool,
    /// Also (or only) evaluate the model served by these inference servers (`--server URL`,
    /// repeatable): one more model in the report, side by side with the local ones.
    #[command(flatten)]
    pub(super) server: crate::cli::ServerArgs,
    #[command(flatten)]
    pub(crate) engine: crate::cli::EngineArgs,
    /// First N questions only.
    #[arg(long)]
    pub(super) limit: Option<usize>,
    /// Run only shard i of n (`2/4`): every n-th question, for splitting a benchmark across
    /// machines; join the folders with `sqale eval merge`.
    #[arg(long, value_parser = parse_shard)]
    pub(super) shard: Option<(usize, usize)>,
    /// Results folder (resumed if it exists).
    #[arg(long, short = 'o', default_value = "sqale-eval")]
    pub(super) out: PathBuf,
    /// Run seed (each episode's seed derives from it and the question id).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u32,
    /// Tokens an episode may hold, its prompt included: the system turn (tools and their docs),
    /// the schema and the question take several hundred before the model writes a token (about
    /// 535 for SmolLM2 on the demo database), and the turns and tool results get the rest. eval
    /// warns when the prompt takes more than half.
    #[arg(long, default_value_t = sqale::defaults::MAX_EPISODE_TOKENS)]
    pub(super) max_episode_tokens: usize,
    /// Schema size: the whole database (`full`), only the gold query's tables (`gold`), or
    /// those grown along foreign keys by N more (`distractors:N`). Cut databases are copies,
    /// cached in the results folder; the benchmark's files are never written.
    #[arg(long, default_value = "full")]
    pub(super) schema: SchemaCondition,
    /// How tool calls are written (repeat, or separate by commas, for several conditions in one
    /// run: `--calls free,constrained`): each model plays under each, as entries of their own in
    /// the report (`model.gguf +constrained`), paired; a reference plays under the first. See
    /// docs/constrained-calls.md.
    #[arg(long, value_delimiter = ',', default_value = "free")]
    pub(super) calls: Vec<Calls>,
    /// With `--calls constrained`: characters of thought a turn may hold before the grammar
    /// makes it close the thought and call.
    #[arg(long, default_value_t = sqale::defaults::THOUGHT_CHARS as u32, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub(super) max_thought_chars: u32,
    /// Play each question as a vote of K sampled episodes, batched in one context (K times
    /// --parallel sequences): the vote is an entry of its own (`model.gguf +vote5`), paired with
    /// the first episode alone (the plain entry), from the same run. Local models only.
    #[arg(long, value_name = "K")]
    pub(super) vote: Option<usize>,
    /// Episodes run at once, as sequences of one llama.cpp context decoded in shared batches
    /// (results do not depend on it on sqale's CPU build; on K-quant files with --exact only; see
    /// docs/evaluation.md, "Many episodes at once").
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(super) parallel: u32,
    /// Seconds a statement may run.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    pub(super) sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(super) json: bool,
}

/// Arguments of `sqale eval score`.
#[derive(Args, Debug)]
pub(super) struct ScoreArgs {
    /// Benchmark, as for `sqale eval --bench`.
    #[arg(long)]
    pub(super) bench: String,
    /// SQaLe: which phrasing the predictions answered.
    #[arg(long, default_value = "1")]
    pub(super) phrasing: Phrasing,
    /// Predictions, one `{"id": ..., "sql": ...}` per line.
    #[arg(long)]
    pub(super) predictions: PathBuf,
    /// Label for the predictions in the report.
    #[arg(long, default_value = "predictions")]
    pub(super) label: String,
    /// Results folder (new: one that holds results is refused without --replace).
    #[arg(long, short = 'o', default_value = "sqale-eval-score")]
    pub(super) out: PathBuf,
    /// Replace the results the folder holds (its episodes.jsonl) with these predictions' scores.
    #[arg(long)]
    pub(super) replace: bool,
    /// Seconds a statement may run.
    #[arg(long, default_value_t = sqale::defaults::SQL_TIMEOUT_SECONDS)]
    pub(super) sql_timeout: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(super) json: bool,
}

impl RunArgs {
    /// The library's spec of the study these flags ask for.
    pub(super) fn spec(&self) -> anyhow::Result<RunSpec> {
        let servers = |urls: &[String]| -> anyhow::Result<Servers> {
            Ok(Servers { urls: urls.to_vec(), options: self.server.pool_options()? })
        };
        let reference = match &self.reference {
            Some(path) => Some(Reference::File(path.clone())),
            None if !self.reference_servers.is_empty() => Some(Reference::Servers(servers(&self.reference_servers)?)),
            None => None,
        };
        Ok(RunSpec {
            models: self.models.clone(),
            model_options: self.engine.hardware.model_options(false),
            engine: self.engine.engine_options(),
            parallel: self.parallel,
            servers: if self.server.any() { Some(servers(&self.server.servers)?) } else { None },
            reference,
            kld_top_k: self.kld_top_k as usize,
            kld_only: self.kld_only,
            seed: self.seed,
            max_episode_tokens: self.max_episode_tokens,
            schema: self.schema,
            calls: dedup(&self.calls),
            thought_chars: self.max_thought_chars as usize,
            vote: self.vote,
            limits: crate::cli::limits(self.sql_timeout)?,
            out: self.out.clone(),
        })
    }
}

/// `calls` in order, each once.
fn dedup(calls: &[Calls]) -> Vec<Calls> {
    let mut out: Vec<Calls> = Vec::new();
    for &c in calls {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let err = || format!("--shard takes i/n with 1 <= i <= n, e.g. 2/4; got {s:?}");
    let (i, n) = s.split_once('/').ok_or_else(err)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| err())?, n.trim().parse().map_err(|_| err())?);
    if i == 0 || i > n {
        return Err(err());
    }
    Ok((i, n))
}
