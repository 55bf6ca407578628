use mcp_runtime::mcp_resource;
use mcp_runtime::protocol::Role;

/// The readme.
#[mcp_resource("docs://readme", audience = Role::User)]
fn readme() -> String {
    String::new()
}

fn main() {}
