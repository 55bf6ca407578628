use mcp_runtime::mcp_prompt;

#[mcp_prompt]
fn greet(#[mcp(default)] name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
