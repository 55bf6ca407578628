use mcp_runtime::mcp_resource;

/// The notes, with a file extension where the MIME type goes.
#[mcp_resource("notes://all", mime = "txt")]
fn notes() -> &'static str {
    ""
}

fn main() {}
