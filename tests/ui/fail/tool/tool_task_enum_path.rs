use mcp_runtime::mcp_tool;
use mcp_runtime::tasks::TaskSupport;

/// Renders a report.
#[mcp_tool(task = TaskSupport::Optional)]
async fn render() -> String {
    String::from("done")
}

fn main() {}
