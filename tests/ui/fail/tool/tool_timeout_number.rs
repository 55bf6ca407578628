use mcp_runtime::mcp_tool;

/// Renders a report.
#[mcp_tool(timeout = 30)]
async fn render() -> String {
    String::from("done")
}

fn main() {}
