use mcp_runtime::mcp_tool;

/// Fetches a page.
#[mcp_tool(open_world_hint = true)]
fn fetch() -> String {
    String::new()
}

fn main() {}
