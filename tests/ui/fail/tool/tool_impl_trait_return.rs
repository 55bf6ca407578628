use mcp_runtime::mcp_tool;

#[mcp_tool]
fn count() -> impl std::fmt::Display {
    3
}

fn main() {}
