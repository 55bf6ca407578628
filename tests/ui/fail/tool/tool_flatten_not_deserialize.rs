use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Search {
    query: String,
}

/// Searches.
#[mcp_tool]
fn search(#[mcp(flatten)] args: Search) -> String {
    args.query
}

fn main() {}
