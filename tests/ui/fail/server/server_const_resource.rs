use mcp_runtime::prelude::*;

struct Docs;

#[mcp_server]
impl Docs {
    /// The readme.
    #[mcp_resource("docs://readme")]
    const README: &'static str = "# Docs";
}

fn main() {}
