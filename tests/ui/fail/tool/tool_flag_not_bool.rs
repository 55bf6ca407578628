use mcp_runtime::mcp_tool;

#[mcp_tool(read_only = "yes")]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
