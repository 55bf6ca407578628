use mcp_runtime::mcp_tool;

/// Reads a row with a synchronous database call.
#[mcp_tool(local)]
fn lookup(id: u32) -> String {
    id.to_string()
}

fn main() {}
