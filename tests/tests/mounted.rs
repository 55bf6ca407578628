//! The HTTP endpoint as an axum router mounted in an application of its own, beside the
//! application's routes and state: both answer on one listener.

use axum::extract::State;
use mcp_runtime::{Allowed, HttpOptions, Server, ToolDescriptor};
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
