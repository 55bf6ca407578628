use mcp_runtime::Server;
use mcp_runtime::middleware::{McpRequest, Next};

fn main() {
    let _server = Server::builder("gifts", "1.0.0").layer(|request: McpRequest, next: Next| async move {
        eprintln!("{}", request.method());
        next.run(request).await
    });
}
