#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[doc(hidden)]
pub mod __private;
mod context;
mod dispatch;
mod error;
pub mod protocol;
mod registry;
mod schema;
mod server;
mod session;
mod tool;
mod transport;

pub use context::{Context, Negotiated};
pub use error::{Error, Result};
pub use protocol::{CallToolResult, Content};
pub use schema::{input_schema_for, schema_for};
pub use server::Server;
pub use tool::{BoxFuture, IntoToolResult, Json, Structured, ToolCall, ToolDescriptor};

#[cfg(feature = "macros")]
#[doc = include_str!("docs/mcp_tool.md")]
pub use mcp_macros::mcp_tool;

/// The items most servers need: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    #[cfg(feature = "macros")]
    pub use crate::mcp_tool;
    pub use crate::protocol::{CallToolResult, Content};
    pub use crate::{Context, IntoToolResult, Json, Server, Structured, ToolDescriptor};
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
