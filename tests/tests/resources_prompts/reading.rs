//! `resources/read`: text, blob and several contents, template variables bound from the URI,
//! and what is not found.

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::json;

use crate::common::{Conn, not_found_code, texts};

#[test]
fn resources_read_gives_text_blob_and_several_contents() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "resources_read_gives_text_blob_and_several_contents", &[]);
        let text = conn.read("test://static");
        assert_eq!(text, [json!({"uri": "test://static", "mimeType": "text/plain", "text": "hello"})], "{rev}");

        let blob = conn.read("test://binary");
        assert_eq!(blob.len(), 1, "{rev}: {blob:?}");
        assert_eq!(blob[0]["mimeType"], "application/octet-stream", "{rev}: {blob:?}");
        let bytes = base64_decode(blob[0]["blob"].as_str().unwrap_or_else(|| panic!("a blob: {blob:?}")));
        assert_eq!(bytes, [0, 1, 2, 255], "{rev}: {blob:?}");

        let parts = conn.read("test://two-parts");
        assert_eq!(texts(&parts), ["part one", "part two"], "{rev}");
        assert!(parts.iter().all(|p| p["mimeType"] == "text/plain"), "{rev}: {parts:?}");

        // Templates: the variables bound from the URI (percent-decoded), the template's MIME type.
        let item = conn.read("test://items/2");
        assert_eq!(item, [json!({"uri": "test://items/2", "mimeType": "text/plain", "text": "item number 2"})]);
        assert_eq!(texts(&conn.read("test://colors/blue/navy")), ["navy blue"], "{rev}");
        assert_eq!(texts(&conn.read("test://colors/dark%20red/light")), ["light dark red"], "{rev}");
        conn.finish();
    });
}

/// -32002 with `data.uri` under the handshake revisions, -32602 (with `data.uri`) under
/// 2026-07-28; a template variable that does not parse is -32602 naming the variable.
#[test]
fn reading_what_does_not_exist_is_not_found() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "reading_what_does_not_exist_is_not_found", &[]);
        // No resource or template matches; the template matches but its reader finds nothing.
        for uri in ["test://nope", "test://static/more", "test://items/", "other://static", "test://items/9"] {
            let error = conn.fail("resources/read", json!({"uri": uri}));
            assert_eq!(error["code"], not_found_code(rev), "{rev} {uri}: {error}");
            assert_eq!(error["data"]["uri"], uri, "{rev}: {error}");
        }
        for id in ["x", "-1", "1.5"] {
            let uri = format!("test://items/{id}");
            let error = conn.fail("resources/read", json!({"uri": uri}));
            assert_eq!(error["code"], -32602, "{rev} {uri}: {error}");
            let message = error["message"].as_str().unwrap_or_default();
            assert!(message.contains("`id`"), "{rev}: the message names the variable: {error}");
        }
        conn.finish();
    });
}

/// Decodes standard base64 (with padding); panics on anything else.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    assert_eq!(text.len() % 4, 0, "base64 comes in groups of four: {text:?}");
    let mut bytes = Vec::new();
    for group in text.as_bytes().chunks(4) {
        let padding = group.iter().rev().take_while(|&&c| c == b'=').count();
        let bits = group.iter().take(4 - padding).enumerate().fold(0u32, |bits, (i, c)| {
            let digit = ALPHABET.iter().position(|a| a == c).unwrap_or_else(|| panic!("not base64: {text:?}"));
            bits | (u32::try_from(digit).expect("a base64 digit") << (18 - 6 * i))
        });
        bytes.extend(bits.to_be_bytes()[1..].iter().take(3 - padding));
    }
    bytes
}
