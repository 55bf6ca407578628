//! The handshake: `initialize` negotiating each revision (and answering others with the newest),
//! `ping` on either side of it, what comes before it and a second one.

use std::time::Duration;

use mcp_tests::wire::{LATEST_HANDSHAKE_REVISION as LATEST, error_code, result};
use serde_json::json;

use crate::common::{connect, for_each_revision, keys, since, spawn};

/// `manual` shares the workspace's version with this package.
const VERSION: &str = env!("CARGO_PKG_VERSION");

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
