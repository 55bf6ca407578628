use mcp_runtime::mcp_prompt;

/// Described, so that the one mistake here is the only message.
#[mcp_prompt]
fn greet(name: String) -> u32 {
    name.len() as u32
}

fn main() {}
