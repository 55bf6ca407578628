use mcp_runtime::mcp_resource;

#[mcp_resource("stats://count")]
fn count() -> u64 {
    3
}

fn main() {}
