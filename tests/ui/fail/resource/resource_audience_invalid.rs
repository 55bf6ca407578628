use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", audience = "everyone")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
