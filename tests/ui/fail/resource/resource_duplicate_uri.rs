use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", uri = "docs://other")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
