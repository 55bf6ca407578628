//! `sum(a, b)` on rmcp, written as its documentation and tests write a tool server: a tool
//! router stored in the server (built once), `#[tool_handler]` answering from it, the stdio
//! transport. `--tools N` adds `N - 1` more routes (`extra_1`, ...) to the same router.

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig, Tool};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

// One binary per transport build: `sum-rmcp` (stdio) and `sum-rmcp-http` (`--features http`).

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SumRequest {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct Sum {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Sum {
    /// Adds two integers.
    #[tool(description = "Adds two integers")]
    fn sum(&self, Parameters(SumRequest { a, b }): Parameters<SumRequest>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Sum {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools: usize = match std::env::args().skip_while(|a| a != "--tools").nth(1) {
        Some(n) => n.parse()?,
        None => 1,
    };
    let mut tool_router = Sum::tool_router();
    for n in 1..tools {
        let mut attr: Tool = Sum::sum_tool_attr();
        attr.name = format!("extra_{n}").into();
        tool_router.add_route(ToolRoute::new(attr, Sum::sum));
    }
    #[cfg(feature = "http")]
    if let Some(addr) = std::env::args().skip_while(|a| a != "--http").nth(1) {
        return serve_http(&addr, tool_router).await;
    }
    let service = Sum { tool_router }.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

/// Streamable HTTP at `/mcp`, as rmcp's tests mount it in axum.
#[cfg(feature = "http")]
async fn serve_http(addr: &str, tool_router: ToolRouter<Sum>) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

    let service: StreamableHttpService<Sum, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(Sum { tool_router: tool_router.clone() }),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    // With TCP_NODELAY: otherwise small SSE writes meet delayed ACKs, 40 ms a response.
    let listener = axum::serve::ListenerExt::tap_io(tokio::net::TcpListener::bind(addr).await?, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await?;
    Ok(())
}
