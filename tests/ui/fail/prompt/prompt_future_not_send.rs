use std::rc::Rc;

use mcp_runtime::mcp_prompt;

async fn later() {}

/// Holds an `Rc` across an `.await`.
#[mcp_prompt]
async fn count() -> String {
    let shared = Rc::new(1);
    later().await;
    shared.to_string()
}

fn main() {}
