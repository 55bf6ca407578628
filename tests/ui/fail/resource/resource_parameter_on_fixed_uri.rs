use mcp_runtime::mcp_resource;

#[mcp_resource("gifts://catalog")]
fn catalog(category: String) -> String {
    category
}

fn main() {}
