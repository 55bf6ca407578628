//! A server built with the builder API alone, no macros: tools `echo` and `add` on stdio.
//!
//! `cargo run --release --example manual` serves it. Flags: `--list` prints what it offers;
//! `--test-tools` adds the tools the wire tests use; `--test-items` adds resources,
//! templates, prompts and completions, with tools that drive subscriptions and list changes;
//! `--faulty-items` adds items whose user code panics; `--context-items` adds items that report
//! progress, log, wait for cancellation and time out (`--client-logging` lets them log to the
//! client); `--asking-items` adds items that ask the client (elicitation, sampling, roots); `--shapes` adds a
//! tool whose arguments and structured output take every optional shape; `--decorated` adds titles, icons and
//! `_meta` everywhere; `--page-size N`, `--max-in-flight N`, `--max-message-size BYTES` and
//! `--drain-timeout-ms N` set the server's limits (`--kept-handlers N`: how many handlers
//! stopped to ask a 2026-07-28 client are kept for its retry); `--private-tool-list-ms N` lets 2026-07-28
//! clients cache the tool list privately for N ms; `--http ADDR` serves Streamable HTTP at
//! `http://ADDR/mcp` instead of stdio (`--bearer-auth`: tokens `user-<name>` only;
//! `--max-sessions N`, `--max-requests N`, `--max-listen-streams N`, `--session-idle-ms N`,
//! `--head-timeout-ms N`, `--body-timeout-ms N`, `--keep-alive-ms N`, `--max-connections N`,
//! `--sse-responses`, `--event-store-stats` (a tool reporting what the event store keeps),
//! `--cors ORIGIN`). SIGINT and SIGTERM stop it gracefully.

mod asking_items;
mod context_items;
mod edge_items;
mod shapes;
mod test_items;
mod test_tools;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::http::{Authorization, MemoryEventStore, Reject, ResponseMode};
use mcp_runtime::{CachePolicy, CacheScope, Cacheable, Identity, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::Deserialize;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
}

fn server() -> Server {
    Server::builder("manual", env!("CARGO_PKG_VERSION"))
        .instructions("Echoes text and adds integers.")
        .tool(
            ToolDescriptor::new("echo")
                .description("Sends the text back unchanged")
                .read_only(true)
                .handler(|args: EchoArgs| async move { args.text }),
        )
        .tool(ToolDescriptor::new("add").description("Adds two integers").read_only(true).idempotent(true).handler(
            |args: AddArgs| async move {
                args.a.checked_add(args.b).map(|sum| sum.to_string()).ok_or("the sum overflows a 64-bit integer")
            },
        ))
}

/// `--bearer-auth`: a token `user-<name>` names the user `<name>`; anything else is refused,
/// with a challenge pointing at this server's protected-resource metadata.
fn http_options(options: HttpOptions, bearer_auth: bool) -> HttpOptions {
    if !bearer_auth {
        return options;
    }
    let auth = Authorization::hook(|headers| async move {
        let token = headers.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        match token.and_then(|t| t.strip_prefix("user-")) {
            Some(name) if !name.is_empty() => Ok(Identity::new(name)),
            _ => Err(Reject::new("send `Authorization: Bearer user-<name>`")),
        }
    })
    .authorization_server("https://auth.example.com");
    options.authorization(auth)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // What `RUST_LOG` asks for (warnings and errors when unset) to standard error; events
    // inside this crate's handlers also to the client (handlers built without the macros name
    // their crate here).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    tracing_subscriber::registry()
        .with(stderr)
        .with(mcp_runtime::ClientLogLayer::new().forward_target("manual"))
        .init();
    let mut server = server();
    let mut http = None;
    let mut bearer_auth = false;
    let mut options = HttpOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut number = || -> Result<usize, String> {
            args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{flag} needs a number"))
        };
        server = match flag.as_str() {
            "--list" => {
                print!("{}", server.describe()?);
                return Ok(());
            }
            "--test-tools" => test_tools::add(server),
            "--test-items" => test_items::add(server),
            "--shapes" => shapes::add(server),
            "--faulty-items" => edge_items::add_faulty(server),
            "--context-items" => context_items::add(server),
            "--asking-items" => asking_items::add(server),
            "--client-request-timeout-ms" => server.client_request_timeout(Duration::from_millis(number()? as u64)),
            "--request-state-ttl-secs" => server.request_state_ttl(Duration::from_secs(number()? as u64)),
            "--kept-handlers" => server.kept_handlers(number()?, Duration::from_secs(300)),
            "--client-logging" => server.client_logging(),
            "--default-timeout-ms" => server.default_timeout(Duration::from_millis(number()? as u64)),
            "--decorated" => edge_items::add_decorated(server),
            "--http" => {
                http = Some(args.next().ok_or("--http needs an address")?);
                server
            }
            "--bearer-auth" => {
                bearer_auth = true;
                server
            }
            "--max-sessions" => {
                options = options.max_sessions(number()?);
                server
            }
            "--max-requests" => {
                options = options.max_requests(number()?);
                server
            }
            "--max-listen-streams" => {
                options = options.max_listen_streams(number()?);
                server
            }
            "--session-idle-ms" => {
                options = options.session_idle_timeout(Duration::from_millis(number()? as u64));
                server
            }
            "--head-timeout-ms" => {
                options = options.head_timeout(Duration::from_millis(number()? as u64));
                server
            }
            "--body-timeout-ms" => {
                options = options.body_timeout(Duration::from_millis(number()? as u64));
                server
            }
            "--keep-alive-ms" => {
                options = options.keep_alive_timeout(Duration::from_millis(number()? as u64));
                server
            }
            "--max-connections" => {
                options = options.max_connections(number()?);
                server
            }
            "--sse-responses" => {
                options = options.response_mode(ResponseMode::Sse);
                server
            }
            "--event-store-stats" => {
                let events = Arc::new(MemoryEventStore::default());
                options = options.event_store(Arc::clone(&events));
                server.tool(
                    ToolDescriptor::new("event_store_stats")
                        .description("What the in-memory event store keeps now: events and bytes")
                        .read_only(true)
                        .handler(move |_: NoArgs| {
                            let events = Arc::clone(&events);
                            async move {
                                format!(r#"{{"events":{},"bytes":{}}}"#, events.kept_events(), events.kept_bytes())
                            }
                        }),
                )
            }
            "--cors" => {
                let origin = args.next().ok_or("--cors needs an origin")?;
                options = options
                    .cors(Allowed::Only(vec![origin.clone()]))
                    .allowed_origins(Allowed::Only(vec![origin, "http://localhost".into()]));
                server
            }
            "--drain-timeout-ms" => server.drain_timeout(Duration::from_millis(number()? as u64)),
            "--page-size" => server.page_size(number()?),
            "--max-in-flight" => server.max_in_flight(number()?),
            "--max-message-size" => server.max_message_size(number()?),
            "--private-tool-list-ms" => server.cache(
                Cacheable::ToolList,
                CachePolicy::new(Duration::from_millis(number()? as u64), CacheScope::Private),
            ),
            other => return Err(format!("unknown flag {other}").into()),
        };
    }
    let server = server.with_graceful_shutdown(mcp_runtime::termination_signal());
    match http {
        Some(addr) => server.serve_http_with(addr.as_str(), http_options(options, bearer_auth)).await?,
        None => server.serve_stdio().await?,
    }
    Ok(())
}
