use mcp_runtime::mcp_resource;

/// One user.
#[mcp_resource("users://:id/profile")]
fn user(id: String) -> String {
    id
}

fn main() {}
