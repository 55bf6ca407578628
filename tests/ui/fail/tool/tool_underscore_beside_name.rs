use mcp_runtime::mcp_tool;

/// Adds.
#[mcp_tool]
fn add(x: u32, _x: u32) -> String {
    x.to_string()
}

fn main() {}
