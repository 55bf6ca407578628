use mcp_runtime::mcp_resource;

#[mcp_resource("docs://{page}")]
const PAGE: &str = "page";

fn main() {}
