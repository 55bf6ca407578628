use mcp_runtime::mcp_tool;

/// Looks a word up.
#[mcp_tool]
fn lookup(#[schemars(description = "The word to look up")] word: String) -> String {
    word
}

fn main() {}
