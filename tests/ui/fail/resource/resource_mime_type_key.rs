use mcp_runtime::mcp_resource;

/// The catalog, as the builder API once spelled the key.
#[mcp_resource("gifts://catalog", mime_type = "application/json")]
fn catalog() -> String {
    "[]".into()
}

fn main() {}
