use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", cache_scope = "shared")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
