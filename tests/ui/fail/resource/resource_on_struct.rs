use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme")]
struct Readme;

fn main() {}
