use mcp_runtime::{Json, mcp_tool};

#[derive(serde::Serialize)]
struct Hits {
    hits: Vec<String>,
}

/// Searches.
#[mcp_tool]
fn search(query: String) -> Json<Hits> {
    Json(Hits { hits: vec![query] })
}

fn main() {}
