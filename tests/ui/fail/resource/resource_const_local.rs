use mcp_runtime::mcp_resource;

#[mcp_resource("docs://readme", local)]
const README: &str = "# Readme";

fn main() {}
