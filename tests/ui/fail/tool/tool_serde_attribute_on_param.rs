use mcp_runtime::mcp_tool;

#[mcp_tool]
fn greet(#[serde(default)] name: String) -> String {
    name
}

fn main() {}
