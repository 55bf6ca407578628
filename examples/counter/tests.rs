//! The counter answers as rmcp's does, in every revision; one instance is shared by every
//! session, or each session has its own.

use mcp_runtime::client::Client;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

use super::{Counter, INSTRUCTIONS};
use mcp_runtime::Server;

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text result: {result:#}"))
}

#[tokio::test]
async fn the_tools_prompts_and_resources_answer_as_rmcps() {
    for revision in Revision::ALL {
        let server = Server::builder("counter", "1.0.0").instructions(INSTRUCTIONS).instance(Counter::default());
        let client = TestClient::connect_as(server, revision).await.expect("the server starts");
        // Derived from the methods, as rmcp's counter declares them by hand.
        let capabilities = client.server_capabilities().await.expect("capabilities");
        for kind in ["tools", "prompts", "resources"] {
            assert!(capabilities.get(kind).is_some(), "{revision:?}: {capabilities:#}");
        }
        assert!(capabilities.get("completions").is_none(), "{revision:?}: {capabilities:#}");
        let tools = client.list_tools().await.expect("a listing");
        let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        let rmcps = ["increment", "decrement", "get_value", "long_task", "say_hello", "echo", "sum", "get_session_id"];
        assert_eq!(tools.len(), rmcps.len(), "{revision:?}");
        for name in rmcps {
            assert!(tool(name)["description"].is_string(), "{revision:?}: {name}");
        }
        assert_eq!(tool("increment")["description"], "Increment the counter by 1");
        let sum = &tool("sum")["inputSchema"];
        assert_eq!(sum["required"], json!(["a", "b"]), "{sum:#}");
        assert_eq!(sum["properties"]["a"]["type"], "integer", "{sum:#}");
        assert_eq!(tool("echo")["inputSchema"]["type"], "object");

        let call = |name: &'static str, arguments: Value| {
            let client = &client;
            async move { client.call_tool(name, arguments).await.expect("a result") }
        };
        assert_eq!(text(&call("increment", json!({})).await), "1");
        assert_eq!(text(&call("increment", json!({})).await), "2");
        assert_eq!(text(&call("decrement", json!({})).await), "1");
        assert_eq!(text(&call("get_value", json!({})).await), "1");
        assert_eq!(text(&call("say_hello", json!({})).await), "hello");
        assert_eq!(text(&call("sum", json!({"a": 2, "b": 40})).await), "42");
        let echoed: Value = serde_json::from_str(text(&call("echo", json!({"x": 1, "y": "two"})).await)).expect("JSON");
        assert_eq!(echoed, json!({"x": 1, "y": "two"}));
        assert_eq!(text(&call("get_session_id", json!({})).await), "no session (not running over streamable HTTP?)");

        let prompts = client.list_prompts().await.expect("a listing");
        let prompt = |name: &str| prompts.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        let example = prompt("example_prompt");
        let message = json!([{"name": "message", "description": "A message to put in the prompt", "required": true}]);
        assert_eq!(example["arguments"], message);
        if revision >= Revision::V2025_06_18 {
            assert_eq!(example["_meta"]["meta_key"], "meta_value", "{revision:?}: {example:#}");
        }
        let analysis = prompt("counter_analysis");
        assert_eq!(analysis["arguments"][0]["name"], "goal");
        assert_eq!(analysis["arguments"][1]["name"], "strategy");
        assert_eq!(analysis["arguments"][1]["required"], false);
        let analysis = client.get_prompt("counter_analysis", json!({"goal": "20"})).await.expect("a prompt");
        assert_eq!(analysis["description"], "Counter analysis for reaching 20 from 1");
        assert_eq!(analysis["messages"][0]["role"], "assistant");
        assert!(analysis["messages"][1]["content"]["text"].as_str().is_some_and(|t| t.contains("Difference: 19")));
        let example = client.get_prompt("example_prompt", json!({"message": "hi"})).await.expect("a prompt");
        assert_eq!(
            example["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "This is an example prompt with your message here: 'hi'"}}])
        );

        let resources = client.list_resources().await.expect("a listing");
        let named = |name: &str| resources.iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!(named("cwd")["uri"], "str:////Users/to/some/path/");
        assert_eq!(named("memo-name")["uri"], "memo://insights");
        let memo = client.read_resource("memo://insights").await.expect("contents");
        assert!(memo["contents"][0]["text"].as_str().is_some_and(|t| t.starts_with("Business Intelligence Memo")));
        client.close().await.expect("the server stops cleanly");
    }
}

/// Serves `server` over HTTP on a free local port, returning its endpoint once it listens.
async fn serve_http(server: Server) -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    tokio::spawn(server.serve_http(("127.0.0.1", port)));
    let url = format!("http://127.0.0.1:{port}/mcp");
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return url;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the server does not listen at {url}");
}

async fn session(url: &str, revision: Revision) -> Client {
    Client::builder().revision(revision).http(url).await.expect("a session")
}

async fn increment(client: &Client) -> String {
    let result = client.request("tools/call", json!({"name": "increment", "arguments": {}})).await.expect("a result");
    text(&result).to_owned()
}

#[tokio::test]
async fn one_instance_is_shared_by_every_session() {
    let url = serve_http(Server::builder("counter", "1.0.0").instance(Counter::default())).await;
    let (first, second) =
        (session(&url, Revision::LATEST_HANDSHAKE).await, session(&url, Revision::LATEST_HANDSHAKE).await);
    assert_eq!(increment(&first).await, "1");
    assert_eq!(increment(&second).await, "2");
    let stateless = session(&url, Revision::LATEST).await;
    assert_eq!(increment(&stateless).await, "3");
}

#[tokio::test]
async fn each_session_counts_on_an_instance_of_its_own() {
    let url = serve_http(Server::builder("counter", "1.0.0").instance_per_session(Counter::default)).await;
    let (first, second) =
        (session(&url, Revision::LATEST_HANDSHAKE).await, session(&url, Revision::LATEST_HANDSHAKE).await);
    assert_eq!(increment(&first).await, "1");
    assert_eq!(increment(&first).await, "2");
    assert_eq!(increment(&second).await, "1");
    // A 2026-07-28 request over HTTP is a session of its own.
    let stateless = session(&url, Revision::LATEST).await;
    assert_eq!(increment(&stateless).await, "1");
    assert_eq!(increment(&stateless).await, "1");
}
