//! The HTTP endpoint as an axum router mounted in an application of its own, beside the
//! application's routes and state: both answer on one listener.

use axum::extract::State;
use mcp_runtime::http::{Allowed, HttpOptions};
use mcp_runtime::{Server, ToolDescriptor};
use serde_json::{Value, json};

#[derive(Clone)]
struct AppState {
    greeting: &'static str,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endpoint_mounts_beside_the_applications_own_routes() {
    let options = HttpOptions::default().allowed_hosts(Allowed::Any).allowed_origins(Allowed::Any);
    let mcp = Server::builder("mounted", "1")
        .tool(ToolDescriptor::new("hello").handler(|_: Value| async { "hi from the mounted server" }))
        .http_router(options)
        .expect("a router");
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|State(state): State<AppState>| async move { state.greeting }))
        .with_state(AppState { greeting: "ok" })
        .merge(mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let answers = tokio::task::spawn_blocking(move || {
        let health = reqwest::blocking::get(format!("{url}/health")).unwrap().text().unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "hello", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
        let answer = mcp_tests::http::post(&format!("{url}/mcp"), &call, &[]);
        (health, answer)
    })
    .await
    .unwrap();
    assert_eq!(answers.0, "ok");
    assert_eq!(answers.1.last()["result"]["content"][0]["text"], "hi from the mounted server");
}

#[test]
fn a_mounted_endpoint_needs_explicit_allow_lists() {
    let refused = Server::builder("mounted", "1").http_router(HttpOptions::default()).unwrap_err();
    assert!(refused.to_string().contains("allow-list"), "{refused}");
}

/// Nested under a prefix, the endpoint's protected-resource metadata is a router of its own,
/// mounted at the origin's root (the well-known prefix goes before the endpoint's path), and
/// the challenge names it by the configured resource URI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_under_a_prefix_the_metadata_is_mounted_at_the_root() {
    use mcp_runtime::Identity;
    use mcp_runtime::http::{Authorization, Reject};
    let auth = Authorization::hook(|_headers| async { Err::<Identity, _>(Reject::new("no token here")) })
        .authorization_server("https://auth.example.com")
        .resource("https://mcp.example.com/api/mcp");
    let options = HttpOptions::default().allowed_hosts(Allowed::Any).allowed_origins(Allowed::Any).authorization(auth);
    let (mcp, metadata) = Server::builder("nested", "1")
        .tool(ToolDescriptor::new("hello").scope("greet").handler(|_: Value| async { "hi" }))
        .http_routers(options)
        .expect("the routers");
    let app = axum::Router::new().nest("/api", mcp).merge(metadata);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let (metadata, challenge) = tokio::task::spawn_blocking(move || {
        let metadata = reqwest::blocking::get(format!("{url}/.well-known/oauth-protected-resource/api/mcp")).unwrap();
        assert_eq!(metadata.status(), 200);
        let metadata: Value = serde_json::from_str(&metadata.text().unwrap()).unwrap();
        let refused = reqwest::blocking::Client::new()
            .post(format!("{url}/api/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            .send()
            .unwrap();
        assert_eq!(refused.status(), 401);
        (metadata, refused.headers()["www-authenticate"].to_str().unwrap().to_owned())
    })
    .await
    .unwrap();
    assert_eq!(metadata["resource"], "https://mcp.example.com/api/mcp");
    assert_eq!(metadata["scopes_supported"], json!(["greet"]));
    assert_eq!(
        challenge,
        "Bearer error=\"invalid_token\", error_description=\"no token here\", \
         resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp\""
    );
}
