use mcp_runtime::mcp_tool;

const NAME: &str = "look_up";

/// Looks a word up.
#[mcp_tool(name = NAME)]
fn lookup(word: String) -> String {
    word
}

fn main() {}
