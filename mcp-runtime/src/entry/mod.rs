//! The entry points: serving one client on byte streams, channels or stdio, and Streamable
//! HTTP (here), and running from a plain `fn main` as the command line says
//! ([`program`]). `Server` describes the server; these put it on a transport.

#[cfg(feature = "stdio")]
pub(crate) mod program;

#[cfg(feature = "http")]
use crate::http::HttpOptions;
use crate::transport;
use crate::{Result, Server};

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
    ///
    /// It also ends when the [shutdown signal](Self::with_graceful_shutdown) comes, and with
    /// [`Error::OutputClosed`](crate::Error::OutputClosed) when the output closes (in-flight work is then aborted).
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<()>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (core, shutdown) = self.start()?;
        transport::lines::serve(core, reader, writer, std::future::pending(), shutdown).await
    }

    /// Serves one client over a transport of your own (a WebSocket, a message queue, a test
    /// harness): each message the client sent goes into `incoming` (one JSON-RPC message or
    /// batch per item, without a line terminator), and each message the server writes comes
    /// out of `outgoing` (one per item, ending in `\n`). Everything else is as on stdio: one
    /// session, the in-flight bound, cancellation, back-pressure (a full `outgoing` stops the
    /// server taking from `incoming`). Serving ends when `incoming` closes and every response
    /// is out, or on the [shutdown signal](Self::with_graceful_shutdown); if `outgoing` closes,
    /// work is aborted and this returns [`Error::OutputClosed`](crate::Error::OutputClosed).
    ///
    /// ```
    /// use mcp_runtime::Server;
    /// use tokio::sync::mpsc;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> mcp_runtime::Result<()> {
    /// let (to_server, incoming) = mpsc::channel::<Vec<u8>>(16);
    /// let (outgoing, mut from_server) = mpsc::channel::<Vec<u8>>(16);
    /// let serving = tokio::spawn(Server::builder("demo", "1.0.0").serve_channel(incoming, outgoing));
    /// to_server.send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec()).await.unwrap();
    /// let answer = from_server.recv().await.unwrap();
    /// assert_eq!(answer, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    /// drop(to_server); // the client went away
    /// serving.await.unwrap()?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn serve_channel(
        self,
        incoming: tokio::sync::mpsc::Receiver<Vec<u8>>,
        outgoing: tokio::sync::mpsc::Sender<Vec<u8>>,
    ) -> Result<()> {
        let (core, shutdown) = self.start()?;
        transport::connection::serve_messages(core, shutdown, incoming, outgoing).await
    }

    /// Serves one client on standard input and output until standard input closes (or the
    /// [shutdown signal](Self::with_graceful_shutdown) comes), then answers what is in flight.
    /// Standard output carries protocol messages only; log with `tracing` to standard error.
    /// If the client closes standard output, in-flight work is aborted and this returns
    /// [`Error::OutputClosed`](crate::Error::OutputClosed) at once.
    ///
    /// Standard input and output are read and written by two threads of their own rather than
    /// through tokio's blocking pool. ([`run`](Self::run) and [`run_stdio`](Self::run_stdio),
    /// on the runtime they build, poll them instead when both are pipes: one thread serves a
    /// request from read to write. On a runtime of yours that might lack `enable_io`, that
    /// would panic, so this keeps the threads.)
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    pub async fn serve_stdio(self) -> Result<()> {
        self.serve_stdio_with(transport::stdio::Pipes::Threads).await
    }

    /// [`serve_stdio`](Self::serve_stdio), polling pipes or not.
    #[cfg(feature = "stdio")]
    async fn serve_stdio_with(self, pipes: transport::stdio::Pipes) -> Result<()> {
        let (core, shutdown) = self.start()?;
        transport::stdio::serve(core, shutdown, pipes).await
    }

    /// Serves Streamable HTTP at `http://<addr>/mcp`, both eras, until the
    /// [shutdown signal](Self::with_graceful_shutdown): then it stops accepting, lets requests
    /// in flight finish within the [drain timeout](Self::drain_timeout) and ends every stream.
    /// Bound to a loopback address it answers only loopback `Host` and `Origin` values; bound
    /// elsewhere it needs [`HttpOptions`] allow-lists (see [`serve_http_with`](Self::serve_http_with)).
    ///
    /// ```no_run
    /// # async fn serve() -> mcp_runtime::Result<()> {
    /// mcp_runtime::Server::new("demo", "1.0.0").serve_http("127.0.0.1:3000").await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`serve_http`](Self::serve_http) with options: the response mode, the allowed hosts
    /// and origins.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub async fn serve_http_with(self, addr: impl tokio::net::ToSocketAddrs, options: HttpOptions) -> Result<()> {
        self.serve_http_announced(addr, options, false).await
    }

    /// [`serve_http_with`](Self::serve_http_with); `announce`: the command line's `--http`,
    /// which prints where it listens on standard error whatever the log level (a program
    /// that serves HTTP itself says so through its own log, at `info`).
    #[cfg(feature = "http")]
    async fn serve_http_announced(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
        announce: bool,
    ) -> Result<()> {
        let (core, shutdown) = self.start()?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        if announce {
            eprintln!("serving MCP at http://{local}/mcp");
        } else {
            tracing::info!("serving MCP at http://{local}/mcp");
        }
        let rules = transport::http::connection_rules(&options);
        let drain = core.config.drain_timeout;
        let routers = transport::http::router(core, options, Some(local))?;
        let (router, stop) = (routers.endpoint.merge(routers.metadata), routers.stop);
        let shutdown = async move {
            shutdown.await;
            let _ = stop.send(true);
            // Still accepting while the sessions drain: `/readyz` says 503, new requests
            // are refused with 503, so a load balancer moves on before the port closes.
            transport::http::health::drained(&stop, drain).await;
        };
        transport::http::connections::serve(listener, router, rules, shutdown).await?;
        Ok(())
    }

    /// The Streamable HTTP endpoint as an axum router serving `/mcp`, to mount in an
    /// application of your own beside its routes (`Router::merge`, or `nest` under a prefix).
    /// Mounted, the server cannot know its address: `options` must name the allowed hosts and
    /// origins.
    ///
    /// ```
    /// use mcp_runtime::http::{Allowed, HttpOptions};
    /// use mcp_runtime::Server;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> mcp_runtime::Result<()> {
    /// let options = HttpOptions::default()
    ///     .allowed_hosts(Allowed::Only(vec!["mcp.example.com".into()]))
    ///     .allowed_origins(Allowed::Only(vec!["https://app.example.com".into()]));
    /// let mcp = Server::builder("demo", "1.0.0").http_router(options)?;
    /// let app: axum::Router = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(mcp);
    /// # drop(app);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_router(self, options: HttpOptions) -> Result<axum::Router> {
        let (endpoint, metadata) = self.http_routers(options)?;
        Ok(endpoint.merge(metadata))
    }

    /// [`http_router`](Self::http_router) in two parts, for an endpoint nested under a
    /// prefix: the endpoint's router (to `nest`) and the protected-resource metadata's, which
    /// belongs at the origin's root (RFC 9728 puts the well-known prefix before the path:
    /// `/.well-known/oauth-protected-resource/api/mcp` for `https://h/api/mcp`). The metadata
    /// router is empty without [authorization](crate::http::Authorization) naming an
    /// authorization server; the challenges name its URL.
    ///
    /// ```
    /// use mcp_runtime::http::{Authorization, Reject};
    /// use mcp_runtime::http::{Allowed, HttpOptions};
    /// use mcp_runtime::{Identity, Server};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> mcp_runtime::Result<()> {
    /// let auth = Authorization::hook(|_headers| async { Err::<Identity, _>(Reject::new("no")) })
    ///     .authorization_server("https://auth.example.com")
    ///     .resource("https://mcp.example.com/api/mcp");
    /// let options = HttpOptions::default()
    ///     .allowed_hosts(Allowed::Only(vec!["mcp.example.com".into()]))
    ///     .allowed_origins(Allowed::Any)
    ///     .authorization(auth);
    /// let (mcp, metadata) = Server::builder("demo", "1.0.0").http_routers(options)?;
    /// let app: axum::Router = axum::Router::new().nest("/api", mcp).merge(metadata);
    /// # drop(app);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn http_routers(self, options: HttpOptions) -> Result<(axum::Router, axum::Router)> {
        let (core, _shutdown) = self.start()?;
        let routers = transport::http::router(core, options, None)?;
        Ok((routers.endpoint, routers.metadata))
    }
}
