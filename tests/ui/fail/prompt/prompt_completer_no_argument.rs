use mcp_runtime::mcp_prompt;

/// Greets.
#[mcp_prompt(complete(name = || vec!["Ada".to_owned()]))]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
