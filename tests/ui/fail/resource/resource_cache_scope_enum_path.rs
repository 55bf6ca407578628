use mcp_runtime::{CacheScope, mcp_resource};

/// The readme.
#[mcp_resource("docs://readme", cache_scope = CacheScope::Private)]
fn readme() -> String {
    String::new()
}

fn main() {}
