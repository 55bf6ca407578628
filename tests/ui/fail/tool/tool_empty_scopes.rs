use mcp_runtime::mcp_tool;

/// Deletes a note.
#[mcp_tool(scopes())]
fn delete(id: u64) -> String {
    format!("deleted {id}")
}

fn main() {}
