use std::rc::Rc;

use mcp_runtime::mcp_tool;

async fn later() {}

/// Described, so that the one mistake here is the only message.
#[mcp_tool]
async fn count() -> String {
    let shared = Rc::new(1);
    later().await;
    shared.to_string()
}

fn main() {}
