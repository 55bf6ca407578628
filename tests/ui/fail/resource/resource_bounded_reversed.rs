use mcp_runtime::{Bounded, mcp_resource};

/// One page of the catalog.
#[mcp_resource("catalog://page/{n}")]
fn page(n: Bounded<100, 1>) -> String {
    format!("page {n}")
}

fn main() {}
