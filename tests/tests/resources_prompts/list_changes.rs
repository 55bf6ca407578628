//! List changes (dynamic lists): `change_item` and `add_item` disable, enable, add and remove
//! items of every kind while the server runs, in every revision; each change is notified and
//! seen in the lists.

use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::{Value, json};

use crate::common::{Conn, Kind, items, listen, tagged};

/// Disabling, enabling, adding and removing an item of `kind`: each change is notified (the
/// handshake revisions: once the client sent `notifications/initialized`; 2026-07-28: on the
/// stream that asked for that list, tagged with its id, and on no other), the list shows it,
/// and a disabled or removed item is answered as an unknown one. A change to what already is,
/// and an item added under a name taken (even by a disabled item), are tool errors naming the
/// item, notified to no one.
fn list_changes_of(kind: Kind) {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let test = format!("dynamic_lists_{}", kind.name());
        let mut conn = Conn::spawn(items(&[]), "manual", rev, &test);
        let (key, text) = kind.initial();
        let notified = if conn.modern() {
            // Stream ids stay clear of the requests' (1, 2, ...): an open stream's id is in use.
            let (mine, others) = (json!(format!("{}-changes", kind.name())), json!(9000));
            let flag = kind.flag();
            assert_eq!(listen(&mut conn, &mine, json!({flag: true})), json!({flag: true}), "{rev}");
            let other: serde_json::Map<String, Value> =
                ["toolsListChanged", "resourcesListChanged", "promptsListChanged"]
                    .into_iter()
                    .filter(|f| *f != flag)
                    .map(|f| (f.to_owned(), json!(true)))
                    .collect();
            let other = Value::Object(other);
            assert_eq!(listen(&mut conn, &others, other.clone()), other, "{rev}");
            tagged(kind.list_changed(), &mine, json!({}))
        } else {
            // Changes before `notifications/initialized` are made, but not notified.
            conn.initialize();
            conn.change(kind, key, "disable", 0);
            conn.assert_present(kind, key, text, false);
            conn.change(kind, key, "enable", 0);
            conn.initialized();
            json!({"jsonrpc": "2.0", "method": kind.list_changed()})
        };
        let notified = std::slice::from_ref(&notified);
        let change = |conn: &mut Conn, key: &str, action: &str| {
            assert_eq!(conn.change(kind, key, action, 1), notified, "{rev}: {action} {kind:?} `{key}`");
        };
        let refused = |conn: &mut Conn, key: &str, action: &str| {
            conn.refused("change_item", json!({"kind": kind.name(), "key": key, "action": action}), &[key]);
        };

        conn.assert_present(kind, key, text, true);
        change(&mut conn, key, "disable");
        conn.assert_present(kind, key, text, false);
        if kind == Kind::Template {
            // Its items go from `resources/list` with it.
            let resources = conn.keys(Kind::Resource);
            assert!(!resources.iter().any(|uri| uri.starts_with("test://items/")), "{rev}: {resources:?}");
        }
        refused(&mut conn, key, "disable");
        change(&mut conn, key, "enable");
        conn.assert_present(kind, key, text, true);
        refused(&mut conn, key, "enable");

        if let Some((added, added_text)) = kind.added("extra") {
            let taken = json!({"kind": kind.name(), "name": "extra"});
            assert_eq!(conn.add(kind, "extra", 1), notified, "{rev}");
            conn.assert_present(kind, &added, &added_text, true);
            conn.refused("add_item", taken.clone(), &[&added]);
            // A disabled item keeps its name; a removed one frees it.
            change(&mut conn, &added, "disable");
            conn.assert_present(kind, &added, &added_text, false);
            conn.refused("add_item", taken.clone(), &[&added]);
            change(&mut conn, &added, "remove");
            conn.assert_present(kind, &added, &added_text, false);
            assert_eq!(conn.add(kind, "extra", 1), notified, "{rev}");
            conn.assert_present(kind, &added, &added_text, true);
        }

        change(&mut conn, key, "remove");
        conn.assert_present(kind, key, text, false);
        for action in ["enable", "disable", "remove"] {
            refused(&mut conn, key, action);
        }
        conn.close();
    });
}

#[test]
fn tool_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Tool);
}

#[test]
fn resource_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Resource);
}

#[test]
fn template_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Template);
}

#[test]
fn prompt_list_changes_are_notified_and_seen() {
    list_changes_of(Kind::Prompt);
}

/// Removing a disabled item of any kind removes it: it stays unlisted and unknown, and there is
/// nothing left to enable.
#[test]
fn removing_a_disabled_item_removes_it() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "removing_a_disabled_item_removes_it", &[]);
        let n = usize::from(!conn.modern());
        for kind in [Kind::Tool, Kind::Resource, Kind::Template, Kind::Prompt] {
            let (key, text) = kind.initial();
            conn.change(kind, key, "disable", n);
            conn.change(kind, key, "remove", n);
            conn.assert_present(kind, key, text, false);
            let arguments = json!({"kind": kind.name(), "key": key, "action": "enable"});
            conn.refused("change_item", arguments, &[key]);
        }
        conn.close();
    });
}

/// `change_item` and `add_item` answer what they cannot do with a tool error naming the
/// problem: an unknown kind or action, a missing argument, an unknown item (or one of another
/// kind), a name taken, a tool name that is not one. Nothing changes.
#[test]
fn change_item_and_add_item_refuse_bad_input() {
    let cases = [
        ("change_item", json!({"kind": "widget", "key": "echo", "action": "disable"}), &["`kind`", "widget"][..]),
        ("change_item", json!({"kind": "tool", "key": "echo", "action": "toggle"}), &["`action`", "toggle"]),
        ("change_item", json!({"kind": "tool", "key": "echo"}), &["`action`"]),
        ("change_item", json!({"kind": "tool", "key": "no_such_tool", "action": "disable"}), &["`no_such_tool`"]),
        ("change_item", json!({"kind": "prompt", "key": "echo", "action": "disable"}), &["prompt `echo`"]),
        ("change_item", json!({"kind": "resource", "key": "test://nope", "action": "remove"}), &["`test://nope`"]),
        // A template is named by its URI template, not by one of its URIs.
        ("change_item", json!({"kind": "template", "key": "test://items/2", "action": "disable"}), &["test://items/2"]),
        ("change_item", json!({"kind": "resource", "key": "test://items/{id}", "action": "disable"}), &["{id}"]),
        ("add_item", json!({"kind": "template", "name": "x"}), &["`kind`", "template"]),
        ("add_item", json!({"kind": "tool"}), &["`name`"]),
        ("add_item", json!({"kind": "tool", "name": "echo"}), &["`echo`"]),
        ("add_item", json!({"kind": "prompt", "name": "greet"}), &["`greet`"]),
        ("add_item", json!({"kind": "tool", "name": "not a tool name"}), &["`not a tool name`"]),
    ];
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::manual(rev, "change_item_and_add_item_refuse_bad_input", &[]);
        for (tool, arguments, needles) in &cases {
            conn.refused(tool, arguments.clone(), needles);
        }
        assert_eq!(conn.tool_names(), ["add", "add_item", "change_item", "echo", "touch"], "{rev}");
        for kind in [Kind::Resource, Kind::Template, Kind::Prompt] {
            let (key, text) = kind.initial();
            conn.assert_present(kind, key, text, true);
        }
        conn.finish();
    });
}
