use std::future::Future;

use mcp_runtime::mcp_tool;

/// Counts slowly.
#[mcp_tool]
fn count() -> impl Future<Output = String> {
    async { "3".to_owned() }
}

fn main() {}
