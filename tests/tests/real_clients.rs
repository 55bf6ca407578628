//! The official MCP clients (TypeScript SDK 1.x and v2, Python SDK) against the `manual` example.

use std::process::Command;

use mcp_tests::clients::{node_client, node_v2_client, python_client, run_plan, with_mode};
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

/// Reports progress and logs from the `manual` example's context items, and checks that the
/// client received both: progress through its callback, log messages through its handler. In
/// the handshake era the level comes from `logging/setLevel`; in 2026-07-28 from the level
/// each request carries (`expect_logs` says whether this client sends one).
fn drive_talking_back(client: Command, era: &str, expect_logs: bool) {
    let mut plan = vec![];
    if era == "legacy" {
        plan.push(json!({"op": "set_logging_level", "level": "debug"}));
    }
    plan.extend([
        // Steps that take time, as real work does: the TypeScript v2 client (2.4.0) hands
        // notifications to their handlers a microtask later than responses, so progress that
        // arrives in the same read as its response finds the request already closed.
        json!({"op": "call_tool", "name": "progress", "arguments": {"steps": 3, "ms": 50}, "progress": true}),
        json!({"op": "call_tool", "name": "log", "arguments": {"level": "warning", "count": 2}}),
        json!({"op": "log_messages"}),
    ]);
    let server_args = ["--context-items", "--client-logging"];
    let lines = run_plan(client, &Value::Array(plan), &example_binary("manual"), &server_args);
    let steps = &lines[1..];
    let offset = usize::from(era == "legacy");
    if era == "legacy" {
        assert_eq!(step_result(&steps[0], "set_logging_level"), &json!({}), "{:#}", steps[0]);
    }
    let progress_step = &steps[offset];
    assert_eq!(text(step_result(progress_step, "call_tool")), "3 sent", "{progress_step:#}");
    let progress = progress_step["progress"].as_array().unwrap_or_else(|| panic!("{progress_step:#}"));
    let values: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
    assert_eq!(values, [1.0, 2.0, 3.0], "{progress_step:#}");
    assert_eq!(progress[2]["total"].as_f64(), Some(3.0));
    assert_eq!(progress[2]["message"], "step 3");
    let log_step = &steps[offset + 1];
    let expected_sent = if expect_logs { "2 sent" } else { "0 sent" };
    assert_eq!(text(step_result(log_step, "call_tool")), expected_sent, "{log_step:#}");
    let messages = step_result(&steps[offset + 2], "log_messages").as_array().expect("an array").clone();
    if expect_logs {
        assert_eq!(messages.len(), 2, "{messages:#?}");
        for (n, message) in messages.iter().enumerate() {
            assert_eq!(message["level"], "warning", "{message:#}");
            assert_eq!(message["data"], json!({"n": n}), "{message:#}");
        }
    } else {
        assert!(messages.is_empty(), "{messages:#?}");
    }
}

#[test]
fn typescript_sdk_v2_receives_progress_and_log_messages() {
    let mut legacy = node_v2_client();
    legacy.args(["--mode", "legacy"]);
    drive_talking_back(legacy, "legacy", true);
    // The v2 client has no way to ask for log messages per request: none arrive.
    let mut modern = node_v2_client();
    modern.args(["--mode", "modern"]);
    drive_talking_back(modern, "modern", false);
}

#[test]
fn python_sdk_receives_progress_and_log_messages() {
    let mut legacy = python_client();
    legacy.args(["--mode", "legacy"]);
    drive_talking_back(legacy, "legacy", true);
    let mut modern = python_client();
    modern.args(["--mode", "modern", "--log-level", "info"]);
    drive_talking_back(modern, "modern", true);
}

/// Calls the `manual` example's tools that ask the client (a form, the client's model, its
/// roots, a prompt that asks first) and checks that the client's answers reached them:
/// requests in the handshake era, input-required rounds in 2026-07-28.
fn drive_questions(client: Command) {
    let plan = json!([
        {"op": "call_tool", "name": "book", "arguments": {}},
        {"op": "call_tool", "name": "ask_model", "arguments": {}},
        {"op": "call_tool", "name": "list_roots", "arguments": {}},
        {"op": "call_tool", "name": "two_names", "arguments": {}},
        {"op": "get_prompt", "name": "asking_prompt", "arguments": {}},
    ]);
    let lines = run_plan(client, &plan, &example_binary("manual"), &["--asking-items"]);
    let [_, book, model, roots, names, prompt] = &lines[..] else { panic!("{lines:#?}") };
    assert_eq!(
        text(step_result(book, "call_tool")),
        "booked: from the client for 1 nights, breakfast Some(true), Small"
    );
    assert_eq!(text(step_result(model, "call_tool")), "client-model said: hello from the client");
    assert_eq!(text(step_result(roots, "call_tool")), "roots: file:///client/root (client root)");
    assert_eq!(text(step_result(names, "call_tool")), "from the client and from the client");
    let prompt = step_result(prompt, "get_prompt");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Greet from the client warmly.", "{prompt:#}");
}

#[test]
fn typescript_sdk_v2_answers_questions_in_both_eras() {
    for mode in ["legacy", "modern"] {
        let mut client = node_v2_client();
        client.args(["--mode", mode]);
        drive_questions(client);
    }
}

#[test]
fn python_sdk_answers_questions_in_both_eras() {
    for mode in ["legacy", "modern"] {
        let mut client = python_client();
        client.args(["--mode", mode]);
        drive_questions(client);
    }
}

/// Lists the tools, then calls `shapes` (`manual --shapes`: structured output with every shape
/// of `Option`, enum, `skip_serializing_if`, `default`, `flatten` and `rename`) empty and full.
/// The official clients check `structuredContent` against the tool's `outputSchema` and turn
/// a mismatch into an error (the TypeScript SDK 1.x: -32602 "Structured content does not
/// match the tool's output schema"): each call must come back as the result serde wrote.
fn drive_shapes(client: Command, server: Option<&str>) {
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "shapes", "arguments": {"filled": false}},
        {"op": "call_tool", "name": "shapes", "arguments": {"filled": true}},
    ]);
    let lines = match server {
        Some(url) => mcp_tests::clients::run_plan_url(client, &plan, url),
        None => run_plan(client, &plan, &example_binary("manual"), &["--shapes"]),
    };
    let [_connect, list, empty, full] = &lines[..] else {
        panic!("expected a connect line and 3 step lines, got {lines:#?}");
    };
    let tools = step_result(list, "list_tools")["tools"].as_array().expect("tools is an array");
    let shapes = tools.iter().find(|t| t["name"] == "shapes").unwrap_or_else(|| panic!("no `shapes`: {tools:#?}"));
    assert!(shapes["outputSchema"].is_object(), "{shapes:#}");
    for (call, due) in [(empty, Value::Null), (full, json!("2026-12-24"))] {
        let result = step_result(call, "call_tool");
        assert_ne!(result["isError"], true, "{result:#}");
        let text: Value = serde_json::from_str(&text(result)).expect("the text is JSON");
        assert_eq!(result["structuredContent"], text, "{result:#}");
        assert_eq!(result["structuredContent"]["due"], due, "{result:#}");
    }
}

#[test]
fn typescript_sdk_accepts_every_structured_output_shape_over_stdio_and_http() {
    drive_shapes(node_client(), None);
    let server = mcp_tests::http::HttpServer::start(&example_binary("manual"), &["--shapes"]);
    drive_shapes(node_client(), Some(&server.url));
}

#[test]
fn typescript_sdk_v2_and_python_sdk_accept_every_structured_output_shape() {
    drive_shapes(with_mode(node_v2_client(), "modern"), None);
    drive_shapes(python_client(), None);
}
