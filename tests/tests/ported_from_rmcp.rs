//! The servers ported from rmcp as `#[mcp_server]` blocks (`examples/counter`, rmcp's counter
//! example; `examples/tool_router`, the ten-tool router of `bench/rmcp-sum`) served as programs
//! over stdio to the client, in both eras: the counter's methods count on the one instance the
//! program serves, and each of the router's ten tools adds.

use mcp_runtime::client::{Client, Era, Stderr};
use mcp_tests::example_binary;
use serde_json::json;

async fn spawn(name: &str, era: Era) -> Client {
    let program = example_binary(name);
    let program = program.to_str().expect("a UTF-8 path");
    let client = Client::builder().era(era).stderr(Stderr::Capture).spawn(program, std::iter::empty::<&str>()).await;
    client.unwrap_or_else(|e| panic!("{name} ({era:?}): {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ported_servers_answer_over_stdio_in_both_eras() {
    for era in [Era::Auto, Era::Handshake] {
        let counter = spawn("counter", era).await;
        for expected in ["1", "2"] {
            let result = counter.request("tools/call", json!({"name": "increment", "arguments": {}})).await;
            let result = result.unwrap_or_else(|e| panic!("{era:?}: {e}"));
            assert_eq!(result["content"][0]["text"], expected, "{era:?}: {result:#}");
        }
        counter.close().await.expect("the counter stops");

        let router = spawn("tool_router", era).await;
        let tools = router.list_tools().await.unwrap_or_else(|e| panic!("{era:?}: {e}"));
        assert_eq!(tools.len(), 10, "{era:?}");
        for tool in &tools {
            let arguments = json!({"name": tool.name, "arguments": {"a": 40, "b": 2}});
            let result = router.request("tools/call", arguments).await.unwrap_or_else(|e| panic!("{era:?}: {e}"));
            assert_eq!(result["content"][0]["text"], "42", "{era:?}: {result:#}");
        }
        router.close().await.expect("the router stops");
    }
}
