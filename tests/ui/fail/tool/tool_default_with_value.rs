use mcp_runtime::mcp_tool;

/// Rolls dice.
#[mcp_tool]
fn roll(#[mcp(default = 6)] sides: u32) -> String {
    sides.to_string()
}

fn main() {}
