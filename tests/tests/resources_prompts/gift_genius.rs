//! GiftGen's catalog (a resource and a resource template), its completion and its prompt on the
//! wire, in every revision; GiftGen's tool and its official clients are in
//! `tests/tests/gift_genius.rs`.

use std::collections::BTreeSet;

use mcp_tests::gift_genius::{books, catalog, normalised};
use mcp_tests::wire::{ALL_REVISIONS, for_each_revision};
use serde_json::{Value, json};

use crate::common::{Conn, SUBSCRIPTION_ID, listen, names, not_found_code, texts};

/// The whole catalog, a category of it (compared with `catalog.json`), an unknown category,
/// the completion of `category`, and the prompt `describe_gift`.
#[test]
fn gift_genius_serves_its_catalog_and_prompt() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::gift(rev, "gift_genius_serves_its_catalog_and_prompt");
        let resources = conn.ok("resources/list", None);
        // The catalog, and the page of GiftGen's MCP App (a resource like any other).
        let listed = names(resources["resources"].as_array().expect("resources"));
        assert_eq!(listed, ["catalog", "cards"], "{rev}: {resources}");
        assert_eq!(resources["resources"][0]["uri"], "gifts://catalog", "{rev}: {resources}");
        let templates = conn.ok("resources/templates/list", None);
        assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "gifts://catalog/{category}", "{rev}");

        let whole = conn.read("gifts://catalog");
        assert_eq!(whole.len(), 1, "{rev}: {whole:?}");
        assert_eq!(whole[0]["mimeType"], "application/json", "{rev}");
        let parsed: Value = serde_json::from_str(texts(&whole)[0]).expect("the catalog is JSON");
        assert_eq!(parsed, Value::Array(catalog()), "{rev}");

        let books = conn.read("gifts://catalog/books");
        assert_eq!((books.len(), &books[0]["mimeType"]), (1, &json!("application/json")), "{rev}: {books:?}");
        let parsed: Value = serde_json::from_str(texts(&books)[0]).expect("a JSON array");
        assert_eq!(normalised(&parsed), self::books(), "{rev}");

        let error = conn.fail("resources/read", json!({"uri": "gifts://catalog/cars"}));
        assert_eq!(error["code"], not_found_code(rev), "{rev}: {error}");
        assert_eq!(error["data"]["uri"], "gifts://catalog/cars", "{rev}: {error}");

        let category = json!({"type": "ref/resource", "uri": "gifts://catalog/{category}"});
        assert_eq!(conn.complete(&category, "category", "h", None), ["home", "hobbies"], "{rev}");
        let all: BTreeSet<String> = conn.complete(&category, "category", "", None).into_iter().collect();
        // The catalog's six categories, read off the file by hand.
        let categories = ["books", "experiences", "hobbies", "home", "kids", "tech"];
        assert_eq!(all, categories.into_iter().map(str::to_owned).collect(), "{rev}");

        let prompts = conn.ok("prompts/list", None);
        let prompt = &prompts["prompts"][0];
        assert_eq!(prompt["name"], "describe_gift", "{rev}: {prompts}");
        let arguments: Vec<(&Value, &Value)> =
            prompt["arguments"].as_array().expect("arguments").iter().map(|a| (&a["name"], &a["required"])).collect();
        assert_eq!(arguments, [(&json!("gift_name"), &json!(true)), (&json!("recipient"), &json!(true))], "{rev}");
        let arguments = json!({"gift_name": "Illustrated atlas of the world", "recipient": "niece"});
        let described = conn.ok("prompts/get", Some(json!({"name": "describe_gift", "arguments": arguments})));
        let messages = described["messages"].as_array().expect("messages");
        assert_eq!((messages.len(), &messages[0]["role"]), (1, &json!("user")), "{rev}: {described}");
        let text = messages[0]["content"]["text"].as_str().unwrap_or_else(|| panic!("a text message: {described}"));
        assert!(text.contains("Illustrated atlas of the world") && text.contains("niece"), "{rev}: {text}");
        let missing = json!({"name": "describe_gift", "arguments": {"gift_name": "x"}});
        let error = conn.fail("prompts/get", missing);
        assert_eq!(error["code"], -32602, "{rev}: {error}");
        assert!(error["message"].as_str().unwrap_or_default().contains("`recipient`"), "{rev}: {error}");
        conn.finish();
    });
}

/// GiftGen's resources are not subscribable and its lists static: `resources/subscribe` is not
/// found under the handshake revisions, and a 2026-07-28 stream is acknowledged with nothing
/// honoured (then closed with its result when standard input closes).
#[test]
fn gift_genius_offers_no_subscriptions() {
    for_each_revision(&ALL_REVISIONS, |rev| {
        let mut conn = Conn::gift(rev, "gift_genius_offers_no_subscriptions");
        if !conn.modern() {
            let error = conn.fail("resources/subscribe", json!({"uri": "gifts://catalog"}));
            assert_eq!(error["code"], -32601, "{rev}: {error}");
            conn.finish();
            return;
        }
        let id = json!("gifts");
        let filter = json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["gifts://catalog", "gifts://catalog/books"],
        });
        let ack = listen(&mut conn, &id, filter);
        assert_eq!(ack, json!({}), "nothing can be honoured: {ack}");
        conn.server.close_stdin();
        let last = conn.server.recv();
        assert_eq!((&last["id"], &last["result"]["resultType"]), (&id, &json!("complete")), "{last}");
        assert_eq!(last["result"]["_meta"][SUBSCRIPTION_ID], id, "{last}");
        assert!(conn.server.wait().success());
    });
}
