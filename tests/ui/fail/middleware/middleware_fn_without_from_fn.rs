use mcp_runtime::Server;
use mcp_runtime::middleware::{BoxError, McpRequest, McpResponse, Next};

async fn log(request: McpRequest, next: Next) -> Result<McpResponse, BoxError> {
    eprintln!("{}", request.method());
    next.run(request).await
}

fn main() {
    let _server = Server::builder("gifts", "1.0.0").layer(log);
}
