//! GiftGen's cards as an MCP App, end to end: the official TypeScript client finds the app
//! linked from `suggest_gifts` (`_meta.ui.resourceUri`), reads its `ui://` page and calls the
//! tool; a real headless browser (Debian's chromium) then hosts the page as a chat client does,
//! hands it the call's arguments and result over postMessage, and the cards it renders are the
//! gifts suggested. The extension is declared to 2026-07-28 clients, and only to them.

use std::process::Stdio;

use mcp_tests::clients::{self, Connected, run_plan};
use mcp_tests::example_binary;
use mcp_tests::gift_genius::expected;
use mcp_tests::wire::{HANDSHAKE_REVISIONS, StdioServer};
use serde_json::{Value, json};

#[test]
fn the_gift_cards_render_in_a_browser_from_the_tool_result() {
    let arguments = json!({"age": 30, "relationship": "sister", "budget": 100});
    let plan = json!([
        {"op": "list_tools"},
        {"op": "read_resource", "uri": "ui://gifts/cards"},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": arguments},
    ]);
    let lines = run_plan(clients::node_client(), &plan, &example_binary("gift_genius"), &[]);
    let [connect, listed, page, called] = &lines[..] else { panic!("a connect line and 3 steps: {lines:#?}") };
    Connected::Asked("2025-11-25").check(connect, "gift-genius");
    let tool = &listed["result"]["tools"][0];
    assert_eq!(tool["_meta"]["ui"]["resourceUri"], "ui://gifts/cards", "{tool:#}");
    let contents = &page["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app", "{page:#}");
    let html = contents["text"].as_str().unwrap_or_else(|| panic!("the page as text: {page:#}"));
    let result = &called["result"];
    assert_ne!(result["isError"], true, "{called:#}");

    // The host: the page in a sandboxed frame, the call handed over once it initialized.
    let dir = mcp_tests::target_dir().join("mcp-app");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let (page_file, call_file) = (dir.join("cards.html"), dir.join("call.json"));
    std::fs::write(&page_file, html).expect("the page is written");
    std::fs::write(&call_file, json!({"arguments": arguments, "result": result}).to_string()).expect("written");
    let output = clients::browser_host()
        .arg(&page_file)
        .arg(&call_file)
        .arg("article.card h2")
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "the browser host failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let rendered: Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    let cards: Vec<&str> = rendered["texts"].as_array().expect("texts").iter().filter_map(Value::as_str).collect();
    assert_eq!(cards, expected(30, "sister", Some(100.0)), "{rendered:#}");
    let sent = rendered["messages"].as_array().expect("messages");
    assert_eq!(sent.first(), Some(&json!("ui/initialize")), "{rendered:#}");
    assert!(sent.contains(&json!("ui/notifications/initialized")), "{rendered:#}");
    assert_eq!(rendered["console"], json!([]), "no error in the page: {rendered:#}");
}

#[test]
fn the_extension_is_declared_where_capabilities_have_extensions() {
    let mut server = StdioServer::builder(example_binary("gift_genius")).spawn();
    let discovered = server.stateless_request("server/discover", None, json!({}));
    assert_eq!(discovered["result"]["capabilities"]["extensions"], json!({"io.modelcontextprotocol/ui": {}}));
    server.finish();
    for revision in HANDSHAKE_REVISIONS {
        let mut server = StdioServer::builder(example_binary("gift_genius")).spawn();
        let init = server.handshake(revision);
        let capabilities = init["result"]["capabilities"].as_object().unwrap_or_else(|| panic!("{init}"));
        assert!(capabilities.contains_key("tools") && !capabilities.contains_key("extensions"), "{revision}: {init}");
        server.finish();
    }
}
