use mcp_runtime::mcp_tool;

/// Searches.
#[mcp_tool]
fn search(#[doc(alias = "q")] query: String) -> String {
    query
}

fn main() {}
