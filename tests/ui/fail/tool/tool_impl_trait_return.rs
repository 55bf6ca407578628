use mcp_runtime::mcp_tool;

/// Described, so that the one mistake here is the only message.
#[mcp_tool]
fn count() -> impl std::fmt::Display {
    3
}

fn main() {}
