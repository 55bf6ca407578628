use mcp_runtime::Server;
use mcp_runtime::middleware::{McpRequest, Next, from_fn};

fn main() {
    let _server = Server::builder("gifts", "1.0.0").layer(from_fn(|next: Next, request: McpRequest| async move {
        next.run(request).await
    }));
}
