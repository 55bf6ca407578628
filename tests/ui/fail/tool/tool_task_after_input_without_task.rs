use mcp_runtime::prelude::*;

/// Builds the report.
#[mcp_tool(task_after_input)]
async fn report() -> String {
    "done".into()
}

fn main() {}
