use mcp_runtime::mcp_tool;

#[mcp_tool]
fn pair(#[mcp(rename = "b")] a: String, b: String) -> String {
    a + &b
}

fn main() {}
