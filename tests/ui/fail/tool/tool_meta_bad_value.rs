use mcp_runtime::mcp_tool;

#[mcp_tool(meta(tags = [1, 2]))]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
