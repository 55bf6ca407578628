use mcp_runtime::mcp_tool;

/// Renders the page.
#[mcp_tool(mime = "text/html")]
fn render() -> String {
    String::new()
}

fn main() {}
