use mcp_runtime::mcp_tool;

#[mcp_tool]
fn count() -> u64 {
    3
}

fn main() {}
