//! Wire tests for revision 2026-07-28: no handshake; every request carries `params._meta` with
//! the protocol version and the client's capabilities and is served from that request alone.
//! The `manual` example over stdio. Transcripts go to `<target>/transcripts/2026-07-28/`; a
//! connection that also did a handshake records that part under its handshake revision (see
//! `mcp_tests::wire`), so each part is checked against its own schema.

use mcp_tests::MANUAL_TEST_TOOLS;
use mcp_tests::wire::{
    CLIENT_CAPABILITIES_KEY, HANDSHAKE_REVISIONS, LATEST_HANDSHAKE_REVISION as LATEST_HANDSHAKE, PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY, STATELESS_REVISION as MODERN, StdioServer, error_code, manual, only_text, result,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `manual` shares the workspace's version with this package.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the 2026-07-28 schema defines in each result this server sends, and in their parts:
/// anything else is a field the revision does not have.
mod defined {
    pub(super) const DISCOVER_RESULT: &[&str] =
        &["_meta", "cacheScope", "capabilities", "instructions", "resultType", "supportedVersions", "ttlMs"];
    pub(super) const LIST_TOOLS_RESULT: &[&str] =
        &["_meta", "cacheScope", "nextCursor", "resultType", "tools", "ttlMs"];
    pub(super) const CALL_TOOL_RESULT: &[&str] = &["_meta", "content", "isError", "resultType", "structuredContent"];
    pub(super) const RESULT_META: &[&str] = &[super::SERVER_INFO_KEY];
    pub(super) const IMPLEMENTATION: &[&str] = &["description", "icons", "name", "title", "version", "websiteUrl"];
    pub(super) const SERVER_CAPABILITIES: &[&str] =
        &["completions", "experimental", "extensions", "logging", "prompts", "resources", "tools"];
    pub(super) const TOOL: &[&str] =
        &["_meta", "annotations", "description", "icons", "inputSchema", "name", "outputSchema", "title"];
    pub(super) const TOOL_ANNOTATIONS: &[&str] =
        &["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"];
    pub(super) const ANNOTATIONS: &[&str] = &["audience", "lastModified", "priority"];
    pub(super) const TEXT_RESOURCE_CONTENTS: &[&str] = &["_meta", "mimeType", "text", "uri"];

    /// The fields of a content block of `kind`.
    pub(super) fn content(kind: &str) -> &'static [&'static str] {
        match kind {
            "text" => &["_meta", "annotations", "text", "type"],
            "image" | "audio" => &["_meta", "annotations", "data", "mimeType", "type"],
            "resource_link" => {
                &["_meta", "annotations", "description", "icons", "mimeType", "name", "size", "title", "type", "uri"]
            }
            "resource" => &["_meta", "annotations", "resource", "type"],
            other => panic!("2026-07-28 has no content block of type `{other}`"),
        }
    }
}

/// The result kinds the examples produce under 2026-07-28.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Discover,
    ListTools,
    CallTool,
}

/// `manual --test-tools <args>` recording under 2026-07-28 as `test`; no handshake.
fn spawn(test: &str, args: &[&str]) -> StdioServer {
    manual(args).record(MODERN, test).spawn()
}

/// A 2026-07-28 request declaring no client capability; returns the response.
fn modern(server: &mut StdioServer, method: &str, params: Option<Value>) -> Value {
    server.stateless_request(method, params, json!({}))
}

/// The result of a 2026-07-28 `tools/call` of `name` declaring no client capability, after
/// checking it holds what the revision requires and nothing else.
fn modern_call(server: &mut StdioServer, name: &str, arguments: Value) -> Value {
    let response = modern(server, "tools/call", Some(json!({"name": name, "arguments": arguments})));
    let result = result(&response).clone();
    assert_modern_result(&result, Kind::CallTool);
    result
}

/// `params` with `meta` as its `_meta`, exactly: for `_meta` that is wrong on purpose.
fn with_meta(mut params: Value, meta: Value) -> Value {
    params["_meta"] = meta;
    params
}

/// The names of a `tools/list` result's tools.
fn tool_names(list: &Value) -> Vec<&str> {
    list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// The tool `name` of a `tools/list` result.
fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no `{name}` in {list}"))
}

/// Panics when `value` (an object) has a field outside `defined`.
fn assert_defined(value: &Value, defined: &[&str], what: &str) {
    let object = value.as_object().unwrap_or_else(|| panic!("{what} must be an object: {value}"));
    for key in object.keys() {
        assert!(defined.contains(&key.as_str()), "2026-07-28 defines no `{key}` in {what}: {value}");
    }
}

/// Checks that a 2026-07-28 result of `kind` holds what the revision requires (`resultType`,
/// the server's identity in `_meta`, and the caching fields exactly where they belong) and
/// nothing the revision does not define, down to tools, content blocks and annotations.
fn assert_modern_result(result: &Value, kind: Kind) {
    assert_eq!(result["resultType"], "complete", "{kind:?}: {result}");
    assert_defined(&result["_meta"], defined::RESULT_META, "a result's `_meta`");
    let server_info = &result["_meta"][SERVER_INFO_KEY];
    assert_defined(server_info, defined::IMPLEMENTATION, "serverInfo");
    assert_eq!(server_info, &json!({"name": "manual", "version": VERSION}), "{result}");
    let cached = kind != Kind::CallTool;
    for key in ["ttlMs", "cacheScope"] {
        assert_eq!(result.get(key).is_some(), cached, "{kind:?} and `{key}`: {result}");
    }
    if cached {
        assert!(result["ttlMs"].is_u64(), "ttlMs is an integer >= 0: {result}");
        assert!(matches!(result["cacheScope"].as_str(), Some("public" | "private")), "{result}");
    }
    match kind {
        Kind::Discover => {
            assert_defined(result, defined::DISCOVER_RESULT, "DiscoverResult");
            assert_defined(&result["capabilities"], defined::SERVER_CAPABILITIES, "ServerCapabilities");
        }
        Kind::ListTools => {
            assert_defined(result, defined::LIST_TOOLS_RESULT, "ListToolsResult");
            for tool in result["tools"].as_array().unwrap_or_else(|| panic!("no tools in {result}")) {
                assert_defined(tool, defined::TOOL, "Tool");
                assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
                if let Some(annotations) = tool.get("annotations") {
                    assert_defined(annotations, defined::TOOL_ANNOTATIONS, "ToolAnnotations");
                }
            }
        }
        Kind::CallTool => {
            assert_defined(result, defined::CALL_TOOL_RESULT, "CallToolResult");
            for block in result["content"].as_array().unwrap_or_else(|| panic!("no content in {result}")) {
                let kind = block["type"].as_str().unwrap_or_else(|| panic!("a block without type: {block}"));
                assert_defined(block, defined::content(kind), "a content block");
                if let Some(annotations) = block.get("annotations") {
                    assert_defined(annotations, defined::ANNOTATIONS, "Annotations");
                }
                if kind == "resource" {
                    assert_defined(&block["resource"], defined::TEXT_RESOURCE_CONTENTS, "TextResourceContents");
                }
            }
        }
    }
}

/// Checks that a handshake-era result carries none of 2026-07-28's fields.
fn assert_handshake_result(result: &Value, revision: &str) {
    for key in ["resultType", "ttlMs", "cacheScope"] {
        assert!(result.get(key).is_none(), "{revision} has no `{key}`: {result}");
    }
    assert!(result["_meta"].get(SERVER_INFO_KEY).is_none(), "{revision}: {result}");
}

/// Checks a `server/discover` result of `manual` with the default caching.
fn assert_discover(result: &Value) {
    assert_modern_result(result, Kind::Discover);
    assert_eq!(
        result["supportedVersions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]),
        "{result}"
    );
    assert_eq!(result["capabilities"], json!({"tools": {}}), "only what is declared: {result}");
    assert_eq!(result["instructions"], "Echoes text and adds integers.", "{result}");
    assert_eq!((&result["ttlMs"], &result["cacheScope"]), (&json!(60000), &json!("public")), "{result}");
}

// ---------------------------------------------------------------------------------------------
// Eras on one connection
// ---------------------------------------------------------------------------------------------

#[test]
fn modern_requests_need_no_initialize_and_leave_no_state() {
    let mut server =
        manual(&[]).record(LATEST_HANDSHAKE, "modern_requests_need_no_initialize_and_leave_no_state").spawn();
    assert_discover(result(&modern(&mut server, "server/discover", None)));
    let list = modern(&mut server, "tools/list", None);
    assert_eq!(tool_names(result(&list)), MANUAL_TEST_TOOLS);
    let echo = modern_call(&mut server, "echo", json!({"text": "no handshake"}));
    assert_eq!(only_text(&echo), "no handshake");

    // Nothing was negotiated: a request without `_meta` is still one before `initialize`...
    let plain = server.request("tools/list", None);
    assert_eq!(error_code(&plain), -32602, "{plain}");
    // ... and `initialize` still starts the handshake, which then serves plain requests.
    let init = server.handshake(LATEST_HANDSHAKE);
    assert_eq!(result(&init)["protocolVersion"], LATEST_HANDSHAKE, "{init}");
    let plain = server.request("tools/list", None);
    assert_handshake_result(result(&plain), LATEST_HANDSHAKE);
    assert_eq!(tool_names(result(&plain)), MANUAL_TEST_TOOLS);
    // Modern requests go on being served as before.
    let echo = modern_call(&mut server, "echo", json!({"text": "after the handshake"}));
    assert_eq!(only_text(&echo), "after the handshake");
    server.finish();
}

/// On a connection that did the handshake, each request is served under its own era: the
/// handshake's revision for plain requests, 2026-07-28 (with the capabilities in its own
/// `_meta`) for modern ones, alternately.
#[test]
fn modern_requests_interleave_with_each_handshake_revision() {
    for rev in HANDSHAKE_REVISIONS {
        let mut server = manual(&[]).record(rev, &format!("modern_requests_interleave_with_{rev}")).spawn();
        server.handshake(rev);
        let structured = rev >= "2025-06-18";
        for _ in 0..2 {
            let plain = server.request("tools/list", None);
            let plain = result(&plain);
            assert_handshake_result(plain, rev);
            assert_eq!(tool(plain, "point").get("outputSchema").is_some(), structured, "{rev}: {plain}");
            let new = modern(&mut server, "tools/list", None);
            let new = result(&new);
            assert_modern_result(new, Kind::ListTools);
            assert_eq!(tool(new, "numbers")["outputSchema"]["type"], "array", "{rev}: {new}");

            let plain = server.request("tools/call", Some(json!({"name": "numbers"})));
            let plain = result(&plain);
            assert_handshake_result(plain, rev);
            let wrapped = structured.then(|| json!({"result": [1, 2, 3]}));
            assert_eq!(plain.get("structuredContent"), wrapped.as_ref(), "{rev}: {plain}");
            let new = modern_call(&mut server, "numbers", json!({}));
            assert_eq!(new["structuredContent"], json!([1, 2, 3]), "{rev}: {new}");
        }

        // `ping` exists in the handshake era only.
        assert_eq!(result(&server.request("ping", None)), &json!({}), "{rev}");
        assert_eq!(error_code(&modern(&mut server, "ping", None)), -32601, "{rev}");

        // Client capabilities: the handshake declared none; a modern request declares its own,
        // for itself alone.
        let call = json!({"name": "needs_elicitation"});
        let elicit = server.stateless_request("tools/call", Some(call.clone()), json!({"elicitation": {}}));
        assert_eq!(only_text(result(&elicit)), "the client can elicit", "{rev}: {elicit}");
        let plain = server.request("tools/call", Some(call.clone()));
        assert_eq!(result(&plain)["isError"], true, "{rev}: {plain}");
        let without = modern(&mut server, "tools/call", Some(call));
        assert_eq!(error_code(&without), -32021, "{rev}: {without}");
        server.finish();
    }
}

#[test]
fn server_discover_needs_its_meta_any_time_and_changes_nothing() {
    // The handshake below negotiates 2024-11-05: its part is recorded under that revision.
    let rev = "2024-11-05";
    let mut server = manual(&[]).record(rev, "server_discover_needs_its_meta_any_time_and_changes_nothing").spawn();
    // A 2026-07-28 request: before any `initialize`, without its `_meta` or with it short of
    // the protocol version, -32602 (as the official conformance suite requires).
    let bare = server.request_as(MODERN, "server/discover", None);
    assert_eq!(error_code(&bare), -32602, "{bare}");
    assert!(bare["error"]["message"].as_str().unwrap().contains("_meta"), "{bare}");
    let short = with_meta(json!({}), json!({CLIENT_CAPABILITIES_KEY: {}}));
    assert_eq!(error_code(&server.request_as(MODERN, "server/discover", Some(short))), -32602);
    let answered = modern(&mut server, "server/discover", None);
    assert_discover(result(&answered));
    // No era was chosen: a plain request is still one before `initialize`, which still works.
    let plain = server.request("tools/list", None);
    assert_eq!(error_code(&plain), -32602, "{plain}");
    let init = server.handshake(rev);
    assert_eq!(result(&init)["protocolVersion"], rev, "{init}");
    // After the handshake: without `_meta` it is a method the session's revision lacks; with
    // it, the same answer, and the handshake stands.
    let bare = server.request("server/discover", None);
    assert_eq!(error_code(&bare), -32601, "{bare}");
    let after = modern(&mut server, "server/discover", None);
    assert_eq!(result(&after), result(&answered), "{after}");
    let list = server.request("tools/list", None);
    assert_handshake_result(result(&list), rev);
    assert!(tool(result(&list), "echo").get("annotations").is_none(), "still {rev}: {list}");
    let again = server.request(
        "initialize",
        Some(json!({"protocolVersion": LATEST_HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "again", "version": "1"}})),
    );
    assert_eq!(error_code(&again), -32600, "{again}");
    server.finish();
}

#[test]
fn initialize_asking_for_2026_07_28_gets_2025_11_25() {
    let mut server = manual(&[]).record(LATEST_HANDSHAKE, "initialize_asking_for_2026_07_28_gets_2025_11_25").spawn();
    let init = server.handshake(MODERN);
    let init = result(&init);
    assert_eq!(init["protocolVersion"], LATEST_HANDSHAKE, "{init}");
    assert_handshake_result(init, LATEST_HANDSHAKE);
    // The connection then runs 2025-11-25: plain requests, objects-only structured content.
    let numbers = server.request("tools/call", Some(json!({"name": "numbers"})));
    assert_handshake_result(result(&numbers), LATEST_HANDSHAKE);
    assert_eq!(result(&numbers)["structuredContent"], json!({"result": [1, 2, 3]}), "{numbers}");
    server.finish();
}

// ---------------------------------------------------------------------------------------------
// `_meta` checks
// ---------------------------------------------------------------------------------------------

/// A request of each kind the server serves, as `(method, params)` without `_meta`.
fn sample_requests() -> [(&'static str, Value); 3] {
    [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "echo", "arguments": {"text": "x"}})),
    ]
}

#[test]
fn missing_or_malformed_client_capabilities_are_invalid_params() {
    let mut server = spawn("missing_or_malformed_client_capabilities_are_invalid_params", &[]);
    let malformed =
        [None, Some(json!(null)), Some(json!([])), Some(json!("elicitation")), Some(json!(5)), Some(json!(true))];
    for (method, params) in sample_requests() {
        for capabilities in &malformed {
            let mut meta = json!({PROTOCOL_VERSION_KEY: MODERN});
            if let Some(capabilities) = capabilities {
                meta[CLIENT_CAPABILITIES_KEY] = capabilities.clone();
            }
            let response = server.request(method, Some(with_meta(params.clone(), meta)));
            assert_eq!(error_code(&response), -32602, "{method} with capabilities {capabilities:?}: {response}");
        }
        // `{}` (none) is fine.
        let response = modern(&mut server, method, Some(params));
        assert!(response.get("result").is_some(), "{method}: {response}");
    }
    server.finish();
}

#[test]
fn unsupported_protocol_versions_get_32022_naming_2026_07_28() {
    let mut server = spawn("unsupported_protocol_versions_get_32022_naming_2026_07_28", &[]);
    // Every handshake revision too: they are negotiated through `initialize`, not per request.
    let versions = [HANDSHAKE_REVISIONS.as_slice(), &["2099-01-01", "2026-07-29", "2026-07-28 ", "draft", ""]].concat();
    for (method, params) in sample_requests() {
        for requested in &versions {
            let meta = json!({PROTOCOL_VERSION_KEY: requested, CLIENT_CAPABILITIES_KEY: {}});
            let response = server.request(method, Some(with_meta(params.clone(), meta)));
            assert_eq!(error_code(&response), -32022, "{method} at {requested:?}: {response}");
            let data = &response["error"]["data"];
            assert_eq!(data, &json!({"supported": [MODERN], "requested": requested}), "{response}");
        }
    }
    server.finish();
}

/// The 2026-07-28 schema types `UnsupportedProtocolVersionError.data.requested` as a string:
/// a version that is not one must get an error the schema allows (-32602 for a malformed
/// `_meta` field, or -32022 whose `requested` is a string).
#[test]
fn a_protocol_version_that_is_not_a_string_gets_an_error_the_schema_allows() {
    let mut server = spawn("a_protocol_version_that_is_not_a_string_gets_an_error_the_schema_allows", &[]);
    for version in [json!(null), json!(20260728), json!(["2026-07-28"]), json!({"version": "2026-07-28"}), json!(true)]
    {
        let meta = json!({PROTOCOL_VERSION_KEY: version, CLIENT_CAPABILITIES_KEY: {}});
        let response = server.request("tools/list", Some(with_meta(json!({}), meta)));
        match error_code(&response) {
            -32602 => {}
            -32022 => assert!(
                response["error"]["data"]["requested"].is_string(),
                "`requested` must be a string (version {version}): {response}"
            ),
            _ => panic!("version {version}: expected -32602 or -32022, got {response}"),
        }
    }
    server.finish();
}

#[test]
fn handshake_era_and_undeclared_methods_are_not_found() {
    let mut server = spawn("handshake_era_and_undeclared_methods_are_not_found", &[]);
    let methods = [
        (
            "initialize",
            json!({"protocolVersion": MODERN, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
        ),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "test://embedded"})),
        ("resources/unsubscribe", json!({"uri": "test://embedded"})),
        // Not declared by `manual`, or not a method at all.
        ("resources/list", json!({})),
        ("prompts/list", json!({})),
        ("no/such/method", json!({})),
    ];
    for (method, params) in methods {
        let response = modern(&mut server, method, Some(params));
        assert_eq!(error_code(&response), -32601, "{method}: {response}");
    }
    // `initialize` sent that way started nothing: a plain request is still refused.
    let plain = server.request("tools/list", None);
    assert_eq!(error_code(&plain), -32602, "{plain}");
    server.finish();
}

#[test]
fn unknown_tools_and_malformed_calls_are_invalid_params() {
    let mut server = spawn("unknown_tools_and_malformed_calls_are_invalid_params", &[]);
    for params in [json!({"name": "no_such_tool"}), json!({}), json!({"name": "echo", "arguments": [1]})] {
        let response = modern(&mut server, "tools/call", Some(params.clone()));
        assert_eq!(error_code(&response), -32602, "{params}: {response}");
    }
    for cursor in [json!("not-a-cursor"), json!(5)] {
        let response = modern(&mut server, "tools/list", Some(json!({"cursor": cursor})));
        assert_eq!(error_code(&response), -32602, "{cursor}: {response}");
    }
    server.finish();
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

#[test]
fn tools_list_holds_what_2026_07_28_defines() {
    let mut server = spawn("tools_list_holds_what_2026_07_28_defines", &[]);
    let response = modern(&mut server, "tools/list", None);
    let list = result(&response);
    assert_modern_result(list, Kind::ListTools);
    assert!(list.get("nextCursor").is_none(), "one page: {list}");
    assert_eq!((&list["ttlMs"], &list["cacheScope"]), (&json!(60000), &json!("public")), "{list}");
    assert_eq!(tool_names(list), MANUAL_TEST_TOOLS);
    assert_eq!(tool(list, "echo")["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(tool(list, "add")["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    // Output schemas as declared: an object, and an array (no `{"result": ...}` wrapper, which
    // only the handshake revisions need).
    let point = &tool(list, "point")["outputSchema"];
    assert_eq!((&point["type"], &point["required"]), (&json!("object"), &json!(["x", "y"])), "{point}");
    let numbers = &tool(list, "numbers")["outputSchema"];
    assert_eq!(numbers["type"], "array", "{numbers}");
    assert_eq!(numbers["items"]["type"], "integer", "{numbers}");
    for name in MANUAL_TEST_TOOLS.iter().filter(|n| !["point", "numbers"].contains(n)) {
        assert!(tool(list, name).get("outputSchema").is_none(), "{name}: {list}");
    }
    server.finish();
}

/// Every page carries the caching fields, with one scope for the whole list.
#[test]
fn tools_list_pages_each_carry_the_caching_fields() {
    for (args, ttl, scope) in [
        (&["--page-size", "2"][..], 60000, "public"),
        (&["--page-size", "4", "--private-tool-list-ms", "1500"][..], 1500, "private"),
    ] {
        let mut server = spawn(&format!("tools_list_pages_each_carry_the_caching_fields_{scope}"), args);
        let mut seen = Vec::new();
        let mut params = None;
        loop {
            let response = modern(&mut server, "tools/list", params.take());
            let page = result(&response);
            assert_modern_result(page, Kind::ListTools);
            assert_eq!((&page["ttlMs"], &page["cacheScope"]), (&json!(ttl), &json!(scope)), "{args:?}: {page}");
            seen.extend(tool_names(page).into_iter().map(str::to_owned));
            match page.get("nextCursor") {
                Some(cursor) => params = Some(json!({"cursor": cursor})),
                None => break,
            }
            assert!(seen.len() < MANUAL_TEST_TOOLS.len(), "paging past the end: {page}");
        }
        assert_eq!(seen, MANUAL_TEST_TOOLS, "{args:?}: every tool once, in order");
        server.finish();
    }
}

/// `--private-tool-list-ms` changes the tool list's caching fields alone; `ttlMs: 0` (do not
/// reuse) is a valid value.
#[test]
fn the_tool_list_cache_policy_is_its_own() {
    for (ms, ttl) in [("250", 250), ("0", 0)] {
        let mut server = spawn(&format!("the_tool_list_cache_policy_is_its_own_{ms}"), &["--private-tool-list-ms", ms]);
        let list = modern(&mut server, "tools/list", None);
        assert_modern_result(result(&list), Kind::ListTools);
        assert_eq!((&result(&list)["ttlMs"], &result(&list)["cacheScope"]), (&json!(ttl), &json!("private")), "{list}");
        assert_discover(result(&modern(&mut server, "server/discover", None)));
        server.finish();
    }
}

#[test]
fn tool_results_hold_what_2026_07_28_defines() {
    let mut server = manual(&[]).record(MODERN, "tool_results_hold_what_2026_07_28_defines").capture_stderr().spawn();

    assert_eq!(only_text(&modern_call(&mut server, "echo", json!({"text": "héllo\u{2028}"}))), "héllo\u{2028}");
    assert_eq!(only_text(&modern_call(&mut server, "add", json!({"a": 2, "b": 3}))), "5");
    assert_eq!(only_text(&modern_call(&mut server, "sleep", json!({"ms": 10}))), "slept 10 ms");

    // Every content kind as it is: 2026-07-28 has them all.
    let kinds = modern_call(&mut server, "content_kinds", json!({}));
    let content = kinds["content"].as_array().expect("content");
    let types: Vec<&str> = content.iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "image", "audio", "resource_link", "resource"], "{kinds}");
    assert_eq!(
        content[0]["annotations"],
        json!({"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"})
    );
    assert_eq!((&content[2]["data"], &content[2]["mimeType"]), (&json!("UklGRgAAAABXQVZF"), &json!("audio/wav")));
    assert_eq!((&content[3]["uri"], &content[3]["name"]), (&json!("test://linked"), &json!("linked")));
    assert!(kinds.get("structuredContent").is_none() && kinds.get("isError").is_none_or(|e| e == false), "{kinds}");

    // Structured output of any JSON value, with its text.
    for (tool, value) in [("point", json!({"x": 1, "y": 2})), ("numbers", json!([1, 2, 3]))] {
        let result = modern_call(&mut server, tool, json!({}));
        assert_eq!(result["structuredContent"], value, "{result}");
        assert_eq!(serde_json::from_str::<Value>(only_text(&result)).expect("JSON text"), value, "{result}");
    }

    // Failures are results with `isError`: a tool's own, bad arguments, a panic (whose details
    // go to the log only).
    for (tool, arguments, needle) in
        [("fail", json!({}), "this tool always fails"), ("add", json!({"a": "one", "b": 2}), "`a`")]
    {
        let result = modern_call(&mut server, tool, arguments);
        assert_eq!(result["isError"], true, "{tool}: {result}");
        assert!(only_text(&result).contains(needle), "{tool}: {result}");
    }
    let panicked = modern_call(&mut server, "panic", json!({}));
    assert_eq!(panicked["isError"], true, "{panicked}");
    assert!(!only_text(&panicked).contains("always panics"), "{panicked}");
    server.finish();
    assert!(server.stderr().contains("this tool always panics"), "the panic is logged: {}", server.stderr());
}

// ---------------------------------------------------------------------------------------------
// Required client capabilities
// ---------------------------------------------------------------------------------------------

#[test]
fn a_tool_needing_an_undeclared_capability_is_refused_with_32021() {
    let mut server = spawn("a_tool_needing_an_undeclared_capability_is_refused_with_32021", &[]);
    let call = json!({"name": "needs_elicitation"});
    for declared in
        [json!({}), json!({"sampling": {}}), json!({"roots": {}}), json!({"experimental": {"elicitation": {}}})]
    {
        let response = server.stateless_request("tools/call", Some(call.clone()), declared.clone());
        assert_eq!(error_code(&response), -32021, "declared {declared}: {response}");
        assert_eq!(response["error"]["data"], json!({"requiredCapabilities": {"elicitation": {}}}), "{response}");
    }
    for declared in [json!({"elicitation": {}}), json!({"elicitation": {"form": {}}, "sampling": {}})] {
        let response = server.stateless_request("tools/call", Some(call.clone()), declared.clone());
        let result = result(&response);
        assert_modern_result(result, Kind::CallTool);
        assert_eq!(only_text(result), "the client can elicit", "declared {declared}: {result}");
    }
    // Nothing carried over from the request that declared it.
    assert_eq!(error_code(&modern(&mut server, "tools/call", Some(call))), -32021);
    server.finish();
}

/// The handshake revisions have no error for it: the call fails as a tool, unless the
/// handshake declared the capability (elicitation exists from 2025-06-18).
#[test]
fn under_the_handshake_a_missing_capability_is_a_tool_error() {
    for rev in HANDSHAKE_REVISIONS {
        let mut server = manual(&[]).record(rev, "under_the_handshake_a_missing_capability_is_a_tool_error").spawn();
        server.handshake(rev);
        let response = server.request("tools/call", Some(json!({"name": "needs_elicitation"})));
        let result = result(&response);
        assert_eq!(result["isError"], true, "{rev}: {result}");
        assert!(only_text(result).contains("elicitation"), "{rev}: {result}");
        server.finish();
    }
    for rev in ["2025-06-18", "2025-11-25"] {
        let mut server = manual(&[]).record(rev, "under_the_handshake_a_declared_capability_serves_the_tool").spawn();
        server.handshake_with(rev, json!({"elicitation": {}}));
        let response = server.request("tools/call", Some(json!({"name": "needs_elicitation"})));
        assert_eq!(only_text(result(&response)), "the client can elicit", "{rev}: {response}");
        server.finish();
    }
}
