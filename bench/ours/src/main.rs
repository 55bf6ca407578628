//! `sum(a, b)` on this framework. `--tools N` adds `N - 1` more tools (`extra_1`, ...), built
//! with the same builder the macro uses, to show that a call does not slow down with the
//! number of tools.

use mcp_runtime::ToolDescriptor;
use mcp_runtime::prelude::*;

/// Adds two integers.
#[mcp_tool]
fn sum(a: i64, b: i64) -> String {
    (a + b).to_string()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

fn main() -> mcp_runtime::Result<()> {
    let tools: usize = match std::env::args().skip_while(|a| a != "--tools").nth(1) {
        Some(n) => n.parse().expect("--tools takes a number"),
        None => 1,
    };
    // `--mounted`: `sum` served by a server mounted under `m` (as `m_sum`), for what mounting
    // costs a call.
    let mut server = match std::env::args().any(|a| a == "--mounted") {
        true => Server::builder("sum-ours", "0.0.0").mount("m", Server::new("sum", "0.0.0")),
        false => Server::new("sum-ours", "0.0.0"),
    };
    for n in 1..tools {
        let extra = ToolDescriptor::new(format!("extra_{n}"))
            .description("Adds two integers")
            .handler(|pair: Pair| async move { (pair.a + pair.b).to_string() });
        server = server.tool(extra);
    }
    // `--noop-layer`: one layer that passes every request on and does nothing else, for the
    // cost of the layers' path alone.
    if std::env::args().any(|a| a == "--noop-layer") {
        server = server
            .layer(mcp_runtime::middleware::from_fn(|request, next: mcp_runtime::middleware::Next| next.run(request)));
    }
    // `--http ADDR` (the `http` build) goes through the standard command line; `--tools`,
    // `--noop-layer` and `--mounted` are this benchmark's own, so stdio is served without reading them.
    if std::env::args().any(|a| a == "--http") { server.run() } else { server.run_stdio() }
}
