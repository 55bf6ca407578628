//! What a server and its items say of themselves (`serverInfo`, titles, icons, `_meta`), shaped
//! for each revision.

use mcp_tests::wire::{ALL_REVISIONS, STATELESS_REVISION, for_each_revision, manual, result};
use serde_json::{Value, json};

use crate::common::send;

/// The keys of an object, sorted.
fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("an object: {value}")).keys().cloned().collect();
    keys.sort_unstable();
    keys
}

#[test]
fn server_info_and_icons_are_shaped_for_every_revision() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut server =
            manual(&["--decorated"]).record(rev, "server_info_and_icons_are_shaped_for_every_revision").spawn();
        let info = if rev == STATELESS_REVISION {
            send(&mut server, rev, "tools/list", json!({}));
            server.recv()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].clone()
        } else {
            server.handshake(rev)["result"]["serverInfo"].clone()
        };
        let expected_info: &[&str] = match rev {
            "2024-11-05" | "2025-03-26" => &["name", "version"],
            "2025-06-18" => &["name", "title", "version"],
            _ => &["description", "icons", "name", "title", "version", "websiteUrl"],
        };
        assert_eq!(keys(&info), expected_info, "serverInfo: {info}");
        send(&mut server, rev, "tools/list", json!({}));
        let tools = server.recv();
        let tool =
            result(&tools)["tools"].as_array().unwrap().iter().find(|t| t["name"] == "decorated").cloned().unwrap();
        send(&mut server, rev, "resources/list", json!({}));
        let resources = server.recv();
        let resource = result(&resources)["resources"][0].clone();
        let (titles, icons) = (rev >= "2025-06-18", rev >= "2025-11-25");
        for (item, what) in [(&tool, "tool"), (&resource, "resource")] {
            assert_eq!(item.get("title").is_some(), titles, "{what} title in {rev}: {item}");
            assert_eq!(item.get("_meta").is_some(), titles, "{what} _meta in {rev}: {item}");
            assert_eq!(item.get("icons").is_some(), icons, "{what} icons in {rev}: {item}");
        }
        if icons {
            assert_eq!(tool["icons"][0]["src"], "https://example.com/tool.png");
            assert_eq!(info["icons"][0]["sizes"], json!(["48x48"]));
        }
        server.finish();
    });
}
