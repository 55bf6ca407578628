use mcp_runtime::mcp_prompt;

struct Recipient {
    name: String,
}

#[mcp_prompt]
fn greet(recipient: Recipient) -> String {
    format!("Greet {}", recipient.name)
}

fn main() {}
