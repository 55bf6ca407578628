//! GiftGen (`examples/gift_genius`) end to end: the official clients call `suggest_gifts` in
//! each era they speak, and the wire shows the structured output shaped for each revision.
//! Expected suggestions are computed from the catalog file (`mcp_tests::gift_genius`).

use std::process::Command;

use mcp_tests::clients::{Connected, node_client, node_v2_client, python_client, run_plan, run_plan_url, with_mode};
use mcp_tests::example_binary;
use mcp_tests::gift_genius::{books, expected, normalised, suggestions, text, text_json};
use mcp_tests::http::HttpServer;
use mcp_tests::wire::{
    HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION as HANDSHAKE, SERVER_INFO_KEY, STATELESS_REVISION, StdioServer,
};
use serde_json::{Value, json};

/// Lists the tools and calls `suggest_gifts` four ways through an official client, then reads,
/// completes and gets GiftGen's resource template and prompt ([`catalog_steps`]); checks the
/// era the client settled (`connected`) and that every answer was served under it.
fn drive(client: Command, connected: Connected) {
    drive_with(client, connected, |client, plan| run_plan(client, plan, &example_binary("gift_genius"), &[]));
}

/// [`drive`] over Streamable HTTP: GiftGen serving `--http` on a free loopback port.
fn drive_http(client: Command, connected: Connected) {
    let server = HttpServer::start(&example_binary("gift_genius"), &[]);
    drive_with(client, connected, |client, plan| run_plan_url(client, plan, &server.url));
}

/// [`drive`], running the plan with `run`.
fn drive_with(client: Command, connected: Connected, run: impl FnOnce(Command, &Value) -> Vec<Value>) {
    let plan = json!([
        {"op": "list_tools"},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 30, "relationship": "Sister", "budget": 100}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 8, "relationship": "nephew"}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 3, "relationship": "colleague", "budget": 5}},
        {"op": "call_tool", "name": "suggest_gifts", "arguments": {"age": 130, "relationship": "friend"}},
    ]);
    let plan = Value::Array([plan.as_array().expect("steps").as_slice(), &catalog_steps()].concat());
    let lines = run(client, &plan);
    let [connect, list, sister, nephew, nothing, too_old, books, category, prompt] = &lines[..] else {
        panic!("expected a connect line and 8 step lines, got {lines:#?}");
    };
    connected.check(connect, "gift-genius");
    let version = connected.protocol_version();

    let tools = list["result"]["tools"].as_array().unwrap_or_else(|| panic!("{list:#}"));
    let tool = tools.iter().find(|t| t["name"] == "suggest_gifts").expect("suggest_gifts is listed");
    assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()), "{tool:#}");
    assert_eq!(tool["inputSchema"]["required"], json!(["age", "relationship"]), "{tool:#}");
    assert_eq!(tool["inputSchema"]["properties"]["budget"]["type"], "number", "{tool:#}");
    assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool:#}");

    for line in [sister, nephew, nothing, too_old] {
        // The server names itself in a result's `_meta` under 2026-07-28 only: proof that the
        // server, not just the client, took the call as the client's era.
        let server_info = &line["result"]["_meta"][SERVER_INFO_KEY];
        if version == STATELESS_REVISION {
            assert_eq!(server_info["name"], "gift-genius", "{line:#}");
        } else {
            assert_eq!(server_info, &Value::Null, "{line:#}");
        }
    }

    for (line, want) in [(sister, suggestions(30, "sister", Some(100.0))), (nephew, suggestions(8, "nephew", None))] {
        let result = &line["result"];
        assert_ne!(result["isError"], true, "{line:#}");
        assert_eq!(want["suggestions"].as_array().map(Vec::len), Some(5));
        // The whole JSON, numbers normalised (a JavaScript client reads 95.0 back as 95).
        assert_eq!(normalised(&result["structuredContent"]), want, "{line:#}");
        assert_eq!(normalised(&text_json(result)), want, "the text is the same JSON: {line:#}");
    }

    let result = &nothing["result"];
    assert_ne!(result["isError"], true, "{nothing:#}");
    assert_eq!(result["structuredContent"], json!({"suggestions": []}), "{nothing:#}");
    assert_eq!(normalised(&result["structuredContent"]), suggestions(3, "colleague", Some(5.0)), "{nothing:#}");

    let result = &too_old["result"];
    assert_eq!(result["isError"], true, "{too_old:#}");
    assert!(text(result).contains("120"), "{too_old:#}");
    check_catalog_steps([books, category, prompt], version);
}

/// The steps every client runs after the tool calls: read a category of the catalog, complete
/// the template's `category`, and get the prompt `describe_gift`.
fn catalog_steps() -> [Value; 3] {
    [
        json!({"op": "read_resource", "uri": "gifts://catalog/books"}),
        json!({
            "op": "complete",
            "ref": {"type": "ref/resource", "uri": "gifts://catalog/{category}"},
            "argument": {"name": "category", "value": "h"},
        }),
        json!({"op": "get_prompt", "name": "describe_gift", "arguments": {"gift_name": "Chess set", "recipient": "uncle"}}),
    ]
}

/// Checks the lines of [`catalog_steps`]: the books of the catalog file, `home` and `hobbies`,
/// a message naming both arguments; each served under `version`.
fn check_catalog_steps([books, category, prompt]: [&Value; 3], version: &str) {
    for line in [books, category, prompt] {
        let server_info = &line["result"]["_meta"][SERVER_INFO_KEY];
        let want = if version == STATELESS_REVISION { json!("gift-genius") } else { Value::Null };
        assert_eq!(server_info["name"], want, "{line:#}");
    }

    let contents = books["result"]["contents"].as_array().unwrap_or_else(|| panic!("{books:#}"));
    let [books_json] = &contents[..] else { panic!("one contents item: {books:#}") };
    assert_eq!(
        (&books_json["uri"], &books_json["mimeType"]),
        (&json!("gifts://catalog/books"), &json!("application/json"))
    );
    let gifts: Value = serde_json::from_str(books_json["text"].as_str().expect("text")).expect("a JSON array");
    assert_eq!(normalised(&gifts), self::books(), "{books:#}");

    assert_eq!(category["result"]["completion"]["values"], json!(["home", "hobbies"]), "{category:#}");

    let messages = prompt["result"]["messages"].as_array().unwrap_or_else(|| panic!("{prompt:#}"));
    let [message] = &messages[..] else { panic!("one message: {prompt:#}") };
    assert_eq!(message["role"], "user", "{prompt:#}");
    let text = message["content"]["text"].as_str().unwrap_or_else(|| panic!("a text message: {prompt:#}"));
    assert!(text.contains("Chess set") && text.contains("uncle"), "{prompt:#}");
}

#[test]
fn typescript_sdk_calls_suggest_gifts() {
    drive(node_client(), Connected::Asked(HANDSHAKE));
}

#[test]
fn typescript_sdk_v2_calls_suggest_gifts_with_the_handshake() {
    drive(with_mode(node_v2_client(), "legacy"), Connected::Asked(HANDSHAKE));
}

/// Pinned to 2026-07-28: `server/discover` (on a sibling process), then `_meta` on every request.
#[test]
fn typescript_sdk_v2_calls_suggest_gifts_in_modern_mode() {
    drive(with_mode(node_v2_client(), "modern"), Connected::Asked(STATELESS_REVISION));
}

/// The probe finds a 2026-07-28 server.
#[test]
fn typescript_sdk_v2_calls_suggest_gifts_in_auto_mode() {
    drive(with_mode(node_v2_client(), "auto"), Connected::Asked(STATELESS_REVISION));
}

#[test]
fn python_sdk_calls_suggest_gifts_with_the_handshake() {
    drive(with_mode(python_client(), "legacy"), Connected::Asked(HANDSHAKE));
}

/// 2026-07-28 from the first request, without `server/discover`.
#[test]
fn python_sdk_calls_suggest_gifts_in_modern_mode() {
    drive(with_mode(python_client(), "modern"), Connected::Blind);
}

/// The SDK's default: the `server/discover` probe finds a 2026-07-28 server.
#[test]
fn python_sdk_calls_suggest_gifts_in_auto_mode() {
    drive(with_mode(python_client(), "auto"), Connected::Asked(STATELESS_REVISION));
}

#[test]
fn typescript_sdk_calls_suggest_gifts_over_http() {
    drive_http(node_client(), Connected::Asked(HANDSHAKE));
}

#[test]
fn typescript_sdk_v2_calls_suggest_gifts_over_http_in_both_eras() {
    drive_http(with_mode(node_v2_client(), "legacy"), Connected::Asked(HANDSHAKE));
    drive_http(with_mode(node_v2_client(), "modern"), Connected::Asked(STATELESS_REVISION));
}

#[test]
fn python_sdk_calls_suggest_gifts_over_http_in_both_eras() {
    drive_http(with_mode(python_client(), "legacy"), Connected::Asked(HANDSHAKE));
    drive_http(with_mode(python_client(), "auto"), Connected::Asked(STATELESS_REVISION));
}

/// Structured output goes to revisions that have it; older ones get the text alone. Under
/// 2026-07-28 (no handshake, `_meta` on each request) the result also says its type and names
/// the server, and the list carries its caching fields.
#[test]
fn structured_output_follows_the_revision() {
    for revision in HANDSHAKE_REVISIONS.into_iter().chain([STATELESS_REVISION]) {
        let mut server =
            StdioServer::builder(example_binary("gift_genius")).record(revision, "gift_genius_structured").spawn();
        let stateless = revision == STATELESS_REVISION;
        if !stateless {
            server.handshake(revision);
        }
        let mut ask = |method: &str, params: Option<Value>| {
            let response = if stateless {
                server.stateless_request(method, params, json!({}))
            } else {
                server.request(method, params)
            };
            response.get("result").cloned().unwrap_or_else(|| panic!("{revision} {method}: {response}"))
        };
        let list = ask("tools/list", None);
        let result = ask(
            "tools/call",
            Some(json!({"name": "suggest_gifts", "arguments": {"age": 40, "relationship": "friend"}})),
        );
        let tool = &list["tools"][0];
        let want = suggestions(40, "friend", None);
        assert_eq!(expected(40, "friend", None).len(), 5);
        assert_eq!(normalised(&text_json(&result)), want, "{revision}: {result:#}");
        if revision >= "2025-06-18" {
            assert_eq!(tool["outputSchema"]["type"], "object", "{tool:#}");
            assert_eq!(tool["_meta"]["ui"]["resourceUri"], "ui://gifts/cards", "{tool:#}");
            assert_eq!(normalised(&result["structuredContent"]), want, "{revision}: {result:#}");
        } else {
            assert!(tool.get("outputSchema").is_none() && tool.get("_meta").is_none(), "{revision}: {tool:#}");
            assert!(result.get("structuredContent").is_none(), "{revision}: {result:#}");
        }
        let server_info = json!({"name": "gift-genius", "version": env!("CARGO_PKG_VERSION")});
        if stateless {
            for value in [&list, &result] {
                assert_eq!(value["resultType"], "complete", "{value:#}");
                assert_eq!(value["_meta"], json!({SERVER_INFO_KEY: server_info}), "{value:#}");
            }
            assert_eq!((&list["ttlMs"], &list["cacheScope"]), (&json!(60000), &json!("public")), "{list:#}");
            assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none(), "{result:#}");
        } else {
            for value in [&list, &result] {
                for key in ["resultType", "_meta", "ttlMs", "cacheScope"] {
                    assert!(value.get(key).is_none(), "{revision} has no `{key}`: {value:#}");
                }
            }
        }
        server.finish();
    }
}
