use mcp_runtime::mcp_prompt;

/// Greets.
#[mcp_prompt(complete(name = ["Ada", "Grace"]))]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
