use mcp_runtime::mcp_tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Color {
    Red,
    Blue,
}

/// Paints.
#[mcp_tool]
fn paint(#[mcp(default)] color: Color) -> String {
    match color {
        Color::Red => "red".into(),
        Color::Blue => "blue".into(),
    }
}

fn main() {}
