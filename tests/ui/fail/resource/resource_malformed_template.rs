use mcp_runtime::mcp_resource;

#[mcp_resource("gifts://catalog/{category")]
fn books(category: String) -> String {
    category
}

fn main() {}
