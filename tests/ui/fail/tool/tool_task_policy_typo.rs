use mcp_runtime::prelude::*;

/// Builds the report.
#[mcp_tool(task = "requried")]
async fn report() -> String {
    "done".into()
}

fn main() {}
