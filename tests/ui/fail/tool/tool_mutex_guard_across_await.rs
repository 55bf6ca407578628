use std::sync::Mutex;

use mcp_runtime::{State, mcp_tool};

async fn later() {}

/// Counts, slowly.
#[mcp_tool]
async fn bump(counter: State<Mutex<u32>>) -> String {
    let mut count = counter.lock().unwrap();
    later().await;
    *count += 1;
    count.to_string()
}

fn main() {}
