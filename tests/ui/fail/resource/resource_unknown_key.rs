use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", mim = "text/markdown")]
fn readme() -> &'static str {
    "# Read me"
}

fn main() {}
