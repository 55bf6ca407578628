use mcp_runtime::mcp_tool;

#[mcp_tool]
fn add((a, b): (i64, i64)) -> String {
    (a + b).to_string()
}

fn main() {}
