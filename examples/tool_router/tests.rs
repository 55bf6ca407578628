//! The ten tools answer as rmcp's router does (`bench/rmcp-sum --tools 10`), in every revision;
//! their schemas leave out the `"format": "int64"` rmcp writes, which the runtime drops from
//! every schema (a Rust type's name, not a JSON Schema format).

use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn ten_tools_add_two_integers_as_rmcps_do() {
    for revision in Revision::ALL {
        let client = TestClient::connect_as(super::server(), revision).await.expect("the server starts");
        let tools = client.list_tools().await.expect("a listing");
        let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        names.sort_unstable();
        let mut rmcps: Vec<String> = (1..10).map(|n| format!("extra_{n}")).collect();
        rmcps.push("sum".to_owned());
        assert_eq!(names, rmcps, "{revision:?}");
        for tool in &tools {
            assert_eq!(tool["description"], "Adds two integers", "{tool:#}");
            let schema = &tool["inputSchema"];
            assert_eq!(schema["type"], "object", "{tool:#}");
            assert_eq!(schema["required"], json!(["a", "b"]), "{tool:#}");
            for field in ["a", "b"] {
                assert_eq!(schema["properties"][field]["type"], "integer", "{tool:#}");
                assert!(schema["properties"][field].get("format").is_none(), "{tool:#}");
            }
            let name = tool["name"].as_str().expect("a name");
            let result = client.call_tool(name, json!({"a": 40, "b": 2})).await.expect("a result");
            assert_eq!(result["content"], json!([{"type": "text", "text": "42"}]), "{name}: {result:#}");
        }
        let missing = client.request("tools/call", json!({"name": "sum", "arguments": {"a": 1}})).await;
        assert!(missing.is_err() || missing.as_ref().is_ok_and(|r| r["isError"] == true), "{missing:?}");
        client.close().await.expect("the server stops cleanly");
    }
}
