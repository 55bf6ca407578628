use mcp_runtime::mcp_resource;

const CATALOG_URI: &str = "gifts://catalog";

/// The catalog.
#[mcp_resource(CATALOG_URI, mime = "application/json")]
fn catalog() -> String {
    String::from("[]")
}

fn main() {
    let _ = CATALOG_URI;
}
