use mcp_runtime::mcp_prompt;

struct Prompts;

impl Prompts {
    #[mcp_prompt]
    fn greet(&self, name: String) -> String {
        format!("Greet {name}")
    }
}

fn main() {}
