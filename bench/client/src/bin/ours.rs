//! This framework's client: `tools/call` of `sum`, one call at a time, typed (`call_tool`,
//! the text read from the result), in memory or over stdio.

use client_bench::{Target, arguments, measure, server};
use mcp_runtime::client::{Client, Era};
use mcp_runtime::protocol::Content;
use serde_json::json;

// One thread, as `#[tokio::test]` runs a test (and as the rmcp client is run).
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (target, calls) = arguments();
    // The handshake era, as rmcp's client speaks it.
    let builder = Client::builder().era(Era::Handshake);
    let client = match target {
        Target::Memory => builder.memory(server()).await,
        Target::Stdio(program) => builder.spawn(&program, std::iter::empty::<&str>()).await,
    }
    .expect("connects");
    measure(calls, |n| {
        let client = &client;
        async move {
            let result = client.call_tool("sum", json!({"a": n, "b": 2})).await.expect("a result");
            match result.content.into_iter().next() {
                Some(Content::Text { text, .. }) => text,
                other => panic!("a text result, got {other:?}"),
            }
        }
    })
    .await;
    client.close().await.expect("closes");
}
