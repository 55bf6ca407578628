//! Running from a plain `fn main`: the command line read, a runtime built, the termination
//! signals heard, and the printing commands (`--help`, `--version`, `--list`).

use crate::command_line;
use crate::context;
use crate::transport;
use crate::{Error, Result, Server};

/// What a program gives a run beside its command line: the HTTP options of
/// [`Server::run_with`] (`None`: the defaults).
#[derive(Default)]
pub(crate) struct GivenOptions {
    #[cfg(feature = "http")]
    pub(crate) http: Option<crate::transport::http::HttpOptions>,
}

impl Server {
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
        self.block_on(command, GivenOptions::default())
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
        self.block_on(command_line::Command::Serve(command_line::Transport::Stdio), GivenOptions::default())
    }

    /// Serves as the program's command line says (the arguments [`run`](Self::run) reads), on
    /// the caller's runtime. An argument it does not understand is returned as
    /// [`Error::Usage`], whose text ends with the usage.
    #[cfg(feature = "stdio")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
    pub async fn run_from_args(self) -> Result<()> {
        match command_line::parse(std::env::args().skip(1)) {
            Ok(command) => self.execute(command, GivenOptions::default()).await,
            Err(message) => {
                let usage = self.usage();
                Err(Error::Usage(format!("{message}\n\n{usage}")))
            }
        }
    }

    /// Runs `command`: what only prints, at once; serving, on a runtime of its own that stops
    /// on the termination signals.
    #[cfg(feature = "stdio")]
    pub(crate) fn block_on(self, command: command_line::Command, options: GivenOptions) -> Result<()> {
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
        let serving = runtime.spawn(async move {
            let server =
                if server.has_shutdown_signal() { server } else { server.with_graceful_shutdown(termination_signal()) };
            server.serve_on(transport, transport::stdio::Pipes::Polled, options).await
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
    ) -> Result<(Self, Option<crate::telemetry::Telemetry>)> {
        if let Some(telemetry) = self.telemetry.clone() {
            return Ok((self, Some(telemetry)));
        }
        let telemetry = crate::telemetry::Telemetry::from_env(&self.info().name)
            .map_err(|e| Error::Usage(format!("telemetry: {e}")))?;
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
    async fn execute(self, command: command_line::Command, options: GivenOptions) -> Result<()> {
        match command {
            command_line::Command::Print(what) => self.print(what),
            command_line::Command::Serve(transport) => {
                self.serve_on(transport, transport::stdio::Pipes::Threads, options).await
            }
        }
    }

    #[cfg(feature = "stdio")]
    async fn serve_on(
        self,
        transport: command_line::Transport,
        pipes: transport::stdio::Pipes,
        options: GivenOptions,
    ) -> Result<()> {
        #[cfg(not(feature = "http"))]
        let GivenOptions {} = options;
        match transport {
            command_line::Transport::Stdio => self.serve_stdio_with(pipes).await,
            #[cfg(feature = "http")]
            command_line::Transport::Http { addr, flags } => {
                let server = self;
                #[cfg(feature = "telemetry")]
                let metrics_apart = flags.metrics.clone();
                // `run_with`'s options, or the defaults, with what the flags say.
                let options = command_line::with_http_flags(options.http.unwrap_or_default(), flags)?;
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
            command_line::Print::Card { endpoint, authorization } => {
                println!("{}", self.server_card_for(endpoint.as_deref(), authorization)?);
            }
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
