//! GiftGen behind middleware: a rate limit per caller, an audit trail, and telemetry (a span
//! per request and the MCP histograms, exported over OTLP as `OTEL_*` says; `/metrics` and
//! `/healthz` beside `/mcp` when started with `--http ADDR`).

use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::middleware::{Audit, RateLimit};
use mcp_runtime::telemetry::Telemetry;

// GiftGen's tool, catalog and prompt, exactly as its own example declares them.
#[path = "../gift_genius/main.rs"]
#[allow(dead_code)]
mod gift_genius;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    Server::new("gift-genius", env!("CARGO_PKG_VERSION"))
        .telemetry(Telemetry::from_env("gift-genius")?) // outermost: it times the layers too
        .layer(Audit::new())
        .layer(RateLimit::per_caller(20, Duration::from_secs(1)).burst(40))
        .run()?;
    Ok(())
}
