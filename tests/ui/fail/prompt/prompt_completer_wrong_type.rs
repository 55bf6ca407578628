use mcp_runtime::mcp_prompt;

/// Greets someone.
#[mcp_prompt(complete(name = |typed| typed.len()))]
fn greet(name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
