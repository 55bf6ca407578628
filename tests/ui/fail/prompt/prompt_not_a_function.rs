use mcp_runtime::mcp_prompt;

#[mcp_prompt]
const GREETING: &str = "Hello";

fn main() {}
