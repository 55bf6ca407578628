#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[doc(hidden)]
pub mod __private;
mod arguments;
mod base64;
mod bounded;
mod cache;
mod completion;
mod context;
mod dispatch;
mod error;
mod handle;
mod in_flight;
mod prompt;
pub mod protocol;
mod registry;
mod resource;
mod schema;
mod server;
mod session;
mod subscriptions;
mod tool;
mod transport;
mod uri_template;

pub use bounded::Bounded;
pub use cache::{CachePolicy, CacheScope, Cached};
pub use completion::{CompletionContext, IntoCompleter, IntoCompletionValues, starting_with};
pub use context::{Context, Negotiated};
pub use error::{Error, ItemKind, Result};
pub use handle::ServerHandle;
pub use prompt::{IntoPromptResult, PromptDescriptor, PromptGet};
pub use protocol::{CallToolResult, Content};
pub use resource::{IntoResourceContents, NotFound, ReadError, ResourceDescriptor, ResourceRead};
pub use schema::{input_schema_for, schema_for};
pub use server::Server;
pub use tool::{BoxFuture, IntoToolResult, Json, Structured, ToolCall, ToolDescriptor};
pub use uri_template::{UriTemplate, UriTemplateError};

#[cfg(feature = "macros")]
#[doc = include_str!("docs/mcp_tool.md")]
pub use mcp_macros::mcp_tool;

#[cfg(feature = "macros")]
#[doc = include_str!("docs/mcp_resource.md")]
pub use mcp_macros::mcp_resource;

#[cfg(feature = "macros")]
#[doc = include_str!("docs/mcp_prompt.md")]
pub use mcp_macros::mcp_prompt;

/// The macros' diagnostics: each mistake, what the compiler says, and how to fix it.
#[doc = include_str!("docs/diagnostics.md")]
pub mod diagnostics {}

/// The items most servers need: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::protocol::{CallToolResult, Content, PromptMessage, Resource, ResourceContents};
    pub use crate::{
        Bounded, Context, IntoToolResult, Json, NotFound, PromptDescriptor, ReadError, ResourceDescriptor, Server,
        Structured, ToolDescriptor, starting_with,
    };
    #[cfg(feature = "macros")]
    pub use crate::{mcp_prompt, mcp_resource, mcp_tool};
}

impl Server {
    /// Serves one client over newline-delimited JSON on any pair of byte streams, until the
    /// input ends and every response is written: pipes, sockets, or
    /// [`tokio::io::duplex`] streams in a test.
    ///
    /// ```
    /// use mcp_runtime::{Server, ToolDescriptor};
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> mcp_runtime::Result<()> {
    /// let server = Server::builder("demo", "1.0.0")
    ///     .tool(ToolDescriptor::new("hello").handler(|_: serde_json::Value| async { "hi" }));
    /// let (client, server_side) = tokio::io::duplex(4096);
    /// let (server_in, server_out) = tokio::io::split(server_side);
    /// let serving = tokio::spawn(server.serve(server_in, server_out));
    ///
    /// let (client_in, mut client_out) = tokio::io::split(client);
    /// client_out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").await?;
    /// let mut lines = BufReader::new(client_in).lines();
    /// assert_eq!(lines.next_line().await?.unwrap(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    /// client_out.shutdown().await?; // the end of input ends the session
    /// serving.await.unwrap()?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<()>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let core = self.build()?;
        transport::lines::serve(core, reader, writer).await?;
        Ok(())
    }

    /// Serves one client on standard input and output until standard input closes. Standard
    /// output carries protocol messages only; log with `tracing` to standard error.
    #[cfg(feature = "stdio")]
    pub async fn serve_stdio(self) -> Result<()> {
        self.serve(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Runs the server from a plain `fn main`, on a multi-threaded runtime of its own, as the
    /// command line says (see [`run_from_args`](Self::run_from_args)).
    ///
    /// ```no_run
    /// fn main() -> mcp_runtime::Result<()> {
    ///     mcp_runtime::Server::new("demo", "1.0.0").run()
    /// }
    /// ```
    #[cfg(feature = "stdio")]
    pub fn run(self) -> Result<()> {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(self.run_from_args())
    }

    /// Serves as the program's command line says: `--list` prints what the server declares
    /// (tools with their schemas) and exits; no argument serves on stdio. An unknown argument
    /// is an error naming it.
    #[cfg(feature = "stdio")]
    pub async fn run_from_args(self) -> Result<()> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        match args.first().map(String::as_str) {
            None => self.serve_stdio().await,
            Some("--list") => {
                print!("{}", self.describe()?);
                Ok(())
            }
            Some(other) => {
                Err(Error::Usage(format!("unknown argument `{other}`; use `--list`, or no argument to serve on stdio")))
            }
        }
    }
}
