use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", timeout = "1s")]
const README: &str = "# Readme";

fn main() {}
