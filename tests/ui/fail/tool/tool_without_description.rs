#![deny(deprecated)]

use mcp_runtime::mcp_tool;

// Adds two integers. (A `//` comment where `///` was meant: the tool has no description.)
#[mcp_tool]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

fn main() {}
