use mcp_runtime::{Context, mcp_tool};

#[mcp_tool]
fn twice(first: Context, second: &Context) -> String {
    format!("{} {}", first.revision(), second.revision())
}

fn main() {}
