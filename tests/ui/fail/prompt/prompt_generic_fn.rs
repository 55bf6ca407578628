use mcp_runtime::mcp_prompt;

#[mcp_prompt]
fn greet<T: std::fmt::Display>(name: T) -> String {
    format!("Greet {name}")
}

fn main() {}
