use mcp_runtime::{mcp_tool, starting_with};

/// Looks a city up.
#[mcp_tool(complete(city = |typed| starting_with(typed, ["Paris", "Lima"])))]
fn weather(city: String) -> String {
    city
}

fn main() {}
