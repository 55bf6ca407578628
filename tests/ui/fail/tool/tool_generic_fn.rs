use mcp_runtime::mcp_tool;

#[mcp_tool]
fn echo<T: Into<String>>(text: T) -> String {
    text.into()
}

fn main() {}
