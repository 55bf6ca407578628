use mcp_runtime::mcp_resource;

/// One item.
#[mcp_resource("items://{m}")]
fn item(n: String) -> String {
    n
}

fn main() {}
