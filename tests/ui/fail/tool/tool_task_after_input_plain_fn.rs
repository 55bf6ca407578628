use mcp_runtime::prelude::*;

/// Builds the report.
#[mcp_tool(task = "optional", task_after_input)]
fn report() -> String {
    "done".into()
}

fn main() {}
