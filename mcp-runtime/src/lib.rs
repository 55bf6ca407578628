#![doc = include_str!("../README.md")]
// The README links to items some features bring; built without them, the links go to docs.rs.
#![cfg_attr(
    not(feature = "macros"),
    doc = "",
    doc = "[`mcp_tool`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/attr.mcp_tool.html"
)]
#![cfg_attr(
    not(feature = "stdio"),
    doc = "",
    doc = "[`Server::run`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run",
    doc = "[`Server::run_stdio`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.run_stdio",
    doc = "[`Server::serve_stdio`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.Server.html#method.serve_stdio"
)]
#![forbid(unsafe_code)]
// docs.rs builds with every feature and `--cfg docsrs` on nightly: each item then says which
// feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The crate's layers, each importing only from those before it:
//
//   error, protocol < util < context < declare < middleware < auth < tasks < server
//   < serve < transport < the facade
//
// - `protocol`: the wire types; `util`: small shared pieces;
// - `context`: what a handler sees of its request (and its questions to the client, states);
// - `declare`: descriptors, handlers, argument glue, the link-time declarations;
// - `middleware`: the seam tower layers wrap, and the built-in layers;
// - `auth`: authorization at the HTTP edge (verifiers, challenges, metadata) and the scope
//   check, a layer on the seam;
// - `tasks`: the tasks extension's records, their store, and the tasks this process runs;
//   `skills`: the skills extension's skills (read from folders) and the server's catalog;
// - `server`: the builder, the built core, the registry, the handle and the change bus;
// - `serve`: one connection: session intake, the route table, the executor, the methods;
// - `transport`: the connection loop, newline-delimited JSON, stdio, Streamable HTTP;
// - the facade: this file, `__private` (for generated code), `diagnostics`, `testing`,
//   `redis`, `command_line`.

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "http")]
mod auth;
#[cfg(feature = "stdio")]
mod command_line;
mod context;
mod declare;
mod error;
pub mod middleware;
/// Telemetry (feature `telemetry`): OpenTelemetry spans and metrics as the conventions for
/// MCP name them, exported over OTLP, and Prometheus text for `/metrics`.
#[cfg(feature = "telemetry")]
#[cfg_attr(docsrs, doc(cfg(feature = "telemetry")))]
pub mod telemetry {
    pub use crate::middleware::telemetry::{OPERATION_BUCKETS, SESSION_BUCKETS, Telemetry, TelemetryError};
}
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
pub mod protocol;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
mod serve;
mod server;
mod skills;
mod tasks;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
mod transport;
mod util;

/// The schemars (1.x) that argument and output schemas come from: derive `JsonSchema` from
/// this version (`schemars = "1"` in `Cargo.toml`, or `mcp_runtime::schemars`).
pub use schemars;
/// The serde_json that values travel as.
pub use serde_json;

pub use context::asking::{AskError, Elicitation, Root, SampledMessage, SamplingMessage, SamplingRequest};
pub use context::log_layer::ClientLogLayer;
pub use context::state::State;
pub use context::{CancelToken, Context, Identity, Input, LOG_MESSAGES_PER_SECOND, Negotiated};
pub use declare::bounded::Bounded;
pub use declare::completion::{CompletionContext, IntoCompleter, IntoCompletionValues, starting_with};
pub use declare::prompt::{IntoPromptResult, PromptDescriptor, PromptGet};
pub use declare::resource::{IntoResourceContents, ReadError, ResourceDescriptor, ResourceNotFound, ResourceRead};
pub use declare::selection::Selection;
pub use declare::task::TaskSupport;
pub use declare::tool::{IntoToolResult, Json, Structured, ToolCall, ToolDescriptor};
pub use error::{Error, ItemKind, Result};
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use mcp_skill_folder::{FrontmatterError, MAX_BYTES as SKILL_MAX_BYTES, MAX_FILES as SKILL_MAX_FILES, SkillError};
pub use mcp_uri_template::{UriTemplate, UriTemplateError};
pub use protocol::{CachePolicy, CacheScope, Cacheable, CallToolResult, Content};
pub use server::builder::Server;
pub use server::handle::ServerHandle;
pub use skills::Skill;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use skills::{EmbeddedSkill, EmbeddedSkills};
pub use tasks::{DEFAULT_TASK_LIMIT, MemoryTaskStore, TaskRecord, TaskStatus, TaskStore, TaskStoreError};
pub use util::schema::{input_schema_for, output_schema_for, schema_for};
pub use util::{BoxFuture, StoreError};

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use transport::http::{Allowed, HttpOptions};

/// Streamable HTTP: how the endpoint serves ([`HttpOptions`], at the root
/// too), its limits, its authorization ([`Authorization`](http::Authorization); the JWT and
/// introspection verifiers with feature `oauth`), and the two stores instances behind a load
/// balancer share (sessions, and the events of resumable streams).
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http {
    pub use crate::transport::http::{
        Allowed, DEFAULT_BODY_TIMEOUT, DEFAULT_HEAD_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
        DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_REQUESTS, DEFAULT_MAX_SESSIONS, EventStore,
        HttpOptions, MemoryEventStore, MemorySessionStore, RESERVED_FILES, ResponseMode, SessionRecord, SessionStore,
        StoreError, StoredEvents,
    };

    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::introspection::DEFAULT_INTROSPECTION_CACHE;
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::jwt::{DEFAULT_LEEWAY, DEFAULT_REFETCH_INTERVAL, DEFAULT_VERIFIED_CACHE};
    pub use crate::auth::{Authorization, Reject};
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub use crate::auth::{IntrospectionVerifier, JwtVerifier};
}

/// The change bus between servers ([`Server::change_bus`]): resource updates, list changes,
/// and items enabled, disabled or removed through a [`ServerHandle`], heard by every server
/// sharing it.
pub mod changes {
    pub use crate::server::changes::{ChangeBus, ChangeEvent, ChangeNotice, ChangeSink, ItemChange, MemoryChangeBus};
}

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_tool.md")]
pub use mcp_runtime_macros::mcp_tool;

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;

#[cfg(feature = "macros")]
#[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
#[doc = include_str!("docs/mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;

#[cfg(all(feature = "macros", feature = "skills"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "macros", feature = "skills"))))]
#[doc = include_str!("docs/embed_skills.md")]
pub use mcp_runtime_macros::embed_skills;

pub mod diagnostics;

/// The items most servers need: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::protocol::{CallToolResult, Content, LogLevel, PromptMessage, Resource, ResourceContents};
    pub use crate::{
        AskError, Bounded, Context, Elicitation, IntoToolResult, Json, PromptDescriptor, ReadError, ResourceDescriptor,
        ResourceNotFound, Server, State, Structured, ToolDescriptor, starting_with,
    };
    #[cfg(feature = "macros")]
    #[cfg_attr(docsrs, doc(cfg(feature = "macros")))]
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
    ///
    /// It also ends when the [shutdown signal](Self::with_graceful_shutdown) comes, and with
    /// [`Error::OutputClosed`] when the output closes (in-flight work is then aborted).
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
    /// work is aborted and this returns [`Error::OutputClosed`].
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
    /// [`Error::OutputClosed`] at once.
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
    /// use mcp_runtime::{Allowed, HttpOptions, Server};
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
    /// use mcp_runtime::{Allowed, HttpOptions, Identity, Server};
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

    /// Runs the server from a plain `fn main`, as the program's command line says, on a
    /// multi-threaded runtime of its own; no tokio dependency or `#[tokio::main]` is needed.
    ///
    /// The command line it reads:
    ///
    /// | argument | what it does |
    /// |---|---|
    /// | none, or `--stdio` | serves one client on standard input and output |
    /// | `--http ADDR` | serves Streamable HTTP at `http://ADDR/mcp` (with the `http` feature) |
    /// | `--list [REVISION]` | prints the tools, resources and prompts with their schemas as a client of `REVISION` (default: the latest) sees them, and exits |
    /// | `-h`, `--help` | prints the usage text and exits |
    /// | `-V`, `--version` | prints the server's name and version and exits |
    ///
    /// An argument it does not understand is reported on stderr with the usage text, and the
    /// process exits with status 2 (as command-line tools do), before anything is started.
    /// [`run_stdio`](Self::run_stdio) serves on stdio without reading the command line.
    ///
    /// SIGINT and SIGTERM stop the server gracefully (unless
    /// [`with_graceful_shutdown`](Self::with_graceful_shutdown) gave another signal): reading
    /// stops, requests in flight get the [drain timeout](Self::drain_timeout) to answer, and it
    /// returns `Ok`.
    ///
    /// ```no_run
    /// fn main() -> mcp_runtime::Result<()> {
    ///     mcp_runtime::Server::new("demo", "1.0.0").run()
    /// }
    /// ```
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    pub fn run(self) -> Result<()> {
        let command = match command_line::parse(std::env::args().skip(1)) {
            Ok(command) => command,
            Err(message) => {
                let usage = self.usage();
                eprintln!("error: {message}\n\n{usage}");
                std::process::exit(2);
            }
        };
        self.block_on(command)
    }

    /// Serves one client on stdio from a plain `fn main`, like [`run`](Self::run) with no
    /// argument, but without reading the command line: for binaries that parse their own.
    ///
    /// ```no_run
    /// fn main() -> mcp_runtime::Result<()> {
    ///     mcp_runtime::Server::new("demo", "1.0.0").run_stdio()
    /// }
    /// ```
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    pub fn run_stdio(self) -> Result<()> {
        self.block_on(command_line::Command::Serve(command_line::Transport::Stdio))
    }

    /// Serves as the program's command line says (the arguments [`run`](Self::run) reads), on
    /// the caller's runtime. An argument it does not understand is returned as
    /// [`Error::Usage`], whose text ends with the usage.
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    pub async fn run_from_args(self) -> Result<()> {
        match command_line::parse(std::env::args().skip(1)) {
            Ok(command) => self.execute(command).await,
            Err(message) => {
                let usage = self.usage();
                Err(Error::Usage(format!("{message}\n\n{usage}")))
            }
        }
    }

    /// Runs `command`: what only prints, at once; serving, on a runtime of its own that stops
    /// on the termination signals.
    #[cfg(feature = "stdio")]
    fn block_on(self, command: command_line::Command) -> Result<()> {
        let transport = match command {
            command_line::Command::Print(what) => return self.print(what),
            command_line::Command::Serve(transport) => transport,
        };
        #[cfg(feature = "telemetry")]
        let (server, telemetry) = self.with_run_telemetry(&transport)?;
        #[cfg(feature = "telemetry")]
        let spans = telemetry.as_ref().and_then(|t| t.tracing_layer()).map(|l| Box::new(l) as _);
        #[cfg(not(feature = "telemetry"))]
        let (server, spans) = (self, None);
        context::log_layer::install_default_subscriber(spans);
        #[cfg(feature = "telemetry")]
        if let Some(telemetry) = &telemetry {
            tracing::info!(exporting = telemetry.exporting(), "telemetry: exporting {}", telemetry.exporting());
        }
        // At least two workers, even on one CPU: a plain `fn` that blocks one leaves the other
        // to poll the connection (see the executor's `in_place`).
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()?;
        // This program owns its process: each HTTP connection takes a file, and the soft limit
        // is often 1,024 where the hard one is far higher.
        #[cfg(feature = "http")]
        if matches!(transport, command_line::Transport::Http { .. }) {
            transport::http::file_limit::raise_file_limit();
        }
        // Served on a worker, not on this thread: the tasks it spawns then start on the same
        // worker, without waking another thread. (A plain `fn` handler runs on the blocking
        // pool instead, so that one that blocks leaves the worker to poll the pipes.)
        let serving = runtime.spawn(async {
            let server =
                if server.has_shutdown_signal() { server } else { server.with_graceful_shutdown(termination_signal()) };
            server.serve_on(transport, transport::stdio::Pipes::Polled).await
        });
        let served = runtime.block_on(serving);
        // What is pending goes out before the process ends.
        #[cfg(feature = "telemetry")]
        if let Some(telemetry) = telemetry {
            telemetry.shutdown();
        }
        match served {
            Ok(served) => served,
            // A panic goes on as it would have on this thread.
            Err(failed) if failed.is_panic() => std::panic::resume_unwind(failed.into_panic()),
            Err(failed) => Err(Error::Io(std::io::Error::other(failed.to_string()))),
        }
    }

    /// The telemetry `run()` serves with (feature `telemetry`): the server's own, else one made
    /// from `OTEL_*` and added outside every layer when it exports something or the server
    /// serves HTTP (for `/metrics`); none otherwise. A value of `OTEL_*` it cannot follow stops
    /// the start, saying which.
    #[cfg(all(feature = "telemetry", feature = "stdio"))]
    fn with_run_telemetry(
        mut self,
        transport: &command_line::Transport,
    ) -> Result<(Self, Option<telemetry::Telemetry>)> {
        if let Some(telemetry) = self.telemetry.clone() {
            return Ok((self, Some(telemetry)));
        }
        let telemetry =
            telemetry::Telemetry::from_env(&self.info().name).map_err(|e| Error::Usage(format!("telemetry: {e}")))?;
        #[cfg(feature = "http")]
        let http = matches!(transport, command_line::Transport::Http { .. });
        #[cfg(not(feature = "http"))]
        let http = {
            let _ = transport;
            false
        };
        if !telemetry.exports() && !http {
            return Ok((self, None));
        }
        self = self.telemetry_outermost(telemetry.clone());
        Ok((self, Some(telemetry)))
    }

    /// Does what the command line asked, on the caller's runtime.
    #[cfg(feature = "stdio")]
    async fn execute(self, command: command_line::Command) -> Result<()> {
        match command {
            command_line::Command::Print(what) => self.print(what),
            command_line::Command::Serve(transport) => self.serve_on(transport, transport::stdio::Pipes::Threads).await,
        }
    }

    #[cfg(feature = "stdio")]
    async fn serve_on(self, transport: command_line::Transport, pipes: transport::stdio::Pipes) -> Result<()> {
        match transport {
            command_line::Transport::Stdio => self.serve_stdio_with(pipes).await,
            #[cfg(feature = "http")]
            command_line::Transport::Http { addr, flags } => {
                let mut server = self;
                #[cfg(feature = "telemetry")]
                let metrics_apart = flags.metrics.clone();
                // `run_with`'s options, or the defaults, with what the flags say.
                let options = command_line::with_http_flags(server.run_http_options.take().unwrap_or_default(), flags)?;
                // With telemetry, `--http` serves the metrics too: on `--metrics ADDR` when
                // given, else beside the endpoint when it listens on loopback only (a port
                // reachable from elsewhere does not publish them unasked).
                #[cfg(feature = "telemetry")]
                let options = match (&server.telemetry, metrics_apart) {
                    (None, _) => options,
                    (Some(telemetry), Some(metrics)) => {
                        transport::http::health::serve_metrics_apart(&metrics, telemetry.clone()).await?;
                        options
                    }
                    (Some(_), None) if transport::http::health::listens_on_loopback(&addr).await => {
                        options.metrics_path("/metrics")
                    }
                    (Some(_), None) => {
                        eprintln!(
                            "the metrics are not served: {addr} is reachable from elsewhere; give `--metrics ADDR` \
                             to serve them apart"
                        );
                        options
                    }
                };
                server.serve_http_announced(addr.as_str(), options, true).await
            }
        }
    }

    /// The usage text, for this program and server.
    #[cfg(feature = "stdio")]
    fn usage(&self) -> String {
        command_line::usage(&command_line::program_name(), &self.info().name, &self.info().version)
    }

    /// `--help`, `--version` and `--list`: printed to stdout.
    #[cfg(feature = "stdio")]
    fn print(self, what: command_line::Print) -> Result<()> {
        match what {
            command_line::Print::Help => print!("{}", self.usage()),
            command_line::Print::Version => println!("{} {}", self.info().name, self.info().version),
            command_line::Print::List(revision) => print!("{}", self.describe_for(revision)?),
        }
        Ok(())
    }
}

/// Completes on SIGINT or SIGTERM (Ctrl-C elsewhere): the signal [`Server::run`] stops on, for
/// servers started another way.
///
/// Once it is awaited, those signals no longer end the process by themselves: the server
/// exits on its own after draining.
///
/// ```no_run
/// # async fn serve() -> mcp_runtime::Result<()> {
/// mcp_runtime::Server::new("demo", "1.0.0")
///     .with_graceful_shutdown(mcp_runtime::termination_signal())
///     .serve_stdio()
///     .await
/// # }
/// ```
#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub async fn termination_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = match signal(SignalKind::terminate()) {
            Ok(terminate) => terminate,
            Err(e) => {
                tracing::warn!(error = %e, "SIGTERM cannot be caught; only SIGINT stops the server gracefully");
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
