use mcp_runtime::mcp_tool;

#[mcp_tool]
fn double(#[mcp(flatten)] n: u32) -> String {
    (n * 2).to_string()
}

fn main() {}
