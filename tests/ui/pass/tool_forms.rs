//! Every supported form of `#[mcp_tool]` compiles, and the functions stay callable.
#![deny(warnings)]

use mcp_runtime::protocol::{Content, ResourceContents};
use mcp_runtime::{CallToolResult, Context, Json, Server, Structured, mcp_tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    /// What to look for
    text: String,
    limit: Option<u32>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hits {
    hits: Vec<String>,
}

/// An async tool with documented parameters.
#[mcp_tool]
async fn async_tool(
    /// The first
    a: i64,
    /// The second, optional
    b: Option<i64>,
) -> String {
    (a + b.unwrap_or(0)).to_string()
}

/// A plain function.
#[mcp_tool]
fn sync_tool(text: String) -> String {
    text
}

/// No parameters, no return value.
#[mcp_tool]
fn nothing() {}

/// Arguments from one struct.
#[mcp_tool]
async fn flattened(#[mcp(flatten)] query: Query, ctx: Context) -> Json<Hits> {
    let _ = ctx.revision();
    Json(Hits { hits: vec![query.text; query.limit.unwrap_or(1) as usize] })
}

/// The context by reference, anywhere in the list.
#[mcp_tool]
async fn with_context(ctx: &Context, n: u8) -> Result<Structured<Hits>, String> {
    let _ = ctx.request_id();
    Ok(Json(Hits { hits: vec![n.to_string()] }).with_text("one hit"))
}

/// Every attribute key.
#[mcp_tool(
    name = "all-keys.v1",
    title = "All keys",
    description = "Overrides the doc comment",
    read_only,
    destructive = false,
    idempotent = true,
    open_world = false,
    icon = "https://example.com/icon.png",
    icon = "data:image/png;base64,AAAA",
    meta("com.example/flag" = true, level = 3, ratio = 0.5, label = "x"),
    input_schema = serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
    output_schema = serde_json::json!({"type": "object"}),
)]
fn all_keys(#[mcp(default)] x: i32) -> CallToolResult {
    CallToolResult::text(x.to_string())
}

/// Content blocks, renamed and defaulted arguments.
#[mcp_tool]
async fn blocks(#[mcp(rename = "type")] kind: String, #[mcp(default)] count: usize) -> Vec<Content> {
    let _ = count;
    vec![
        Content::text(kind),
        Content::resource(ResourceContents::Text { uri: "x://y".into(), mime_type: None, text: "t".into(), meta: None }),
    ]
}

/// A raw identifier becomes a plain name.
#[mcp_tool]
fn r#type(r#in: String) -> Result<String, std::io::Error> {
    Ok(r#in)
}

/// A local tool: its future holds an `Rc` across `.await`.
#[mcp_tool(local, read_only)]
async fn local_tool(n: u32) -> String {
    let held = std::rc::Rc::new(n);
    std::future::ready(()).await;
    held.to_string()
}

fn main() {
    assert_eq!(sync_tool("x".into()), "x");
    let _ = local_tool;
    assert_eq!(r#type("y".into()).unwrap(), "y");
    nothing();
    let _ = (async_tool(1, None), flattened, with_context, blocks);
    assert!(Server::new("forms", "1").validate().is_ok());
    let server = Server::builder("explicit", "1").tool(all_keys {}).tool(async_tool {});
    assert!(server.validate().is_ok());
}
