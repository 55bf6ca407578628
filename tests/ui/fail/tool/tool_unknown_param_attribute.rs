use mcp_runtime::mcp_tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    text: String,
}

#[mcp_tool]
fn search(#[mcp(flaten)] query: Query) -> String {
    query.text
}

fn main() {}
