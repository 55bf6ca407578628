//! Over Streamable HTTP, a 2026-07-28 result that says how long it may be cached (`ttlMs`,
//! `cacheScope`: the lists, `server/discover`, resource reads) says it in `Cache-Control`
//! too, so that an HTTP cache in between agrees with the client; other results and errors
//! carry no caching header.

use std::time::Duration;

use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::{CachePolicy, CacheScope, Cacheable, PromptDescriptor, ResourceDescriptor, Server, ToolDescriptor};
use mcp_tests::http::stateless_headers;
use mcp_tests::wire::{STATELESS_REVISION, stateless_params};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// Serves a server whose tool list may be cached privately for 5 s and whose prompt list
/// must not be reused; its `/mcp` URL.
async fn serve() -> String {
    let server = Server::builder("cached", "1.0.0")
        .cache(Cacheable::ToolList, CachePolicy::new(Duration::from_secs(5), CacheScope::Private))
        .cache(Cacheable::PromptList, CachePolicy::no_cache(CacheScope::Public))
        .tool(ToolDescriptor::new("tidy").description("Tidies").handler(|_: NoArgs| async { "tidied" }))
        .resource(ResourceDescriptor::fixed("note://1", "first").reader(|_| async { "text" }))
        .prompt(PromptDescriptor::new("hello").description("Says hello").handler(|_| async { String::from("Hello") }));
    let options = HttpOptions::default().allowed_hosts(Allowed::Any).allowed_origins(Allowed::Any);
    let router = server.http_router(options).expect("a router");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// POSTs a 2026-07-28 request: the status, the `Cache-Control` header, the body.
fn modern(url: &str, method: &str, params: Value) -> (u16, Option<String>, Value) {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": stateless_params(Some(params), json!({}))});
    let mut request = reqwest::blocking::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", STATELESS_REVISION);
    for (name, value) in stateless_headers(&body) {
        request = request.header(name, value);
    }
    let response = request.body(body.to_string()).send().expect("an answer");
    let status = response.status().as_u16();
    let caching = response.headers().get("cache-control").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().expect("a body");
    (status, caching, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cacheable_results_say_so_in_cache_control() {
    let url = serve().await;
    tokio::task::spawn_blocking(move || {
        let (status, caching, body) = modern(&url, "tools/list", json!({}));
        assert_eq!(status, 200);
        assert_eq!(
            (body["result"]["ttlMs"].as_u64(), body["result"]["cacheScope"].as_str()),
            (Some(5_000), Some("private"))
        );
        assert_eq!(caching.as_deref(), Some("private, max-age=5"));

        let (_, caching, body) = modern(&url, "resources/list", json!({}));
        assert_eq!(body["result"]["ttlMs"], 60_000, "the default");
        assert_eq!(caching.as_deref(), Some("public, max-age=60"));

        let (_, caching, body) = modern(&url, "prompts/list", json!({}));
        assert_eq!(body["result"]["ttlMs"], 0);
        assert_eq!(caching.as_deref(), Some("public, no-cache"));

        let (_, caching, _) = modern(&url, "server/discover", json!({}));
        assert_eq!(caching.as_deref(), Some("public, max-age=60"));

        let (_, caching, body) = modern(&url, "tools/call", json!({"name": "tidy", "arguments": {}}));
        assert_eq!(body["result"]["content"][0]["text"], "tidied");
        assert_eq!(caching, None, "a tool call is not cacheable");

        let (_, caching, body) = modern(&url, "resources/read", json!({"uri": "note://1"}));
        assert_eq!(body["result"]["contents"][0]["text"], "text", "{body}");
        assert_eq!(body["result"]["ttlMs"], 60_000, "the default: {body}");
        assert_eq!(caching.as_deref(), Some("public, max-age=60"), "a read is cacheable as it says");

        let (_, caching, body) = modern(&url, "resources/read", json!({"uri": "note://nope"}));
        assert_eq!(body["error"]["code"], -32602, "an unknown resource, in 2026-07-28: {body}");
        assert_eq!(caching, None, "an error is not cacheable");
    })
    .await
    .unwrap();
}
