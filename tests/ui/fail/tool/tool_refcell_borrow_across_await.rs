use std::cell::RefCell;

use mcp_runtime::mcp_tool;

async fn later() {}

/// Counts what it has seen.
#[mcp_tool]
async fn count(word: String) -> String {
    let seen = RefCell::new(vec![word]);
    let list = seen.borrow();
    later().await;
    list.len().to_string()
}

fn main() {}
