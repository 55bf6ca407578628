use mcp_runtime::mcp_prompt;

/// Greets.
#[mcp_prompt]
fn greet(name: Option<&str>) -> String {
    format!("Greet {}.", name.unwrap_or("everyone"))
}

fn main() {}
