//! `mcp dev`: builds the server, runs it, and stands between it and the client so that the
//! client stays connected across rebuilds. On a change to the sources it rebuilds; on success
//! each proxy starts the new binary, replays its client's handshake (`initialize`,
//! `notifications/initialized`, the log level, the subscriptions; 2026-07-28's
//! `subscriptions/listen` requests), compares the lists and tells the client which changed.
//! Requests in flight finish on the old run (bounded); requests that arrive during the switch
//! wait for the new one. A failed build leaves the old run serving and tells the client.
//!
//! The client is told `listChanged: true` for every list whatever the server declares, so
//! that it never holds a stale schema during development. Over stdio there is one client and
//! one proxy; over HTTP (`--http`), a proxy per session, and one for 2026-07-28's requests.

mod builds;
mod http;
mod package;
mod proxy;
mod server;
mod watch;

use std::path::PathBuf;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

use crate::args::DevArgs;
use crate::connect::Failure;
use builds::Builds;
use package::{BuildFailure, Package};
use proxy::{Outlet, Proxy};

/// What a proxy reacts to.
#[derive(Debug)]
pub(crate) enum Event {
    /// A message from the client.
    Client(String),
    /// The client left.
    ClientClosed,
    /// A message from run `generation` of the server.
    Server(u64, Value),
    /// A line of a run's stdout that is not a message.
    ServerNoise(u64, String),
    /// A run's stdout closed (it exited).
    ServerClosed(u64),
    /// A build ended.
    Built(Result<(), BuildFailure>),
}

/// What starts a run of the server.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub(crate) binary: PathBuf,
    pub(crate) args: Vec<String>,
}

/// Runs `mcp dev`.
pub(crate) async fn run(args: DevArgs) -> Result<(), Failure> {
    let package = Package::locate(&args).await?;
    if args.inspector {
        let mut command: Vec<String> = std::env::args().filter(|a| a != "--inspector").collect();
        command[0] = "mcp".to_owned();
        let inspector = match &args.http {
            Some(addr) => {
                format!("npx @modelcontextprotocol/inspector --transport http --server-url http://{addr}/mcp")
            }
            None => format!("npx @modelcontextprotocol/inspector {}", command.join(" ")),
        };
        eprintln!("Open the Inspector on it:\n  {inspector}");
    }
    eprintln!("mcp dev: building `{}` ({})", package.name, package.bin);
    let built = package.build().await;
    if let Err(failure) = &built {
        eprintln!("mcp dev: the build failed; fix it and save: the server starts when it builds\n{}", failure.errors);
    }
    let launch = Launch { binary: package.binary.clone(), args: args.server_args.clone() };
    let watched = package.sources.clone();
    eprintln!("mcp dev: watching {}", watched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    let builds = Builds::start(package.clone());
    let changes = builds.changes();
    watch::spawn(watched, package.target_dir.clone(), move |path| changes.send(path).is_ok());
    match &args.http {
        Some(addr) => http::serve(addr, launch, builds).await,
        None => {
            let (mut proxy, events_to) = Proxy::new(launch, Outlet::Stdout(tokio::io::stdout()));
            builds.subscribe(events_to.clone());
            if built.is_ok() {
                proxy.start_first();
            }
            tokio::spawn(read_client(events_to));
            proxy.serve().await;
            Ok(())
        }
    }
}

/// Reads the client's lines from stdin.
async fn read_client(events: mpsc::UnboundedSender<Event>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if events.send(Event::Client(line)).is_err() {
            return;
        }
    }
    let _ = events.send(Event::ClientClosed);
}
