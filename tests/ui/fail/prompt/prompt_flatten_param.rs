use mcp_runtime::mcp_prompt;

#[mcp_prompt]
fn greet(#[mcp(flatten)] name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
