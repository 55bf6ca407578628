use mcp_runtime::{Json, mcp_prompt};

/// Greets someone.
#[mcp_prompt]
fn greet(name: Json<String>) -> String {
    format!("Greet {}.", name.0)
}

fn main() {}
