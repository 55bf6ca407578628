use mcp_runtime::mcp_resource;

/// The readme.
#[mcp_resource("docs://readme")]
static README: &str = "Read me.";

fn main() {}
