use std::rc::Rc;

use mcp_runtime::mcp_resource;

async fn load() -> String {
    String::from("# Readme")
}

/// The readme.
#[mcp_resource("docs://readme")]
async fn readme() -> String {
    let prefix = Rc::new(String::from("> "));
    let text = load().await;
    format!("{prefix}{text}")
}

fn main() {}
