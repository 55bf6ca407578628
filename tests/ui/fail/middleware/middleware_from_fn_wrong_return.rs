use mcp_runtime::Server;
use mcp_runtime::middleware::{McpRequest, Next, from_fn};

fn main() {
    let _server = Server::builder("gifts", "1.0.0").layer(from_fn(|request: McpRequest, next: Next| async move {
        let response = next.run(request).await;
        eprintln!("answered: {}", response.is_ok());
    }));
}
