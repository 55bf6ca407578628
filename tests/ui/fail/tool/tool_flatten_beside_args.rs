use mcp_runtime::mcp_tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    text: String,
}

#[mcp_tool]
fn search(#[mcp(flatten)] query: Query, limit: u32) -> String {
    format!("{} {limit}", query.text)
}

fn main() {}
