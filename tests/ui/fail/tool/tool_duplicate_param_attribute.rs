use mcp_runtime::mcp_tool;

#[mcp_tool]
fn greet(#[mcp(default, default)] name: String) -> String {
    name
}

fn main() {}
