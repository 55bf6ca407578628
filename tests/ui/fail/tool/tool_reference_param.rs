use mcp_runtime::mcp_tool;

#[mcp_tool]
fn echo(text: &str) -> String {
    text.to_owned()
}

fn main() {}
