use mcp_runtime::mcp_tool;

/// Looks a word up.
#[mcp_tool]
fn lookup(#[mcp(description = "The word to look up")] word: String) -> String {
    word
}

fn main() {}
