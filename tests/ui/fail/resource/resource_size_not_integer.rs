use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", size = "large")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
