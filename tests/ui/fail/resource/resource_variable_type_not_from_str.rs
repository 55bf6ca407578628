use mcp_runtime::mcp_resource;

struct Category(String);

#[mcp_resource("gifts://catalog/{category}")]
fn books(category: Category) -> String {
    category.0
}

fn main() {}
