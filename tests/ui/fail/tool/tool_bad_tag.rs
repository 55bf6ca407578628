use mcp_runtime::mcp_tool;

#[mcp_tool(tags("admin", "two words", 3, ""))]
fn ping() -> &'static str {
    "pong"
}

fn main() {}
