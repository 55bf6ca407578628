//! The command line: subcommands, the target every one of them takes, and how to connect.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  mcp inspect -- ./target/debug/gift_genius          a server over stdio
  mcp inspect http://127.0.0.1:8080/mcp              a server over Streamable HTTP
  mcp call suggest_gifts age=30 relationship=friend -- ./gift_genius
  mcp read http://127.0.0.1:8080/mcp gifts://catalog
  mcp doctor --json -- npx -y @modelcontextprotocol/server-everything
  mcp dev --manifest-path examples/gift_genius/Cargo.toml
  mcp new weather

Exit status: 0 success, 1 failure (a tool error, a doctor's error finding), 2 usage.";

/// Inspect, call and diagnose any MCP server; develop one with hot reload.
#[derive(Debug, Parser)]
#[command(name = "mcp", version, after_help = EXAMPLES, arg_required_else_help = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Shows the handshake step by step, the capabilities and what they allow, and every
    /// tool, resource, template and prompt.
    #[command(
        after_help = "Examples:\n  mcp inspect -- ./target/debug/gift_genius\n  mcp inspect --json http://127.0.0.1:8080/mcp"
    )]
    Inspect {
        /// `URL`, or nothing when `-- COMMAND` follows.
        #[arg(value_name = "URL")]
        positional: Vec<String>,
        #[command(flatten)]
        connect: Connect,
    },
    /// Calls a tool: arguments as one JSON object or as `key=value` pairs (a value is read as
    /// JSON when it is, and as the schema's type says).
    #[command(
        after_help = "Examples:\n  mcp call suggest_gifts age=30 relationship=friend -- ./gift_genius\n  mcp call http://127.0.0.1:8080/mcp suggest_gifts '{\"age\": 30, \"relationship\": \"friend\"}'"
    )]
    Call {
        /// `[URL] TOOL [JSON | KEY=VALUE ...]`.
        #[arg(value_name = "URL TOOL ARGS", required = true)]
        positional: Vec<String>,
        /// Saves the result's images and audio into this folder.
        #[arg(long, value_name = "DIR")]
        save_media: Option<PathBuf>,
        #[command(flatten)]
        ask: Asking,
        #[command(flatten)]
        connect: Connect,
    },
    /// Reads a resource.
    #[command(after_help = "Example:\n  mcp read gifts://catalog -- ./gift_genius")]
    Read {
        /// `[URL] URI`.
        #[arg(value_name = "URL URI", required = true)]
        positional: Vec<String>,
        /// Saves binary contents into this folder.
        #[arg(long, value_name = "DIR")]
        save_media: Option<PathBuf>,
        #[command(flatten)]
        connect: Connect,
    },
    /// Gets a prompt: arguments as one JSON object or as `key=value` pairs.
    #[command(after_help = "Example:\n  mcp get gift_card_message recipient=Ann occasion=birthday -- ./gift_genius")]
    Get {
        /// `[URL] PROMPT [JSON | KEY=VALUE ...]`.
        #[arg(value_name = "URL PROMPT ARGS", required = true)]
        positional: Vec<String>,
        #[command(flatten)]
        ask: Asking,
        #[command(flatten)]
        connect: Connect,
    },
    /// Asks the server to complete an argument of a prompt or a resource template.
    #[command(
        after_help = "Examples:\n  mcp complete prompt:gift_card_message occasion bir -- ./gift_genius\n  mcp complete 'resource:gifts://{category}' category bo -- ./gift_genius"
    )]
    Complete {
        /// `[URL] prompt:NAME|resource:TEMPLATE ARGUMENT VALUE`.
        #[arg(value_name = "URL REFERENCE ARGUMENT VALUE", required = true)]
        positional: Vec<String>,
        #[command(flatten)]
        connect: Connect,
    },
    /// Looks for the mistakes that break clients, in every revision the server speaks; exits
    /// 1 when one is an error.
    #[command(
        after_help = "Examples:\n  mcp doctor -- ./target/debug/gift_genius\n  mcp doctor --json http://127.0.0.1:8080/mcp"
    )]
    Doctor {
        /// `URL`, or nothing when `-- COMMAND` follows.
        #[arg(value_name = "URL")]
        positional: Vec<String>,
        /// Prints the checks (id, severity, what breaks) instead of examining a server.
        #[arg(long)]
        list_checks: bool,
        #[command(flatten)]
        connect: Connect,
    },
    /// Builds and runs the server of a crate, in front of it a proxy that keeps the client
    /// connected across rebuilds and tells it what changed.
    #[command(
        after_help = "Examples:\n  mcp dev                                   the crate in this directory, over stdio\n  mcp dev -p gift_genius --http 127.0.0.1:8080\n\nIn a desktop client's configuration:\n  {\"command\": \"mcp\", \"args\": [\"dev\", \"--manifest-path\", \"/path/to/Cargo.toml\"]}"
    )]
    Dev(DevArgs),
    /// Makes a new server crate: a tool, a resource, a prompt and a test.
    #[command(after_help = "Example:\n  mcp new weather && cd weather && cargo test")]
    New {
        /// The crate's name (and its folder's, unless `--path` says otherwise).
        name: String,
        /// Where to make it.
        #[arg(long)]
        path: Option<PathBuf>,
        /// Depend on `mcp-runtime` at this path instead of the registry's.
        #[arg(long, value_name = "DIR")]
        runtime_path: Option<PathBuf>,
        /// Prints what was made as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// How to connect: the target's command after `--`, the era, credentials, limits.
#[derive(Debug, Args)]
pub(crate) struct Connect {
    /// Which era to speak: `auto` (ask `server/discover`, fall back to `initialize`),
    /// `handshake`, `2026-07-28`, or one handshake revision such as `2025-06-18`.
    #[arg(long, default_value = "auto", value_name = "ERA")]
    pub(crate) era: String,
    /// An HTTP header sent with every request (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub(crate) headers: Vec<String>,
    /// A bearer token sent with every HTTP request.
    #[arg(long, value_name = "TOKEN", env = "MCP_BEARER_TOKEN", hide_env_values = true)]
    pub(crate) bearer: Option<String>,
    #[command(flatten)]
    pub(crate) oauth: OAuthArgs,
    /// How long one request may take, in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub(crate) timeout: f64,
    /// Prints JSON for scripts instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// The server's command and its arguments (stdio).
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) command: Vec<String>,
}

/// How to obtain a token when the server asks for one (HTTP).
#[derive(Debug, Args)]
pub(crate) struct OAuthArgs {
    /// Authorizes in a browser (authorization code with PKCE, redirected to a loopback port).
    #[arg(long)]
    pub(crate) oauth: bool,
    /// A pre-registered client id (with `--oauth-client-secret` or `--oauth-key` and no
    /// `--oauth`: the client-credentials grant).
    #[arg(long, value_name = "ID")]
    pub(crate) oauth_client_id: Option<String>,
    /// The client's secret.
    #[arg(long, value_name = "SECRET", env = "MCP_OAUTH_CLIENT_SECRET", hide_env_values = true)]
    pub(crate) oauth_client_secret: Option<String>,
    /// The client's ES256 private key, PKCS#8 PEM (`private_key_jwt`).
    #[arg(long, value_name = "FILE")]
    pub(crate) oauth_key: Option<PathBuf>,
    /// A scope to ask for (repeatable; by default the ones the server names).
    #[arg(long = "oauth-scope", value_name = "SCOPE")]
    pub(crate) oauth_scopes: Vec<String>,
}

/// Whether the server's questions are asked on the terminal.
#[derive(Debug, Args)]
pub(crate) struct Asking {
    /// Declines what the server asks (elicitation) instead of asking on the terminal.
    #[arg(long)]
    pub(crate) no_input: bool,
}

/// `mcp dev`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct DevArgs {
    /// The package whose binary is the server (in a workspace).
    #[arg(short = 'p', long = "package", value_name = "PACKAGE")]
    pub(crate) package: Option<String>,
    /// The crate's (or workspace's) manifest.
    #[arg(long, value_name = "PATH")]
    pub(crate) manifest_path: Option<PathBuf>,
    /// The binary to run, when the package has several.
    #[arg(long, value_name = "NAME")]
    pub(crate) bin: Option<String>,
    /// Serves the client over Streamable HTTP at this address instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,
    /// Prints the command that opens the official Inspector on the server.
    #[arg(long)]
    pub(crate) inspector: bool,
    /// Arguments passed to the server after `--`.
    #[arg(last = true, value_name = "SERVER ARGS")]
    pub(crate) server_args: Vec<String>,
}
