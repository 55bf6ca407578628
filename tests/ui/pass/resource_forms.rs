//! Every supported form of `#[mcp_resource]` compiles, and the functions stay callable.
#![deny(warnings)]

use mcp_runtime::protocol::{Resource, ResourceContents};
use mcp_runtime::{CompletionContext, Context, Json, NotFound, ReadError, ResourceDescriptor, Server, mcp_resource};

/// A constant is a fixed resource.
#[mcp_resource("docs://readme", name = "readme", mime = "text/markdown", size = 7, subscribe)]
const README: &str = "# Hello";

/// A plain function, every key.
#[mcp_resource(
    "docs://manual",
    title = "Manual",
    description = "Overrides the doc comment",
    mime = "text/plain",
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

/// A template with typed variables, a context, async, and a `Result` with `NotFound`.
#[mcp_resource("shop://orders/{id}/lines/{line}", list = all_orders, complete(line = complete_line))]
async fn order_line(id: u32, ctx: &Context, line: u8) -> Result<Json<Vec<u32>>, ReadError> {
    let _ = ctx.revision();
    if id == 0 { Err(NotFound.into()) } else { Ok(Json(vec![id, u32::from(line)])) }
}

fn all_orders() -> Vec<Resource> {
    vec![Resource::new("shop://orders/1/lines/1", "order 1, line 1")]
}

fn complete_line(typed: &str, context: &CompletionContext) -> Vec<String> {
    let _ = context.resolved("id");
    vec![typed.to_owned()]
}

/// Reserved expansion and several contents.
#[mcp_resource("file:///{+path}", complete(path = |typed| vec![format!("{typed}/")]))]
fn file(path: String) -> Vec<ResourceContents> {
    vec![ResourceContents::text(format!("file:///{path}"), None, "text")]
}

fn main() {
    assert_eq!(README, "# Hello");
    assert_eq!(manual(), "manual");
    assert_eq!(logo().len(), 4);
    let _ = (order_line, file);
    assert!(Server::new("forms", "1").validate().is_ok());
    let described = ResourceDescriptor::from(order_line {});
    assert_eq!(described.uri(), "shop://orders/{id}/lines/{line}");
    let server = Server::builder("explicit", "1").resource(README {}).resource(file {});
    assert!(server.validate().is_ok());
}
