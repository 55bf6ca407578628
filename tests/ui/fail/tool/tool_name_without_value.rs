use mcp_runtime::mcp_tool;

#[mcp_tool(name)]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
