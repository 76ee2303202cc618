//! The inference servers to run on instead of a model in-process (`--server` and the flags
//! around it), shared by `ask`, `eval`, `serve` and `mcp`.

use std::path::PathBuf;

use clap::Args;

/// `--server-kind`: a server API, or `auto` to probe for it.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
enum ServerKindArg {
    /// Probe each server for its API.
    #[default]
    Auto,
    /// vLLM's OpenAI-compatible server.
    Vllm,
    /// llama.cpp's llama-server.
    #[value(alias = "llamacpp", alias = "llama.cpp")]
    LlamaServer,
}

impl ServerKindArg {
    /// The library's kind; `None` for `auto`.
    fn kind(self) -> Option<sqale::remote::ServerKind> {
        match self {
            ServerKindArg::Auto => None,
            ServerKindArg::Vllm => Some(sqale::remote::ServerKind::Vllm),
            ServerKindArg::LlamaServer => Some(sqale::remote::ServerKind::LlamaServer),
        }
    }
}

/// An inference server group to run on instead of a model in-process (`ask`, `eval`, `serve`,
/// `mcp`).
#[derive(Args, Debug, Clone, Default)]
pub struct ServerArgs {
    /// An inference server serving the model (vLLM or llama-server), e.g.
    /// `http://127.0.0.1:8080`; repeat for several servers of one model.
    #[arg(long = "server")]
    pub(super) servers: Vec<String>,
    /// The servers' API (`auto`: probed).
    #[arg(long, value_enum, default_value_t)]
    server_kind: ServerKindArg,
    /// File holding the inference servers' API key, sent to them as a Bearer token (default:
    /// the SQALE_API_KEY environment variable). `sqale serve`'s own key is --api-key-file.
    #[arg(long)]
    server_api_key_file: Option<PathBuf>,
    /// Seconds to wait for one server response.
    #[arg(long, default_value_t = 600.0)]
    server_timeout: f64,
    /// Tokenise on the client with this tokenizer.json (or a Hugging Face repo id in the local
    /// cache), checked against the server's /tokenize; default: the server's /tokenize.
    #[arg(long)]
    tokenizer: Option<PathBuf>,
}

impl ServerArgs {
    /// Whether a server was given.
    pub(super) fn any(&self) -> bool {
        !self.servers.is_empty()
    }

    /// Probes the servers into a pool (progress on stderr unless `quiet`).
    pub(super) fn pool(&self, quiet: bool) -> anyhow::Result<sqale::remote::Pool> {
        let options = self.pool_options()?;
        if !quiet {
            eprintln!("probing {} server(s): {}", self.servers.len(), self.servers.join(", "));
        }
        Ok(sqale::remote::Pool::connect(&self.servers, options)?)
    }

    /// How to reach servers with these flags (of this group, or another, e.g. a remote
    /// reference's).
    pub(super) fn pool_options(&self) -> anyhow::Result<sqale::remote::PoolOptions> {
        use anyhow::Context as _;
        let kind = self.server_kind.kind();
        anyhow::ensure!(
            self.server_timeout.is_finite() && self.server_timeout > 0.0,
            "--server-timeout must be a positive number of seconds, got {}",
            self.server_timeout
        );
        let key =
            match &self.server_api_key_file {
                Some(f) => Some(sqale::secret::read_key_file(f).with_context(|| {
                    format!("reading the servers' API key from --server-api-key-file {}", f.display())
                })?),
                None => std::env::var("SQALE_API_KEY").ok().filter(|k| !k.is_empty()),
            };
        Ok(sqale::remote::PoolOptions {
            kind,
            key,
            timeout: std::time::Duration::from_secs_f64(self.server_timeout),
            tokenizer: self.tokenizer.clone(),
            on_event: Some(std::sync::Arc::new(|e: &sqale::remote::PoolEvent| {
                eprintln!("sqale: {}", sqale::printable::escape_controls(&e.to_string()))
            })),
            ..Default::default()
        })
    }
}
