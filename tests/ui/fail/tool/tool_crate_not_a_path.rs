use mcp_runtime::mcp_tool;

#[mcp_tool(crate = "not a path")]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
