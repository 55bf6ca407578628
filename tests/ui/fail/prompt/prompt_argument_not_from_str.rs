use mcp_runtime::mcp_prompt;

struct Recipient {
    name: String,
}

/// Described, so that the one mistake here is the only message.
#[mcp_prompt]
fn greet(recipient: Recipient) -> String {
    format!("Greet {}", recipient.name)
}

fn main() {}
