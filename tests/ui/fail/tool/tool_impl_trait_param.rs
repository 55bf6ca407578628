use mcp_runtime::mcp_tool;

#[mcp_tool]
fn echo(text: impl Into<String>) -> String {
    text.into()
}

fn main() {}
