//! A server whose tools block their thread, as a synchronous database call does, served the
//! way users serve theirs: `run()` (stdio, or `--http ADDR`). A plain `fn` that blocks gets
//! another worker woken for its connection, so `ping`, cancellations and every async handler
//! go on meanwhile.
//!
//! `cargo run --release --example blocking` serves it on stdio; `--current-thread` serves
//! stdio on a current-thread runtime of its own instead (`Server::serve_stdio`).
//!
//! - `lookup(ms)`: a plain `fn` that blocks its thread `ms` milliseconds;
//!   `bounded_lookup(ms)`: the same under a 200 ms time limit.
//! - `wait(ms)`: an `async fn` that waits `ms` milliseconds (20 s calls are aborted at exit).
//! - `confirm_hold`: a `local` tool that holds the ledger's `std::sync::Mutex` while it asks
//!   the client to confirm (elicitation); `ledger_count`, a plain `fn`, waits for that mutex.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::asking::{AskError, Elicitation};
use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

/// A slow synchronous lookup: blocks its thread for `ms` milliseconds.
#[mcp_tool(read_only)]
fn lookup(ms: u64) -> String {
    // What the tests wait for to know the call runs (at `info`).
    tracing::info!("looking up for {ms} ms");
    std::thread::sleep(Duration::from_millis(ms));
    // What the tests wait for to know the body returned.
    tracing::info!("looked up in {ms} ms");
    format!("looked up in {ms} ms")
}

/// The same lookup under a 200 ms time limit: it runs on the blocking pool, and past the limit
/// it is answered at once while its thread goes on until the body returns.
#[mcp_tool(read_only, timeout = "200ms")]
fn bounded_lookup(ms: u64) -> String {
    lookup(ms)
}

/// Waits `ms` milliseconds without blocking a thread.
#[mcp_tool(read_only)]
async fn wait(ms: u64) -> String {
    // What the tests wait for to know the call runs.
    tracing::info!("waiting {ms} ms");
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("waited {ms} ms")
}

/// Entries written under a plain `std::sync::Mutex`, as a synchronous database handle is.
#[derive(Default)]
struct Ledger(Arc<Mutex<u32>>);

#[derive(Deserialize, JsonSchema)]
struct Confirmation {
    /// Whether to add the entry
    confirm: bool,
}

/// Asks the client to confirm while it holds the ledger's lock; adds an entry when confirmed.
#[mcp_tool(local)]
#[expect(
    clippy::await_holding_lock,
    reason = "the mistake this example reproduces: a plain `fn` waiting for this lock must not stall the connection"
)]
async fn confirm_hold(ctx: Context, ledger: State<Ledger>) -> Result<String, AskError> {
    let mut entries = ledger.0.lock().unwrap_or_else(|e| e.into_inner());
    let answer = ctx.elicit::<Confirmation>("Add an entry to the ledger?").await?;
    if matches!(answer, Elicitation::Accept(Confirmation { confirm: true })) {
        *entries += 1;
    }
    Ok(format!("{} entries", *entries))
}

/// Counts the ledger's entries, waiting for its lock.
#[mcp_tool(read_only)]
fn ledger_count(ledger: State<Ledger>) -> String {
    tracing::info!("counting the ledger's entries");
    let entries = ledger.0.lock().unwrap_or_else(|e| e.into_inner());
    format!("{} entries", *entries)
}

fn server() -> Server {
    Server::new("blocking", env!("CARGO_PKG_VERSION")).state(Ledger::default())
}

fn main() -> mcp_runtime::Result<()> {
    if std::env::args().any(|arg| arg == "--current-thread") {
        // What `RUST_LOG` asks for (nothing when unset), as `run()` does.
        if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
            tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_env_filter(filter).init();
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        return runtime.block_on(server().serve_stdio());
    }
    server().run()
}
