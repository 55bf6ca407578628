//! `bench/rmcp-sum` run with `--tools 10` (rmcp's tool router of ten tools: `sum` and the
//! routes `extra_1` to `extra_9`, each adding two integers), ported: the router's `impl` block
//! is an `#[mcp_server]` block, and the nine routes are added as rmcp adds them, by name.

use mcp_runtime::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    a: i64,
    b: i64,
}

struct Sum;

#[mcp_server]
impl Sum {
    /// Adds two integers
    #[mcp_tool]
    fn sum(&self, #[mcp(flatten)] request: SumRequest) -> String {
        (request.a + request.b).to_string()
    }
}

fn server() -> Server {
    (1..10).fold(Server::new("sum", "0.0.0").instance(Sum), |server, n| {
        let route = ToolDescriptor::new(format!("extra_{n}")).description("Adds two integers");
        server.tool(route.handler(|request: SumRequest| async move { Sum.sum(request) }))
    })
}

fn main() -> mcp_runtime::Result<()> {
    server().run()
}

#[cfg(test)]
mod tests;
