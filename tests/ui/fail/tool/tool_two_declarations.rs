use mcp_runtime::{mcp_prompt, mcp_tool};

/// Summarizes a text.
#[mcp_tool]
#[mcp_prompt]
fn summarize(text: String) -> String {
    text
}

fn main() {}
