use mcp_runtime::mcp_prompt;

/// Summarizes.
#[mcp_prompt(read_only)]
fn summarize(text: String) -> String {
    text
}

fn main() {}
