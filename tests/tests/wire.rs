//! Wire tests: the `manual` example driven over stdio, every rule checked under each
//! handshake revision. Each server run records its transcript under
//! `<target>/transcripts/<revision>/<test>.jsonl` for `shared/tools/schema_check.py`.

use std::time::{Duration, Instant};

use mcp_tests::MANUAL_TEST_TOOLS as ALL_TOOLS;
use mcp_tests::wire::{
    HANDSHAKE_REVISIONS as REVISIONS, LATEST_HANDSHAKE_REVISION as LATEST, StdioServer, error_code, manual, only_text,
    raw_id, result,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `manual` shares the workspace's version with this package.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Whether `revision` is `first` or later (ISO dates order as strings).
fn since(revision: &str, first: &str) -> bool {
    revision >= first
}

/// Runs `check` once per handshake revision, each in a thread named after its revision (so a
/// failure names the revision that broke), all at once.
fn for_each_revision(check: impl Fn(&str) + Sync) {
    std::thread::scope(|scope| {
        for revision in REVISIONS {
            let check = &check;
            std::thread::Builder::new()
                .name(revision.to_owned())
                .spawn_scoped(scope, move || check(revision))
                .expect("a thread per revision");
        }
    });
}

/// `manual --test-tools <args>`, recording under `revision` as `test`, not yet initialized.
fn spawn(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    manual(args).record(revision, test).spawn()
}

/// Like [`spawn`], with the handshake for `revision` done.
fn connect(revision: &str, test: &str, args: &[&str]) -> StdioServer {
    let mut server = spawn(revision, test, args);
    server.handshake(revision);
    server
}

/// The `tools/call` result of `name` with `arguments`.
fn call(server: &mut StdioServer, name: &str, arguments: Value) -> Value {
    let response = server.request("tools/call", Some(json!({"name": name, "arguments": arguments})));
    result(&response).clone()
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("expected an object, got {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// A request line with the id and params exactly as written.
fn raw_request(id: &str, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

// ---------------------------------------------------------------------------------------------
// Handshake
// ---------------------------------------------------------------------------------------------

#[test]
fn initialize_negotiates_each_supported_revision() {
    for_each_revision(|rev| {
        let mut server = spawn(rev, "initialize_negotiates_each_supported_revision", &[]);
        let response = server.handshake(rev);
        let init = result(&response);
        assert_eq!(init["protocolVersion"], rev);
        assert_eq!(init["serverInfo"], json!({"name": "manual", "version": VERSION}));
        assert_eq!(init["instructions"], "Echoes text and adds integers.");
        assert_eq!(keys(&init["capabilities"]), ["tools"], "only what is declared: {init}");
        // Nothing of the server's own after `notifications/initialized` (no logging, no
        // list_changed, no requests).
        server.assert_silent(Duration::from_millis(300));
        server.finish();
    });
}

#[test]
fn unsupported_revisions_get_the_newest_handshake_revision() {
    for requested in ["2099-01-01", "2026-07-28", "1.0"] {
        let test = format!("unsupported_revision_{requested}");
        let mut server = spawn(LATEST, &test, &[]);
        let response = server.handshake(requested);
        assert_eq!(result(&response)["protocolVersion"], LATEST, "{requested}");
        // The connection then works under the newest revision.
        let list = server.request("tools/list", None);
        assert!(result(&list)["tools"][0]["name"].is_string(), "{list}");
        server.finish();
    }
}

#[test]
fn ping_is_answered_before_and_after_initialize() {
    for_each_revision(|rev| {
        let mut server = spawn(rev, "ping_is_answered_before_and_after_initialize", &[]);
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        server.handshake(rev);
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        assert_eq!(result(&server.request("ping", Some(json!({"_meta": {}})))), &json!({}));
        server.finish();
    });
}

#[test]
fn requests_before_initialize_are_refused() {
    for_each_revision(|rev| {
        let mut server = spawn(rev, "requests_before_initialize_are_refused", &[]);
        let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
        for (method, params) in [("tools/list", None), ("tools/call", Some(echo))] {
            let response = server.request(method, params);
            assert_eq!(error_code(&response), -32602, "{response}");
            let message = response["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("`initialize`"), "{message}");
        }
        server.handshake(rev);
        assert!(result(&server.request("tools/list", None))["tools"].is_array());
        server.finish();
    });
}

#[test]
fn a_second_initialize_is_an_invalid_request() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "a_second_initialize_is_an_invalid_request", &[]);
        let again = server.request(
            "initialize",
            Some(json!({
                "protocolVersion": LATEST,
                "capabilities": {},
                "clientInfo": {"name": "again", "version": "1"},
            })),
        );
        assert_eq!(error_code(&again), -32600, "{again}");
        // The first negotiation stands: tool annotations still follow `rev`.
        let list = server.request("tools/list", None);
        let echo = &result(&list)["tools"][2];
        assert_eq!(echo["name"], "echo");
        assert_eq!(echo.get("annotations").is_some(), since(rev, "2025-03-26"), "{echo}");
        server.finish();
    });
}

#[test]
fn notifications_are_never_answered() {
    for_each_revision(|rev| {
        let mut server = spawn(rev, "notifications_are_never_answered", &[]);
        // Before initialize. An unknown notification is off-schema by design, so it stays out
        // of the transcript.
        server.send_unrecorded(r#"{"jsonrpc":"2.0","method":"notifications/no_such_thing"}"#);
        server.notify("notifications/cancelled", Some(json!({"requestId": 4242, "reason": "never sent"})));
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        // After it: a repeated `initialized`, an unknown one, a cancellation of nothing and a
        // progress report for nothing; the next line is the ping's answer.
        server.handshake(rev);
        server.notify("notifications/initialized", None);
        server.send_unrecorded(r#"{"jsonrpc":"2.0","method":"notifications/no_such_thing","params":{"x":1}}"#);
        server.notify("notifications/cancelled", Some(json!({"requestId": 4243, "reason": "never sent"})));
        server.notify("notifications/progress", Some(json!({"progressToken": "none", "progress": 1})));
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn unparsable_json_is_a_parse_error_with_a_null_id() {
    for_each_revision(|rev| {
        let mut server = spawn(rev, "unparsable_json_is_a_parse_error_with_a_null_id", &[]);
        let garbage = [
            "{not json",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}}"#,
            "\u{1}",
        ];
        // Before the handshake, and after it.
        server.send_line(garbage[0]);
        let line = server.recv_line();
        assert_eq!(raw_id(&line), "null", "{line}");
        server.handshake(rev);
        for text in garbage {
            server.send_line(text);
            let line = server.recv_line();
            let response: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(error_code(&response), -32700, "{text}: {line}");
            assert_eq!(raw_id(&line), "null", "{text}: {line}");
        }
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        server.finish();
    });
}

#[test]
fn malformed_messages_are_invalid_requests() {
    // (message, the id the answer must carry, exactly as written)
    let cases = [
        ("42", "null"),
        (r#""x""#, "null"),
        ("null", "null"),
        (r#"{"id":"no-jsonrpc","method":"ping"}"#, r#""no-jsonrpc""#),
        (r#"{"jsonrpc":"1.0","id":"old-jsonrpc","method":"ping"}"#, r#""old-jsonrpc""#),
        (r#"{"jsonrpc":2.0,"id":"number-jsonrpc","method":"ping"}"#, r#""number-jsonrpc""#),
        (r#"{"jsonrpc":"2.0","id":"method-number","method":5}"#, r#""method-number""#),
        (r#"{"jsonrpc":"2.0","id":"params-array","method":"ping","params":[1]}"#, r#""params-array""#),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":[7],"method":"ping"}"#, "null"),
    ];
    for_each_revision(|rev| {
        let mut server = connect(rev, "malformed_messages_are_invalid_requests", &[]);
        for (text, id) in cases {
            server.send_line(text);
            let line = server.recv_line();
            let response: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(error_code(&response), -32600, "{text}: {line}");
            assert_eq!(raw_id(&line), id, "{text}: {line}");
        }
        assert_eq!(result(&server.request("ping", None)), &json!({}));
        server.finish();
    });
}

#[test]
fn unknown_and_undeclared_methods_are_not_found() {
    let methods = [
        ("no/such/method", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "test://embedded"})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "x"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}}),
        ),
        ("logging/setLevel", json!({"level": "info"})),
    ];
    for_each_revision(|rev| {
        let mut server = connect(rev, "unknown_and_undeclared_methods_are_not_found", &[]);
        for (method, params) in &methods {
            let response = server.request(method, Some(params.clone()));
            assert_eq!(error_code(&response), -32601, "{method}: {response}");
        }
        server.finish();
    });
}

#[test]
fn unknown_tools_and_malformed_calls_are_invalid_params() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "unknown_tools_and_malformed_calls_are_invalid_params", &[]);
        let unknown = server.request("tools/call", Some(json!({"name": "no_such_tool"})));
        assert_eq!(error_code(&unknown), -32602, "{unknown}");
        let message = unknown["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("no_such_tool"), "{message}");
        for params in [None, Some(json!({})), Some(json!({"name": "echo", "arguments": [1]}))] {
            let response = server.request("tools/call", params.clone());
            assert_eq!(error_code(&response), -32602, "{params:?}: {response}");
        }
        server.finish();
    });
}

#[test]
fn tool_failures_are_results_with_is_error() {
    // (tool, arguments, a piece of the error text)
    let cases = [
        ("add", json!({"a": "one", "b": 2}), "`a`"),
        ("add", json!({"a": 1}), "`b`"),
        ("add", json!({"a": i64::MAX, "b": 1}), "overflows"),
        ("echo", json!({"text": 5}), "`text`"),
        ("sleep", json!({"ms": -1}), "`ms`"),
        ("fail", json!({}), "this tool always fails"),
    ];
    for_each_revision(|rev| {
        let mut server = connect(rev, "tool_failures_are_results_with_is_error", &[]);
        for (tool, arguments, needle) in &cases {
            let result = call(&mut server, tool, arguments.clone());
            assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
            let text = only_text(&result);
            assert!(text.contains(needle), "{tool} {arguments}: {text}");
        }
        // The same tools succeed with good arguments.
        let sum = call(&mut server, "add", json!({"a": 2, "b": 3}));
        assert_eq!(only_text(&sum), "5");
        assert!(sum.get("isError").is_none_or(|e| e == false), "{sum}");
        server.finish();
    });
}

#[test]
fn a_panicking_tool_fails_only_its_own_request() {
    for_each_revision(|rev| {
        let mut server =
            manual(&[]).record(rev, "a_panicking_tool_fails_only_its_own_request").capture_stderr().spawn();
        server.handshake(rev);
        let result = call(&mut server, "panic", json!({}));
        assert_eq!(result["isError"], true, "{result}");
        let text = only_text(&result);
        assert!(!text.contains("always panics"), "panic details belong in the log, not in the result: {text}");
        let echo = call(&mut server, "echo", json!({"text": "still here"}));
        assert_eq!(only_text(&echo), "still here");
        server.finish();
        assert!(
            server.stderr().contains("this tool always panics"),
            "the panic is logged on stderr: {}",
            server.stderr()
        );
    });
}

#[test]
fn ids_are_echoed_exactly() {
    let ids = [
        "0",
        "-7",
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        r#""""#,
        r#""42""#,
        r#""caf\u00e9 \"quoted\" back\\slash\nnew line\ttab \ud83d\ude00 \u2028\u2029""#,
        r#""plain ünïcödé 😀""#,
    ];
    // Each id goes through one path: an immediate result, an error, a deferred tool result.
    let paths =
        [("ping", "{}"), ("no/such/method", "{}"), ("tools/call", r#"{"name":"echo","arguments":{"text":"id"}}"#)];
    for_each_revision(|rev| {
        let mut server = connect(rev, "ids_are_echoed_exactly", &[]);
        for (i, id) in ids.iter().enumerate() {
            let (method, params) = paths[i % paths.len()];
            server.send_line(&raw_request(id, method, params));
            let line = server.recv_line();
            let echoed = raw_id(&line);
            if id.starts_with('"') {
                // The same string, however the server chooses to escape it.
                let sent: String = serde_json::from_str(id).unwrap();
                let got: String =
                    serde_json::from_str(&echoed).unwrap_or_else(|_| panic!("a string id came back as {echoed}"));
                assert_eq!(got, sent, "{line}");
            } else {
                assert_eq!(echoed, *id, "integer ids come back digit for digit: {line}");
            }
        }
        server.finish();
    });
}

#[test]
fn batches_are_accepted_only_under_2025_03_26() {
    let batch = [
        raw_request(r#""b-ping""#, "ping", "{}"),
        raw_request(r#""b-echo""#, "tools/call", r#"{"name":"echo","arguments":{"text":"in a batch"}}"#),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#.to_owned(),
        raw_request("777", "no/such/method", "{}"),
        raw_request(r#""b-sleep""#, "tools/call", r#"{"name":"sleep","arguments":{"ms":50}}"#),
    ];
    let batch = format!("[{}]", batch.join(","));
    let notifications = r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    for_each_revision(|rev| {
        let mut server = connect(rev, "batches_are_accepted_only_under_2025_03_26", &[]);
        server.send_line(&batch);
        let answer = server.recv();
        if rev == "2025-03-26" {
            let items = answer.as_array().unwrap_or_else(|| panic!("{answer}"));
            let by_id = |id: Value| {
                items.iter().find(|item| item["id"] == id).unwrap_or_else(|| panic!("no answer for {id} in {answer}"))
            };
            assert_eq!(items.len(), 4, "one answer per request: {answer}");
            assert_eq!(result(by_id(json!("b-ping"))), &json!({}));
            assert_eq!(only_text(result(by_id(json!("b-echo")))), "in a batch");
            assert_eq!(error_code(by_id(json!(777))), -32601);
            assert_eq!(only_text(result(by_id(json!("b-sleep")))), "slept 50 ms");
            // Notifications only: no answer at all, so the next line answers the ping.
            server.send_line(notifications);
            assert_eq!(result(&server.request("ping", None)), &json!({}));
        } else {
            assert_eq!(error_code(&answer), -32600, "{answer}");
            assert_eq!(answer["id"], Value::Null);
            server.send_line(notifications);
            assert_eq!(error_code(&server.recv()), -32600);
            // Nothing in the refused batch ran: the next line answers the ping.
            assert_eq!(result(&server.request("ping", None)), &json!({}));
        }
        server.send_line("[]");
        let empty = server.recv();
        assert_eq!(error_code(&empty), -32600, "{empty}");
        assert_eq!(empty["id"], Value::Null);
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// tools/list
// ---------------------------------------------------------------------------------------------

#[test]
fn tools_list_pages_through_every_tool_once() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "tools_list_pages_through_every_tool_once", &["--page-size", "2"]);
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..=ALL_TOOLS.len() {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let response = server.request("tools/list", params);
            let page = result(&response);
            let tools = page["tools"].as_array().expect("tools is an array");
            assert!((1..=2).contains(&tools.len()), "pages of at most 2: {page}");
            seen.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            match page.get("nextCursor") {
                None => break,
                Some(next) => {
                    let next = next.as_str().expect("nextCursor is a string");
                    assert!(!next.is_empty());
                    cursor = Some(next.to_owned());
                }
            }
        }
        assert_eq!(seen, ALL_TOOLS, "every tool exactly once, in order");
        for bad in [json!("not-a-cursor"), json!(""), json!(5)] {
            let response = server.request("tools/list", Some(json!({"cursor": bad})));
            assert_eq!(error_code(&response), -32602, "{bad}: {response}");
        }
        server.finish();
    });
}

#[test]
fn tools_are_listed_as_each_revision_defines_them() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "tools_are_listed_as_each_revision_defines_them", &[]);
        let response = server.request("tools/list", None);
        let list = result(&response);
        assert!(list.get("nextCursor").is_none(), "one page: {list}");
        let tools = list["tools"].as_array().expect("tools is an array");
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ALL_TOOLS);
        let mut allowed = vec!["description", "inputSchema", "name"];
        if since(rev, "2025-03-26") {
            allowed.push("annotations");
        }
        if since(rev, "2025-06-18") {
            allowed.extend(["title", "outputSchema", "_meta"]);
        }
        if since(rev, "2025-11-25") {
            allowed.push("icons");
        }
        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            for key in keys(tool) {
                assert!(allowed.contains(&key), "{rev} has no `{key}`: {tool}");
            }
            assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
            let annotations = match name {
                "echo" => Some(json!({"readOnlyHint": true})),
                "add" => Some(json!({"readOnlyHint": true, "idempotentHint": true})),
                _ => None,
            };
            let annotations = annotations.filter(|_| since(rev, "2025-03-26"));
            assert_eq!(tool.get("annotations"), annotations.as_ref(), "{tool}");
            let output = tool.get("outputSchema");
            match name {
                "point" if since(rev, "2025-06-18") => {
                    let schema = output.unwrap_or_else(|| panic!("{tool}"));
                    assert_eq!(schema["type"], "object", "{schema}");
                    assert_eq!(keys(&schema["properties"]), ["x", "y"], "{schema}");
                }
                "numbers" if since(rev, "2025-06-18") => {
                    let schema = output.unwrap_or_else(|| panic!("{tool}"));
                    assert_eq!(keys(schema), ["properties", "required", "type"], "{schema}");
                    assert_eq!(schema["type"], "object");
                    assert_eq!(schema["required"], json!(["result"]));
                    assert_eq!(keys(&schema["properties"]), ["result"]);
                    assert_eq!(schema["properties"]["result"]["type"], "array", "{schema}");
                }
                _ => assert!(output.is_none(), "{tool}"),
            }
        }
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// tools/call
// ---------------------------------------------------------------------------------------------

#[test]
fn content_kinds_are_converted_per_revision() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "content_kinds_are_converted_per_revision", &[]);
        let result = call(&mut server, "content_kinds", json!({}));
        assert!(result.get("structuredContent").is_none(), "{result}");
        assert!(result.get("isError").is_none_or(|e| e == false), "{result}");
        let content = result["content"].as_array().expect("content is an array");
        let kinds: Vec<&str> = content.iter().map(|c| c["type"].as_str().unwrap()).collect();
        let expected: &[&str] = match rev {
            "2024-11-05" => &["text", "image", "resource", "text", "resource"],
            "2025-03-26" => &["text", "image", "audio", "text", "resource"],
            _ => &["text", "image", "audio", "resource_link", "resource"],
        };
        assert_eq!(kinds, expected, "{result}");

        let mut annotations = json!({"audience": ["user"], "priority": 0.5});
        if since(rev, "2025-06-18") {
            annotations["lastModified"] = json!("2025-01-01T00:00:00Z");
        }
        assert_eq!(content[0]["annotations"], annotations, "{}", content[0]);
        assert_eq!(content[1]["mimeType"], "image/png");

        let audio = &content[2];
        if since(rev, "2025-03-26") {
            assert_eq!(audio["data"], "UklGRgAAAABXQVZF", "{audio}");
            assert_eq!(audio["mimeType"], "audio/wav", "{audio}");
        } else {
            let blob = &audio["resource"];
            assert_eq!(blob["blob"], "UklGRgAAAABXQVZF", "{audio}");
            assert_eq!(blob["mimeType"], "audio/wav", "{audio}");
            assert!(blob["uri"].is_string(), "{audio}");
        }

        let link = &content[3];
        if since(rev, "2025-06-18") {
            assert_eq!(link["uri"], "test://linked", "{link}");
            assert_eq!(link["name"], "linked", "{link}");
        } else {
            let text = link["text"].as_str().unwrap_or_default();
            assert!(text.contains("test://linked"), "{link}");
        }

        assert_eq!(
            content[4]["resource"],
            json!({"uri": "test://embedded", "mimeType": "text/plain", "text": "embedded"})
        );
        server.finish();
    });
}

#[test]
fn structured_output_follows_the_revision() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "structured_output_follows_the_revision", &[]);
        let cases = [
            ("point", json!({"x": 1, "y": 2}), json!({"x": 1, "y": 2})),
            ("numbers", json!([1, 2, 3]), json!({"result": [1, 2, 3]})),
        ];
        for (tool, value, structured) in cases {
            let result = call(&mut server, tool, json!({}));
            // Every revision gets the JSON as text.
            let text: Value = serde_json::from_str(only_text(&result)).expect("JSON text");
            assert_eq!(text, value, "{result}");
            let expected = since(rev, "2025-06-18").then_some(&structured);
            assert_eq!(result.get("structuredContent"), expected, "{result}");
        }
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------------

#[test]
fn a_slow_call_does_not_hold_up_later_requests() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "a_slow_call_does_not_hold_up_later_requests", &[]);
        let sleep = server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 1500}})));
        let ping = server.send_request("ping", None);
        let echo = server.send_request("tools/call", Some(json!({"name": "echo", "arguments": {"text": "quick"}})));
        let order: Vec<Value> = (0..3).map(|_| server.recv()["id"].clone()).collect();
        assert_eq!(order[2], json!(sleep), "the sleep answers last: {order:?}");
        assert!(order.contains(&json!(ping)) && order.contains(&json!(echo)));
        server.finish();
    });
}

#[test]
fn max_in_flight_applies_back_pressure_to_requests_only() {
    for_each_revision(|rev| {
        let mut server =
            connect(rev, "max_in_flight_applies_back_pressure_to_requests_only", &["--max-in-flight", "2"]);
        let start = Instant::now();
        let sleeps: Vec<i64> = (0..3)
            .map(|_| server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 500}}))))
            .collect();
        let ping = server.send_request("ping", None);
        let mut order = Vec::new();
        let mut last_sleep = Duration::ZERO;
        for _ in 0..4 {
            let response = server.recv();
            let id = response["id"].as_i64().expect("integer id");
            if id != ping {
                assert_eq!(only_text(result(&response)), "slept 500 ms");
                last_sleep = start.elapsed();
            }
            order.push(id);
        }
        let mut sleeps_seen: Vec<i64> = order.iter().copied().filter(|&id| id != ping).collect();
        sleeps_seen.sort_unstable();
        assert_eq!(sleeps_seen, sleeps, "every sleep answered once");
        assert!(
            last_sleep >= Duration::from_millis(950),
            "two at a time, three sleeps of 500 ms take about 1 s, not {last_sleep:?}"
        );
        // The ping is not a request that waits for a slot: it is answered while the third
        // sleep still waits for one.
        let ping_at = order.iter().position(|&id| id == ping).unwrap();
        assert!(ping_at < 3, "ping answered before the last sleep: {order:?}");
        server.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------------------------

#[test]
fn oversized_messages_are_rejected_and_reading_goes_on() {
    for_each_revision(|rev| {
        let mut server =
            connect(rev, "oversized_messages_are_rejected_and_reading_goes_on", &["--max-message-size", "1024"]);
        let big = "x".repeat(2000);
        server.send_request("tools/call", Some(json!({"name": "echo", "arguments": {"text": big}})));
        let line = server.recv_line();
        let response: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(error_code(&response), -32600, "{line}");
        assert_eq!(raw_id(&line), "null", "{line}");
        let fits = "y".repeat(900);
        let echo = call(&mut server, "echo", json!({"text": fits}));
        assert_eq!(only_text(&echo), fits);
        server.finish();
    });
}

#[test]
fn stdout_carries_only_json_rpc_while_the_server_logs() {
    for_each_revision(|rev| {
        let mut server =
            manual(&[]).record(rev, "stdout_carries_only_json_rpc_while_the_server_logs").capture_stderr().spawn();
        server.handshake(rev);
        // Paths that log: a panic, a parse error, bad arguments.
        call(&mut server, "panic", json!({}));
        server.send_line("{oops");
        assert_eq!(error_code(&server.recv()), -32700);
        call(&mut server, "add", json!({"a": "x"}));
        server.finish();
        assert!(!server.stderr().is_empty(), "the panic went to stderr");
        let lines = server.server_lines();
        assert_eq!(lines.len(), 4, "one line per answer: {lines:?}");
    });
}

#[test]
fn closing_stdin_ends_the_server_after_in_flight_responses() {
    for_each_revision(|rev| {
        let mut server = connect(rev, "closing_stdin_ends_the_server_after_in_flight_responses", &[]);
        let id = server.send_request("tools/call", Some(json!({"name": "sleep", "arguments": {"ms": 300}})));
        let closed = Instant::now();
        server.close_stdin();
        let response = server.recv();
        assert_eq!(response["id"], json!(id));
        assert_eq!(only_text(result(&response)), "slept 300 ms");
        let status = server.wait();
        assert!(status.success(), "exit status {status}");
        assert!(closed.elapsed() < Duration::from_secs(3), "exited {:?} after stdin closed", closed.elapsed());
        server.finish();
    });
}
