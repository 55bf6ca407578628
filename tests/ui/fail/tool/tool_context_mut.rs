use mcp_runtime::{Context, mcp_tool};

/// Reports where it is.
#[mcp_tool]
async fn whereabouts(ctx: &mut Context) -> String {
    ctx.revision().to_string()
}

fn main() {}
