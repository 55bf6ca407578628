//! Resource subscriptions: `resources/subscribe` and `resources/unsubscribe` in the handshake
//! revisions, `subscriptions/listen` streams in 2026-07-28.

use std::collections::BTreeSet;

use mcp_tests::wire::{HANDSHAKE_REVISIONS, SERVER_INFO_KEY, STATELESS_REVISION as MODERN, for_each_revision, raw_id};
use serde_json::{Value, json};

use crate::common::{Conn, Kind, SUBSCRIPTION_ID, VERSION, items, listen, tagged};

/// `notifications/resources/updated {uri}`, exactly.
fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
}

/// `resources/subscribe` → `{}`, then each change of a subscribed URI (fixed or matching a
/// subscribable template) is notified, once `notifications/initialized` arrived, until
/// `resources/unsubscribe`; nothing else is.
#[test]
fn handshake_subscriptions_notify_updates_until_unsubscribed() {
    for_each_revision(&HANDSHAKE_REVISIONS, |rev| {
        let test = "handshake_subscriptions_notify_updates_until_unsubscribed";
        let mut conn = Conn::spawn(items(&[]), "manual", rev, test);
        conn.initialize();
        assert_eq!(conn.ok("resources/subscribe", Some(json!({"uri": "test://static"}))), json!({}), "{rev}");
        // Nothing of the server's own before `notifications/initialized`.
        conn.touch("test://static", 0);
        conn.initialized();
        assert_eq!(conn.touch("test://static", 1), [updated("test://static")], "{rev}");

        assert_eq!(conn.ok("resources/subscribe", Some(json!({"uri": "test://items/2"}))), json!({}), "{rev}");
        assert_eq!(conn.touch("test://items/2", 1), [updated("test://items/2")], "{rev}");
        for unsubscribed in ["test://items/3", "test://two-parts", "test://binary"] {
            conn.touch(unsubscribed, 0);
        }

        assert_eq!(conn.ok("resources/unsubscribe", Some(json!({"uri": "test://static"}))), json!({}), "{rev}");
        conn.touch("test://static", 0);
        assert_eq!(conn.touch("test://items/2", 1), [updated("test://items/2")], "{rev}: still subscribed");
        assert_eq!(conn.ok("resources/unsubscribe", Some(json!({"uri": "test://items/2"}))), json!({}), "{rev}");
        conn.touch("test://items/2", 0);

        for uri in ["test://binary", "test://two-parts"] {
            let error = conn.fail("resources/subscribe", json!({"uri": uri}));
            assert_eq!(error["code"], -32602, "{rev}: {uri} is not subscribable: {error}");
        }
        let error = conn.fail("resources/subscribe", json!({"uri": "test://nope"}));
        assert_eq!((&error["code"], &error["data"]["uri"]), (&json!(-32002), &json!("test://nope")), "{rev}: {error}");
        // 2026-07-28's stream does not exist here.
        let listen = conn.fail("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
        assert_eq!(listen["code"], -32601, "{rev}: {listen}");
        conn.close();
    });
}

/// The stream acknowledges the honoured subset of its filter (unknown and non-subscribable
/// URIs dropped) first; then sends only what it asked for, tagged with its id, until
/// `notifications/cancelled`; when standard input closes, each open stream gets its final
/// result. `resources/subscribe` does not exist in this revision.
#[test]
fn subscriptions_listen_streams_what_was_asked_until_cancelled() {
    let mut conn = Conn::manual(MODERN, "subscriptions_listen_streams_what_was_asked_until_cancelled", &[]);
    let (tools, lists) = (json!("tools-and-resources"), json!(1000));
    let ack = listen(
        &mut conn,
        &tools,
        json!({
            "toolsListChanged": true,
            "resourceSubscriptions": ["test://static", "test://binary", "test://nope", "test://items/2"],
        }),
    );
    assert_eq!(ack["toolsListChanged"], true, "{ack}");
    let honoured: BTreeSet<&str> =
        ack["resourceSubscriptions"].as_array().expect("URIs").iter().map(|u| u.as_str().expect("a URI")).collect();
    assert_eq!(honoured, BTreeSet::from(["test://static", "test://items/2"]), "{ack}");
    assert_eq!(ack.as_object().map(|a| a.len()), Some(2), "nothing else: {ack}");

    let ack = listen(
        &mut conn,
        &lists,
        json!({"promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["test://two-parts"]}),
    );
    assert_eq!(ack["promptsListChanged"], true, "{ack}");
    assert_eq!(ack["resourcesListChanged"], true, "{ack}");
    assert!(ack.get("toolsListChanged").is_none_or(|t| t == false), "{ack}");
    assert!(ack.get("resourceSubscriptions").is_none_or(|s| s == &json!([])), "{ack}");

    let updated = "notifications/resources/updated";
    for uri in ["test://static", "test://items/2"] {
        assert_eq!(conn.touch(uri, 1), [tagged(updated, &tools, json!({"uri": uri}))]);
    }
    for uri in ["test://two-parts", "test://items/3", "test://binary"] {
        conn.touch(uri, 0);
    }
    let tools_changed = tagged("notifications/tools/list_changed", &tools, json!({}));
    assert_eq!(conn.change(Kind::Tool, "echo", "disable", 1), std::slice::from_ref(&tools_changed));
    assert_eq!(conn.tool_names(), ["add", "add_item", "change_item", "touch"]);
    let error = conn.fail("tools/call", json!({"name": "echo", "arguments": {"text": "gone"}}));
    assert_eq!(error["code"], -32602, "an unknown tool: {error}");
    assert_eq!(conn.change(Kind::Tool, "echo", "enable", 1), [tools_changed]);
    conn.call("echo", json!({"text": "back"}), "back", 0);

    // Ending the first stream: nothing more for it, and the other one asked for none of this.
    conn.server.notify("notifications/cancelled", Some(json!({"requestId": tools, "reason": "done"})));
    conn.touch("test://static", 0);
    conn.change(Kind::Tool, "echo", "disable", 0);
    conn.change(Kind::Tool, "echo", "enable", 0);

    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let error = conn.fail(method, json!({"uri": "test://static"}));
        assert_eq!(error["code"], -32601, "{method}: {error}");
    }
    let error = conn.fail("subscriptions/listen", json!({}));
    assert_eq!(error["code"], -32602, "a listen without `notifications`: {error}");

    // Standard input closes with the second stream open: it gets its result, then the server
    // exits; the cancelled stream never gets one.
    conn.server.close_stdin();
    let last = conn.server.recv();
    let server_info = json!({"name": "manual", "version": VERSION});
    let want = json!({"resultType": "complete", "_meta": {SUBSCRIPTION_ID: lists, SERVER_INFO_KEY: server_info}});
    assert_eq!(last, json!({"jsonrpc": "2.0", "id": lists, "result": want}));
    let status = conn.server.wait();
    assert!(status.success(), "the server exited with {status}");
    let cancelled = tools.to_string();
    let lines = conn.server.server_lines();
    assert!(!lines.iter().any(|line| raw_id(line) == cancelled), "no response for a cancelled stream: {lines:#?}");
}
