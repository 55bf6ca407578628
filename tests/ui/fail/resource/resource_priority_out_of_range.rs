use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", priority = 2.5)]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
