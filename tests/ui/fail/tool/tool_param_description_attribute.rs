use mcp_runtime::mcp_tool;

/// Searches.
#[mcp_tool]
fn search(#[description = "What to look for"] query: String) -> String {
    query
}

fn main() {}
