use mcp_runtime::mcp_prompt;

fn names() -> Vec<String> {
    vec!["Ada".to_owned(), "Grace".to_owned()]
}

/// Greets someone.
#[mcp_prompt(complete(name = names))]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
