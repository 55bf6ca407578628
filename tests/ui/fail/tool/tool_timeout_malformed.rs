use mcp_runtime::mcp_tool;

#[mcp_tool(timeout = "30 seconds")]
async fn slow() -> String {
    String::new()
}

fn main() {}
