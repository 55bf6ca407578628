// Every mistake of one declaration is reported in one build.
use mcp_runtime::mcp_tool;

#[mcp_tool(nmae = "x", read_only = 1)]
fn several((a, b): (u8, u8), c: impl Into<String>) -> String {
    format!("{a}{b}{}", c.into())
}

fn main() {}
