use std::future::Future;
use std::pin::Pin;

use mcp_runtime::mcp_prompt;

/// Greets.
#[mcp_prompt]
fn greet(name: String) -> Pin<Box<dyn Future<Output = String> + Send>> {
    Box::pin(async move { format!("Greet {name}.") })
}

fn main() {}
