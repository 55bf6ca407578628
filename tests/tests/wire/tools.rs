//! Tools: `tools/list` paging and showing what each revision defines, `tools/call` errors
//! (protocol errors and tool errors, a panic), and content kinds converted per revision.

use mcp_tests::MANUAL_TEST_TOOLS as ALL_TOOLS;
use mcp_tests::wire::{error_code, manual, only_text, result};
use serde_json::json;

use crate::common::{call, connect, for_each_revision, keys, since};

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
