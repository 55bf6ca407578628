use mcp_runtime::mcp_tool;

/// Lists the files.
#[mcp_tool(read_only, destructive)]
fn list_files() -> String {
    String::new()
}

fn main() {}
