//! Every supported form of `#[mcp_resource]` compiles, the functions stay callable, and each
//! form serves a real read as it declares.
#![deny(warnings)]

use mcp_runtime::protocol::Revision;
use mcp_runtime::protocol::{Resource, ResourceContents};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{Bounded, CompletionContext, Context, Json, ResourceNotFound, ReadError, ResourceDescriptor, Server, mcp_resource};
use serde_json::json;

/// A constant is a fixed resource.
#[mcp_resource("docs://readme", name = "readme", mime = "text/markdown", size = 7, subscribe)]
const README: &str = "# Hello";

/// A plain function, every key.
#[mcp_resource(
    "docs://manual",
    title = "Manual",
    description = "Overrides the doc comment",
    mime = "text/plain; charset=utf-8",
    audience = "user",
    audience = "assistant",
    priority = 0.5,
    ttl_ms = 5000,
    cache_scope = "private",
    icon = "https://example.com/icon.png",
    meta(version = 2)
)]
fn manual() -> String {
    "manual".to_owned()
}

/// Binary contents.
#[mcp_resource("files://logo.png", mime = "image/png")]
fn logo() -> Vec<u8> {
    vec![137, 80, 78, 71]
}

/// A template with typed variables, a context, async, and a `Result` with `ResourceNotFound`.
#[mcp_resource("shop://orders/{id}/lines/{line}", list = all_orders, complete(line = complete_line))]
async fn order_line(id: u32, ctx: &Context, line: u8) -> Result<Json<Vec<u32>>, ReadError> {
    let _ = ctx.revision();
    if id == 0 { Err(ResourceNotFound.into()) } else { Ok(Json(vec![id, u32::from(line)])) }
}

fn all_orders() -> Vec<Resource> {
    vec![Resource::new("shop://orders/1/lines/1", "order 1, line 1")]
}

fn complete_line(typed: &str, context: &CompletionContext) -> Vec<String> {
    let _ = context.resolved("id");
    vec![typed.to_owned()]
}

/// A read whose `Err` is any error a tool may return (`Display`), here `std::io::Error`.
#[mcp_resource("files://settings")]
fn settings() -> Result<String, std::io::Error> {
    std::fs::read_to_string("/nonexistent/settings.toml")
}

/// Reserved expansion and several contents.
#[mcp_resource("file:///{+path}", complete(path = |typed| vec![format!("{typed}/")]))]
fn file(path: String) -> Vec<ResourceContents> {
    vec![ResourceContents::text(format!("file:///{path}"), None, "text")]
}

/// A template variable limited to a range: out of it, the read is an error naming the range.
#[mcp_resource("catalog://page/{n}")]
fn page(n: Bounded<1, 100>) -> String {
    format!("page {n}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    assert_eq!(README, "# Hello");
    assert_eq!(manual(), "manual");
    assert_eq!(logo().len(), 4);
    let _ = (order_line, file, page);
    let described = ResourceDescriptor::declared(order_line).unwrap();
    assert_eq!(described.uri(), "shop://orders/{id}/lines/{line}");

    // Every form serves a real read, in a handshake revision and in 2026-07-28.
    for revision in [Revision::LATEST_HANDSHAKE, Revision::V2026_07_28] {
        let client = TestClient::connect_as(Server::new("forms", "1"), revision).await.expect("the server starts");
        let resources = client.list_resources().await.expect("a listing");
        let uris: Vec<&str> = resources.iter().filter_map(|r| r["uri"].as_str()).collect();
        assert_eq!(uris, ["docs://manual", "docs://readme", "files://logo.png", "files://settings", "shop://orders/1/lines/1"]);
        let manual = &resources[0];
        assert_eq!((&manual["title"], &manual["description"]), (&json!("Manual"), &json!("Overrides the doc comment")));
        assert_eq!(manual["annotations"], json!({"audience": ["user", "assistant"], "priority": 0.5}));
        assert_eq!(
            (&manual["icons"][0]["src"], &manual["_meta"]),
            (&json!("https://example.com/icon.png"), &json!({"version": 2}))
        );
        let readme = &resources[1];
        assert_eq!(
            (&readme["name"], &readme["size"], &readme["mimeType"]),
            (&json!("readme"), &json!(7), &json!("text/markdown"))
        );

        let templates = client.list_resource_templates().await.expect("a listing");
        let templates: Vec<&str> = templates.iter().filter_map(|t| t["uriTemplate"].as_str()).collect();
        assert_eq!(templates, ["catalog://page/{n}", "file:///{+path}", "shop://orders/{id}/lines/{line}"]);

        let read = |uri: &'static str| {
            let client = &client;
            async move { client.read_resource(uri).await.unwrap_or_else(|e| panic!("{uri}: {e}")) }
        };
        assert_eq!(read("docs://readme").await["contents"][0]["text"], "# Hello");
        let manual = read("docs://manual").await;
        assert_eq!(manual["contents"][0]["text"], "manual");
        if revision == Revision::V2026_07_28 {
            assert_eq!((&manual["ttlMs"], &manual["cacheScope"]), (&json!(5000), &json!("private")));
        }
        assert_eq!(read("files://logo.png").await["contents"][0]["blob"], "iVBORw==");
        assert_eq!(read("shop://orders/3/lines/4").await["contents"][0]["text"], "[3,4]");
        assert!(client.read_resource("shop://orders/0/lines/4").await.expect_err("not found").rpc().is_some());
        assert!(client.read_resource("shop://orders/x/lines/4").await.expect_err("not a u32").rpc().is_some());
        assert_eq!(read("catalog://page/7").await["contents"][0]["text"], "page 7");
        let out_of_range = client.read_resource("catalog://page/700").await.expect_err("out of range");
        let error = out_of_range.rpc().expect("a JSON-RPC error");
        assert!(error.message.contains("700 is out of range: give a number from 1 to 100"), "{error:?}");
        assert_eq!(read("file:///a/b").await["contents"][0]["uri"], "file:///a/b");
        let unreadable = client.read_resource("files://settings").await.expect_err("no such file");
        let error = unreadable.rpc().expect("a JSON-RPC error");
        assert_eq!(error.code, -32603, "{error:?}");
        assert!(error.message.contains("No such file"), "{error:?}");

        let order = json!({"type": "ref/resource", "uri": "shop://orders/{id}/lines/{line}"});
        assert_eq!(client.complete(order, "line", "2").await.expect("values"), ["2"]);
        let path = json!({"type": "ref/resource", "uri": "file:///{+path}"});
        assert_eq!(client.complete(path, "path", "src").await.expect("values"), ["src/"]);
        if revision == Revision::LATEST_HANDSHAKE {
            client.request("resources/subscribe", json!({"uri": "docs://readme"})).await.expect("subscribable");
        }
        client.close().await.expect("the server stops cleanly");
    }

    // A server that names its resources serves those alone.
    let server = Server::builder("explicit", "1").resource(logo).resource(file);
    let client = TestClient::connect(server).await.expect("the server starts");
    let resources = client.list_resources().await.expect("a listing");
    assert_eq!(resources.iter().map(|r| &r["uri"]).collect::<Vec<_>>(), [&json!("files://logo.png")]);
    let templates = client.list_resource_templates().await.expect("a listing");
    assert_eq!(templates.iter().map(|t| &t["uriTemplate"]).collect::<Vec<_>>(), [&json!("file:///{+path}")]);
    // A `const` is a `&str` like any other: it cannot select its declaration.
    let refused = Server::builder("explicit", "1").resource(README).validate().expect_err("a string is not a resource");
    assert!(refused.to_string().contains("`&str`, which is not a resource"), "{refused}");
    client.close().await.expect("the server stops cleanly");
}
