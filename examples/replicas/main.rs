//! One server, several instances behind a load balancer (see the README's "Deploying"),
//! configured from the environment as a container is:
//!
//! - `MCP_LISTEN`: where to serve Streamable HTTP (default `127.0.0.1:8080`);
//! - `MCP_INSTANCE`: this instance's tag, which starts the session ids it mints, so that a
//!   load balancer can route each session to the instance that opened it;
//! - `MCP_REDIS_URL`: a Redis the instances share, for the change bus, the events of
//!   resumable streams and the tasks (`report` and `sign` run as tasks);
//! - `MCP_SESSIONS=shared`: keep the handshake-era sessions in that Redis too, so that any
//!   instance serves any session (otherwise each instance keeps its own: route with
//!   affinity);
//! - `MCP_REQUEST_STATE_KEY`: 64 hex digits, the same on every instance, so that an
//!   input-required retry (2026-07-28) is accepted wherever it lands.

use mcp_runtime::asking::{AskError, Elicitation};
use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::redis::Redis;
use mcp_runtime::{ItemKind, ServerHandle};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// This instance's tag, for its answers.
struct Instance(String);

/// Names the instance that answered.
#[mcp_tool(read_only)]
fn whoami(instance: State<Instance>) -> String {
    instance.0.clone()
}

/// Adds two integers.
#[mcp_tool(read_only)]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// The news board, as the instance that reads it sees it.
#[mcp_resource("board://news", mime = "text/plain", subscribe)]
fn news(instance: State<Instance>) -> String {
    format!("Nothing new (read on {})", instance.0)
}

/// Says the news board changed: its subscribers hear it, whichever instance serves them.
#[mcp_tool]
fn announce(server: State<ServerHandle>) -> Result<String, String> {
    server.resource_updated("board://news").map_err(|e| e.to_string())?;
    Ok("announced".to_owned())
}

/// Takes the news board off the resource list, or puts it back: every instance applies it
/// (the change is replicated by name), and every client hears that the list changed.
#[mcp_tool]
fn shelve(server: State<ServerHandle>, shelved: bool) -> Result<String, String> {
    let done = if shelved {
        server.disable(ItemKind::Resource, "board://news")
    } else {
        server.enable(ItemKind::Resource, "board://news")
    };
    done.map_err(|e| e.to_string())?;
    Ok(if shelved { "shelved" } else { "back" }.to_owned())
}

/// The user's answer to `greet`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// What to call you
    name: String,
}

/// Greets the user by the name they give when asked.
#[mcp_tool]
async fn greet(ctx: Context, instance: State<Instance>) -> Result<String, AskError> {
    tracing::info!("greet asks for a name");
    match ctx.elicit::<Name>("What should I call you?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name} (from {})", instance.0)),
        _ => Ok("Hello, stranger".to_owned()),
    }
}

/// A report written in `steps` steps of `step_ms` milliseconds, run as a task when the client
/// asks (the tasks extension): any instance reads and cancels it, the work stays where it began.
#[mcp_tool(task = "optional")]
async fn report(ctx: Context, instance: State<Instance>, steps: u32, step_ms: u64) -> String {
    let mut ended = ReportEnded { steps, done: 0 };
    for step in 1..=steps {
        tokio::time::sleep(std::time::Duration::from_millis(step_ms)).await;
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(&format!("step {step} of {steps}"))).await;
        ended.done = step;
    }
    format!("Report of {steps} steps (written on {})", instance.0)
}

/// Says (at `info`) when a report's handler ends, finished or dropped when cancelled: after
/// that line, it reports no more progress.
struct ReportEnded {
    steps: u32,
    done: u32,
}

impl Drop for ReportEnded {
    fn drop(&mut self) {
        tracing::info!("a report of {} steps ended after step {}", self.steps, self.done);
    }
}

/// Asks for a name inside a task: the answer (`tasks/update`) may reach any instance.
#[mcp_tool(task = "required")]
async fn sign(ctx: Context, instance: State<Instance>) -> Result<String, AskError> {
    match ctx.elicit::<Name>("Who signs the report?").await? {
        Elicitation::Accept(Name { name }) => Ok(format!("Signed by {name} (on {})", instance.0)),
        _ => Ok("Not signed".to_owned()),
    }
}

/// 64 hex digits as a key.
fn parse_key(hex: &str) -> Result<[u8; 32], BoxError> {
    let mut key = [0u8; 32];
    if hex.len() != 64 {
        return Err("MCP_REQUEST_STATE_KEY must be 64 hex digits".into());
    }
    for (byte, pair) in key.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair)?, 16)?;
    }
    Ok(key)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    // What `RUST_LOG` asks for (warnings and errors when unset), to standard error.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_env_filter(filter).init();
    let env = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
    let tag = env("MCP_INSTANCE").unwrap_or_else(|| "solo".to_owned());
    let listen = env("MCP_LISTEN").unwrap_or_else(|| "127.0.0.1:8080".to_owned());

    // Lists change at run time (`shelve`).
    let mut server = Server::new("replicas", env!("CARGO_PKG_VERSION")).state(Instance(tag.clone())).dynamic_lists();
    let handle = server.handle();
    server = server.state(handle);
    // Behind a proxy that checks the Host and Origin it accepts.
    let mut options =
        HttpOptions::default().allowed_hosts(Allowed::Any).allowed_origins(Allowed::Any).instance_tag(&tag);
    if let Some(key) = env("MCP_REQUEST_STATE_KEY") {
        server = server.request_state_key(parse_key(&key)?);
    }
    if let Some(url) = env("MCP_REDIS_URL") {
        let redis = Redis::connect(&url).await?;
        server = server.change_bus(redis.change_bus().await?).task_store(redis.task_store());
        options = options.event_store(redis.event_store());
        if env("MCP_SESSIONS").as_deref() == Some("shared") {
            options = options.session_store(redis.session_store());
        }
    }
    server.serve_http_with(listen, options).await?;
    Ok(())
}
