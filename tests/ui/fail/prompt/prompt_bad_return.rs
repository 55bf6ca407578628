use mcp_runtime::mcp_prompt;

#[mcp_prompt]
fn greet(name: String) -> u32 {
    name.len() as u32
}

fn main() {}
