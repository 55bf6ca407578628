use mcp_runtime::mcp_tool;

#[mcp_tool(name = "look up")]
fn lookup() -> &'static str {
    "found"
}

fn main() {}
