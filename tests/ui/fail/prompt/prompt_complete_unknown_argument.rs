use mcp_runtime::mcp_prompt;

#[mcp_prompt(complete(nmae = |typed| vec![typed.to_owned()]))]
fn greet(name: String) -> String {
    format!("Greet {name}")
}

fn main() {}
