use mcp_runtime::mcp_resource;

#[mcp_resource("catalog/books")]
fn books() -> &'static str {
    "[]"
}

fn main() {}
