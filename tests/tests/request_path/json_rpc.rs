//! JSON-RPC answer rules on the request path: the message size limit, what is never answered,
//! which lines are skipped, members compared after decoding, and errors quoting little of the
//! client's input.

use mcp_tests::wire::{ALL_REVISIONS, HANDSHAKE_REVISIONS, error_code, for_each_revision, only_text, result};
use serde_json::{Value, json};

use crate::common::{connect, ids, send, send_call, send_quick};

#[test]
fn the_default_message_limit_is_4_mib_without_the_line_ending() {
    let rev = "2025-06-18";
    let mut server = connect(rev, "the_default_message_limit_is_4_mib_without_the_line_ending", &[]);
    let limit = 4 * 1024 * 1024;
    let envelope = |text: &str| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}})
            .to_string()
    };
    let overhead = envelope("").len();
    let fits = envelope(&"x".repeat(limit - overhead));
    assert_eq!(fits.len(), limit);
    // A CRLF ending does not count against the limit.
    server.send_unrecorded(&format!("{fits}\r"));
    assert_eq!(only_text(result(&server.recv())).len(), limit - overhead);
    let over = envelope(&"x".repeat(limit - overhead + 1));
    server.send_unrecorded(&over);
    assert_eq!(error_code(&server.recv()), -32600);
    server.finish();
}

#[test]
fn responses_and_malformed_notifications_are_never_answered() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "responses_and_malformed_notifications_are_never_answered", &[]);
        for line in [
            r#"{"jsonrpc":"2.0","id":97,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}"#,
            r#"{"jsonrpc":"2.0","id":"x","error":"not even an error object"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
            r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":42}"#,
        ] {
            server.send_unrecorded(line);
        }
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 1), vec![quick], "nothing before the answer to the request");
        server.finish();
    });
}

#[test]
fn only_json_whitespace_lines_are_skipped() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "only_json_whitespace_lines_are_skipped", &[]);
        server.send_unrecorded(" \t ");
        server.send_unrecorded("");
        for blank in ["\u{a0}", "\u{b}", "\u{c}"] {
            server.send_unrecorded(blank);
            let answer = server.recv();
            assert_eq!(error_code(&answer), -32700, "{blank:?}: {answer}");
            assert_eq!(answer["id"], Value::Null);
        }
        let quick = send_quick(&mut server, rev);
        assert_eq!(ids(&mut server, 1), vec![quick]);
        server.finish();
    });
}

#[test]
fn members_are_compared_after_decoding() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let mut server = connect(rev, "members_are_compared_after_decoding", &[]);
        server.send_line(r#"{"jsonrpc":"2\u002e0","id":5,"method":"p\u0069ng"}"#);
        let answer = server.recv();
        assert_eq!(answer["result"], json!({}), "{answer}");
        server.finish();
    });
}

#[test]
fn errors_quote_a_short_prefix_of_client_input() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server = connect(rev, "errors_quote_a_short_prefix_of_client_input", &["--test-items"]);
        let long = "y".repeat(100_000);
        // The longest run of the client's `y`s in the error's message: some, at most 64.
        let quoted = |answer: &Value| {
            let message = answer["error"]["message"].as_str().unwrap_or_else(|| panic!("an error: {answer}"));
            message.split(|c| c != 'y').map(str::len).max().unwrap_or(0)
        };
        send(&mut server, rev, "resources/read", json!({"uri": format!("test://{long}")}));
        let answer = server.recv();
        assert!((1..=64).contains(&quoted(&answer)), "{} characters quoted: {answer}", quoted(&answer));
        send_call(&mut server, rev, &long, json!({}));
        let answer = server.recv();
        assert!((1..=64).contains(&quoted(&answer)), "{} characters quoted: {answer}", quoted(&answer));
        assert_eq!(error_code(&answer), -32602);
        server.finish();
    });
}
