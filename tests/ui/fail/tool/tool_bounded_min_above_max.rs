use mcp_runtime::{Bounded, mcp_tool};

/// Picks a number.
#[mcp_tool]
fn pick(n: Bounded<10, 1>) -> String {
    n.get().to_string()
}

fn main() {}
