use mcp_runtime::mcp_tool;

#[mcp_tool(title = 5)]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
