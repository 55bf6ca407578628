use mcp_runtime::mcp_tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: i32,
}

/// Described, so that the one mistake here is the only message.
#[mcp_tool]
fn at(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
