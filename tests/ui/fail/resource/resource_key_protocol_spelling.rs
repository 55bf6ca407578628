use mcp_runtime::mcp_resource;

/// The readme.
#[mcp_resource("docs://readme", cacheScope = "private")]
fn readme() -> String {
    String::new()
}

fn main() {}
