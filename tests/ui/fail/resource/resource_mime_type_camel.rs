use mcp_runtime::mcp_resource;

/// The catalog, with the key as the protocol spells the field.
#[mcp_resource("gifts://catalog", mimeType = "application/json")]
fn catalog() -> String {
    "[]".into()
}

fn main() {}
