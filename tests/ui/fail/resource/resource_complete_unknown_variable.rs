use mcp_runtime::mcp_resource;

#[mcp_resource("gifts://catalog/{category}", complete(categry = |typed| vec![typed.to_owned()]))]
fn books(category: String) -> String {
    category
}

fn main() {}
