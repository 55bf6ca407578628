use mcp_runtime::mcp_resource;

struct Category(String);

/// Described, so that the one mistake here is the only message.
#[mcp_resource("gifts://catalog/{category}")]
fn books(category: Category) -> String {
    category.0
}

fn main() {}
