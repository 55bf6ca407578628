use mcp_runtime::mcp_tool;

#[mcp_tool]
fn greet(#[mcp(rename = kind)] kind: String) -> String {
    kind
}

fn main() {}
