use mcp_runtime::mcp_tool;

/// Joins words.
#[mcp_tool]
fn join(words: Vec<&str>) -> String {
    words.join(" ")
}

fn main() {}
