use mcp_runtime::mcp_resource;
use mcp_runtime::protocol::Resource;

fn all() -> Vec<Resource> {
    Vec::new()
}

#[mcp_resource("docs://readme", list = all)]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
