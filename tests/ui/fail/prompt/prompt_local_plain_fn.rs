use mcp_runtime::mcp_prompt;

/// Greets someone.
#[mcp_prompt(local = true)]
fn greet(name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
