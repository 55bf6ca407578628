//! The official MCP clients (TypeScript SDK 1.x and v2, Python SDK) against the `manual` example.

use std::process::Command;

use mcp_tests::clients::{node_client, node_v2_client, python_client, run_plan};
use mcp_tests::example_binary;
use serde_json::{Value, json};

/// Lists the tools, calls `add` and `echo`, and calls `add` with a bad argument; checks what
/// the client saw, connecting at `protocol_version`.
fn drive_manual(client: Command, protocol_version: &str) {
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "add", "arguments": {"a": 2, "b": 3}},
        {"op": "call_tool", "name": "echo", "arguments": {"text": "hello, wörld"}},
        {"op": "call_tool", "name": "add", "arguments": {"a": 2, "b": "x"}},
    ]);
    let lines = run_plan(client, &plan, &example_binary("manual"), &[]);
    let [connect, list, sum, echo, bad] = &lines[..] else {
        panic!("expected a connect line and 4 step lines, got {lines:#?}");
    };

    assert_eq!(connect["op"], "connect", "{connect}");
    assert_eq!(connect["serverVersion"]["name"], "manual", "{connect}");
    assert_eq!(connect["protocolVersion"], protocol_version, "{connect}");

    let tools = step_result(list, "list_tools")["tools"].as_array().expect("tools is an array");
    for (name, description, arguments) in
        [("echo", "Sends the text back unchanged", &["text"][..]), ("add", "Adds two integers", &["a", "b"])]
    {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool `{name}` in {tools:#?}"));
        assert_eq!(tool["description"], description, "{tool:#}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool:#}");
        for argument in arguments {
            assert!(tool["inputSchema"]["properties"].get(argument).is_some(), "{tool:#}");
        }
    }

    let sum = step_result(sum, "call_tool");
    assert_eq!(text(sum), "5", "{sum:#}");
    assert_ne!(sum["isError"], true, "{sum:#}");

    let echo = step_result(echo, "call_tool");
    assert_eq!(text(echo), "hello, wörld", "{echo:#}");
    assert_ne!(echo["isError"], true, "{echo:#}");

    let bad = step_result(bad, "call_tool");
    assert_eq!(bad["isError"], true, "{bad:#}");
    assert!(
        text(bad).split(|c: char| !c.is_alphanumeric() && c != '_').any(|word| word == "b"),
        "the error should name the argument `b`: {bad:#}"
    );
}

/// The `result` of a step line, after checking it is for `op` and did not fail.
fn step_result<'a>(line: &'a Value, op: &str) -> &'a Value {
    assert_eq!(line["op"], op, "{line:#}");
    assert!(line.get("error").is_none(), "step `{op}` failed: {line:#}");
    &line["result"]
}

/// The text content blocks of a tool result, joined.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content in {result:#}"))
        .iter()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[test]
fn typescript_sdk_drives_manual() {
    drive_manual(node_client(), "2025-11-25");
}

#[test]
fn python_sdk_drives_manual_with_the_handshake() {
    drive_manual(python_client(), "2025-11-25");
}

/// The Python SDK's own default: probe `server/discover`, which `manual` answers.
#[test]
fn python_sdk_drives_manual_in_auto_mode() {
    let mut client = python_client();
    client.args(["--mode", "auto"]);
    drive_manual(client, "2026-07-28");
}

/// The TypeScript SDK v2 pinned to 2026-07-28: `server/discover`, then `_meta` on every request.
#[test]
fn typescript_sdk_v2_drives_manual_in_modern_mode() {
    let mut client = node_v2_client();
    client.args(["--mode", "modern"]);
    drive_manual(client, "2026-07-28");
}
