use mcp_runtime::mcp_tool;

#[mcp_tool(read_onyl)]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
