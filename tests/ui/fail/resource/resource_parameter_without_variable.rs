use mcp_runtime::mcp_resource;

#[mcp_resource("gifts://catalog/{category}")]
fn books(category: String, page: u32) -> String {
    format!("{category} {page}")
}

fn main() {}
