//! Every supported form of `#[mcp_tool]` compiles, the functions stay callable, and each form
//! serves a real call as it declares.
#![deny(warnings)]

use mcp_runtime::protocol::{Content, ResourceContents};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{CallToolResult, Context, Json, Server, Structured, mcp_tool};
use serde_json::json;

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
    meta("com.example/flag" = true, level = 3, ratio = 0.5, label = "x", ui(resourceUri = "ui://forms/page", "prefers-border" = true)),
    input_schema = serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}}}),
    output_schema = serde_json::json!({"type": "object"}),
)]
fn all_keys(#[mcp(default)] x: i32) -> CallToolResult {
    // The declared output schema asks for an object: the result carries one.
    CallToolResult { structured_content: Some(serde_json::json!({"x": x})), ..CallToolResult::text(x.to_string()) }
}

/// Content blocks, renamed and defaulted arguments.
#[mcp_tool]
async fn blocks(#[mcp(rename = "type")] kind: String, #[mcp(default)] count: usize) -> Vec<Content> {
    let _ = count;
    vec![
        Content::text(kind),
        Content::resource(ResourceContents::Text {
            uri: "x://y".into(),
            mime_type: None,
            text: "t".into(),
            meta: None,
        }),
    ]
}

#[mcp_tool(description = "Described in the attribute alone: no warning")]
fn attribute_described() -> &'static str {
    "described"
}

/// A raw identifier becomes a plain name.
#[mcp_tool]
fn r#type(r#in: String) -> Result<String, std::io::Error> {
    Ok(r#in)
}

mod my_impl {
    /// An output type in a module whose name contains `impl`.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    pub struct Out {
        pub n: u8,
    }
}

/// A return type whose path contains `impl` keeps its output schema.
#[mcp_tool]
fn impl_path() -> Json<my_impl::Out> {
    Json(my_impl::Out { n: 1 })
}

/// A local tool: its future holds an `Rc` across `.await`.
#[mcp_tool(local, read_only)]
async fn local_tool(n: u32) -> String {
    let held = std::rc::Rc::new(n);
    std::future::ready(()).await;
    held.to_string()
}

/// The text blocks of a tool result, joined.
fn text(result: &serde_json::Value) -> String {
    let blocks = result["content"].as_array().expect("content");
    blocks.iter().filter_map(|block| block["text"].as_str()).collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(sync_tool("x".into()), "x");
    let _ = local_tool;
    assert_eq!(r#type("y".into()).unwrap(), "y");
    nothing();
    let _ = (async_tool(1, None), flattened, with_context, blocks);

    // Every form serves a real call; the client checks arguments and structured results
    // against the schemas each form declares.
    let client = TestClient::connect(Server::new("forms", "1")).await.expect("the server starts");
    let tools = client.list_tools().await.expect("a listing");
    let names: Vec<&str> = tools.iter().filter_map(|tool| tool["name"].as_str()).collect();
    let declared = [
        "all-keys.v1",
        "async_tool",
        "attribute_described",
        "blocks",
        "flattened",
        "impl_path",
        "local_tool",
        "nothing",
        "sync_tool",
        "type",
        "with_context",
    ];
    assert_eq!(names, declared);
    let call = |name: &'static str, arguments: serde_json::Value| {
        let client = &client;
        async move { client.call_tool(name, arguments).await.unwrap_or_else(|e| panic!("{name}: {e}")) }
    };
    assert_eq!(text(&call("async_tool", json!({"a": 2, "b": 3})).await), "5");
    assert_eq!(text(&call("async_tool", json!({"a": 2})).await), "2");
    assert_eq!(text(&call("sync_tool", json!({"text": "hi"})).await), "hi");
    assert_eq!(call("nothing", json!({})).await["isError"], serde_json::Value::Null);
    let hits = call("flattened", json!({"text": "a", "limit": 2})).await;
    assert_eq!(hits["structuredContent"], json!({"hits": ["a", "a"]}));
    let hit = call("with_context", json!({"n": 7})).await;
    assert_eq!((text(&hit), &hit["structuredContent"]), ("one hit".to_owned(), &json!({"hits": ["7"]})));
    assert_eq!(text(&call("all-keys.v1", json!({"x": 4})).await), "4");
    assert_eq!(text(&call("all-keys.v1", json!({})).await), "0");
    let blocks = call("blocks", json!({"type": "kind"})).await;
    assert_eq!((&blocks["content"][0]["text"], &blocks["content"][1]["type"]), (&json!("kind"), &json!("resource")));
    assert_eq!(text(&call("type", json!({"in": "z"})).await), "z");
    let described = tools.iter().find(|tool| tool["name"] == "attribute_described").expect("listed");
    assert_eq!(described["description"], "Described in the attribute alone: no warning");
    assert_eq!(text(&call("local_tool", json!({"n": 9})).await), "9");
    let impl_path = tools.iter().find(|tool| tool["name"] == "impl_path").expect("listed");
    assert_eq!(impl_path["outputSchema"]["required"], json!(["n"]));
    assert_eq!(call("impl_path", json!({})).await["structuredContent"], json!({"n": 1}));
    client.close().await.expect("the server stops cleanly");

    // A server that names its tools serves those alone, as declared.
    let server = Server::builder("explicit", "1").tool(all_keys).tool(async_tool);
    let client = TestClient::connect(server).await.expect("the server starts");
    let tools = client.list_tools().await.expect("a listing");
    let all_keys = &tools[0];
    assert_eq!((tools.len(), &all_keys["name"], &tools[1]["name"]), (2, &json!("all-keys.v1"), &json!("async_tool")));
    assert_eq!(all_keys["title"], "All keys");
    assert_eq!(all_keys["description"], "Overrides the doc comment");
    let hints = json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false});
    assert_eq!(all_keys["annotations"], hints);
    assert_eq!(all_keys["icons"].as_array().map(Vec::len), Some(2));
    assert_eq!(all_keys["_meta"], json!({
        "com.example/flag": true, "level": 3, "ratio": 0.5, "label": "x",
        "ui": {"resourceUri": "ui://forms/page", "prefers-border": true},
    }));
    assert_eq!(all_keys["inputSchema"]["properties"]["x"]["type"], "integer");
    client.close().await.expect("the server stops cleanly");
}
