use mcp_runtime::mcp_tool;

#[mcp_tool(title = "Ping", title = "Pong")]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
