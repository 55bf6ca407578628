use mcp_runtime::mcp_prompt;

#[mcp_prompt(titel = "Greeting")]
fn greet(name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
