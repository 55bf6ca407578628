use mcp_runtime::mcp_tool;

/// Picks numbers.
#[mcp_tool]
fn pick(picks: Option<Vec<mcp_runtime::Bounded::<100, 0>>>) -> String {
    format!("{}", picks.unwrap_or_default().len())
}

fn main() {}
