use mcp_runtime::mcp_prompt;

/// Greets someone.
#[mcp_prompt]
fn greet(#[mcp(scopes("people:read"))] name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
