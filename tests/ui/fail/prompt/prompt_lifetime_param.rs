use mcp_runtime::mcp_prompt;

/// Greets someone.
#[mcp_prompt]
fn greet<'a>(name: &'a str) -> String {
    format!("Greet {name}.")
}

fn main() {}
