use mcp_runtime::mcp_resource;

#[mcp_resource]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
