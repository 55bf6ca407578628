use mcp_runtime::mcp_tool;

#[mcp_tool]
struct Ping;

fn main() {}
