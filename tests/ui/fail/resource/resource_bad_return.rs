use mcp_runtime::mcp_resource;

/// Described, so that the one mistake here is the only message.
#[mcp_resource("stats://count")]
fn count() -> u64 {
    3
}

fn main() {}
