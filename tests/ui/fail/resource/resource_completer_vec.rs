use mcp_runtime::mcp_resource;

/// One city's weather.
#[mcp_resource("weather://{city}", complete(city = vec!["Paris", "Lima"]))]
fn weather(city: String) -> String {
    city
}

fn main() {}
