use mcp_runtime::{Json, mcp_tool};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct Query {
    word: String,
    limit: u32,
}

/// Looks a word up.
#[mcp_tool]
async fn lookup(query: Json<Query>) -> String {
    let Json(query) = query;
    format!("{} ({})", query.word, query.limit)
}

fn main() {}
