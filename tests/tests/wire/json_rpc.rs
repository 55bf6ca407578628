//! JSON-RPC rules on the wire: notifications are never answered, parse errors and invalid
//! requests carry the id they can, unknown methods are not found, ids come back exactly as
//! written, batches exist in 2025-03-26 only.

use mcp_tests::wire::{error_code, only_text, raw_id, result};
use serde_json::{Value, json};

use crate::common::{connect, for_each_revision, spawn};

/// A request line with the id and params exactly as written.
fn raw_request(id: &str, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
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

/// A method and a tool named with escapes are read as the text they stand for (names are read
/// borrowed from the line, which must fall back to decoding when they are escaped).
#[test]
fn names_written_with_escapes_are_read_as_their_text() {
    let escaped = [
        r#"{"jsonrpc":"2.0","id":10,"method":"tools\/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"\u0061dd","arguments":{"a":2,"b":3}}}"#,
    ];
    for_each_revision(|rev| {
        let mut server = connect(rev, "names_written_with_escapes_are_read_as_their_text", &[]);
        for line in escaped {
            server.send_line(line);
            let answer: Value = serde_json::from_str(&server.recv_line()).expect("a JSON answer");
            assert_eq!(only_text(result(&answer)), "5", "{line}: {answer}");
        }
        server.finish();
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
