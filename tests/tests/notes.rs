//! The `notes` example: tools and a resource template sharing one state, a slow search that
//! reports progress, and log messages from `tracing` inside the handlers, in a handshake
//! revision and in 2026-07-28.

use mcp_tests::wire::{STATELESS_REVISION, StdioServer, for_each_revision, result, stateless_params};
use serde_json::{Value, json};

/// Sends a request of `revision`, with `meta` added to its `_meta`; the notifications before
/// its response, and the response.
fn request(server: &mut StdioServer, revision: &str, method: &str, params: Value, meta: Value) -> (Vec<Value>, Value) {
    let mut params = if revision == STATELESS_REVISION { stateless_params(Some(params), json!({})) } else { params };
    for (key, value) in meta.as_object().into_iter().flatten() {
        params["_meta"][key] = value.clone();
    }
    let id = server.send_request(method, Some(params));
    let mut notifications = Vec::new();
    loop {
        let message = server.recv();
        if message["id"] == json!(id) {
            return (notifications, message);
        }
        notifications.push(message);
    }
}

#[test]
fn notes_share_state_and_report_progress() {
    for_each_revision(&["2025-11-25", STATELESS_REVISION], |rev| {
        let binary = mcp_tests::example_binary("notes");
        let mut server = StdioServer::builder(binary).record(rev, "notes_share_state_and_report_progress").spawn();
        let mut log_meta = json!({});
        if rev == STATELESS_REVISION {
            log_meta = json!({"io.modelcontextprotocol/logLevel": "info"});
        } else {
            server.handshake_with(rev, json!({"elicitation": {}}));
            server.request("logging/setLevel", Some(json!({"level": "info"})));
        }
        for (title, text) in [("Groceries", "eggs, milk"), ("Ideas", "a garden of milkweed"), ("Trip", "train")] {
            let params = json!({"name": "write_note", "arguments": {"title": title, "text": text}});
            let (logs, response) = request(&mut server, rev, "tools/call", params, log_meta.clone());
            assert_eq!(result(&response)["content"][0]["text"], format!("Wrote \"{title}\""));
            assert_eq!(logs.len(), 1, "the handler's `tracing::info!`: {logs:?}");
            assert_eq!(
                logs[0]["params"]["data"],
                json!({"message": "note written", "title": title, "replaced": false})
            );
        }
        let (_, read) = request(&mut server, rev, "resources/read", json!({"uri": "notes://Ideas"}), json!({}));
        assert_eq!(result(&read)["contents"][0]["text"], "# Ideas\n\na garden of milkweed");
        let (_, missing) = request(&mut server, rev, "resources/read", json!({"uri": "notes://Nope"}), json!({}));
        assert!(missing.get("error").is_some(), "{missing}");
        let mut meta = log_meta.clone();
        meta["progressToken"] = json!("search-1");
        let params = json!({"name": "search", "arguments": {"word": "MILK"}});
        let (notes, response) = request(&mut server, rev, "tools/call", params, meta);
        assert_eq!(result(&response)["structuredContent"], json!({"titles": ["Groceries", "Ideas"]}));
        let progress: Vec<&Value> = notes.iter().filter(|n| n["method"] == "notifications/progress").collect();
        let done: Vec<f64> = progress.iter().map(|n| n["params"]["progress"].as_f64().unwrap()).collect();
        assert_eq!(done, [1.0, 2.0, 3.0], "{notes:?}");
        assert_eq!(progress[0]["params"]["message"], "searched \"Groceries\"");
        let logs: Vec<&Value> = notes.iter().filter(|n| n["method"] == "notifications/message").collect();
        assert_eq!(logs.len(), 1, "{notes:?}");
        assert_eq!(logs[0]["params"]["data"]["hits"], 2);
        delete_with_confirmation(&mut server, rev);
        server.close_stdin();
        assert!(server.wait().success());
    });
}

/// Deleting asks for a confirmation: the server's request in the handshake revisions, an
/// input-required result and a retry in 2026-07-28.
fn delete_with_confirmation(server: &mut StdioServer, rev: &str) {
    let params = json!({"name": "delete_note", "arguments": {"title": "Trip"}});
    for (confirm, expected) in [(false, "Kept \"Trip\""), (true, "Deleted \"Trip\"")] {
        let answer = json!({"action": "accept", "content": {"delete": confirm}});
        let response = if rev == STATELESS_REVISION {
            let caps = json!({"elicitation": {}});
            let asked = server.request("tools/call", Some(stateless_params(Some(params.clone()), caps.clone())));
            let question = &result(&asked)["inputRequests"]["0"];
            assert_eq!(question["params"]["message"], "Delete the note \"Trip\"?", "{asked}");
            let mut retry = params.clone();
            retry["requestState"] = result(&asked)["requestState"].clone();
            retry["inputResponses"] = json!({"0": answer});
            server.request("tools/call", Some(stateless_params(Some(retry), caps)))
        } else {
            let id = server.send_request("tools/call", Some(params.clone()));
            let question = server.recv();
            assert_eq!(question["method"], "elicitation/create", "{question}");
            assert_eq!(question["params"]["requestedSchema"]["properties"]["delete"]["type"], "boolean");
            server.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": answer}));
            let response = server.recv();
            assert_eq!(response["id"], id);
            response
        };
        assert_eq!(result(&response)["content"][0]["text"], expected, "{response}");
    }
    let (_, gone) = request(server, rev, "resources/read", json!({"uri": "notes://Trip"}), json!({}));
    assert!(gone.get("error").is_some(), "deleted: {gone}");
}

/// Over Streamable HTTP, an official client subscribes to a note and is told when it is
/// written (handshake era: the update travels on the session's GET stream).
fn subscribe_over_http(client: std::process::Command) {
    let server = mcp_tests::http::HttpServer::start(&mcp_tests::example_binary("notes"), &[]);
    let plan = json!([
        {"op": "call_tool", "name": "write_note", "arguments": {"title": "Groceries", "text": "eggs"}},
        {"op": "subscribe_resource", "uri": "notes://Groceries"},
        {"op": "call_tool", "name": "write_note", "arguments": {"title": "Groceries", "text": "eggs, milk"}},
        {"op": "resource_updates"},
        {"op": "read_resource", "uri": "notes://Groceries"},
    ]);
    let lines = mcp_tests::clients::run_plan_url(client, &plan, &server.url);
    let [connect, _, subscribed, written, updates, read] = &lines[..] else { panic!("{lines:#?}") };
    assert_eq!(connect["capabilities"]["resources"]["subscribe"], true, "{connect}");
    assert!(subscribed.get("error").is_none(), "{subscribed}");
    assert_eq!(written["result"]["content"][0]["text"], "Replaced \"Groceries\"");
    assert_eq!(updates["result"], json!([{"uri": "notes://Groceries"}]), "{updates}");
    assert_eq!(read["result"]["contents"][0]["text"], "# Groceries\n\neggs, milk");
}

#[test]
fn official_clients_subscribe_to_a_note_over_http() {
    let mut typescript = mcp_tests::clients::node_v2_client();
    typescript.args(["--mode", "legacy"]);
    subscribe_over_http(typescript);
    let mut python = mcp_tests::clients::python_client();
    python.args(["--mode", "legacy"]);
    subscribe_over_http(python);
}
