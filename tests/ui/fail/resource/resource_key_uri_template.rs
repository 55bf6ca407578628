use mcp_runtime::mcp_resource;

/// One user.
#[mcp_resource(uri_template = "users://{id}")]
fn user(id: String) -> String {
    id
}

fn main() {}
