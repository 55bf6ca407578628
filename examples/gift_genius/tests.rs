//! GiftGen served in memory through `mcp_runtime::testing::TestClient`, in every revision: each
//! result is also checked against the schemas GiftGen declares. The expected suggestions were
//! worked out by hand from `catalog.json`, not by running the tool's own filter again.

use mcp_runtime::Server;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

use super::{CARDS, CATALOG, CATEGORIES};

/// Connects to GiftGen as a client of `revision`.
async fn connect(revision: Revision) -> TestClient {
    let server =
        Server::new("gift-genius", env!("CARGO_PKG_VERSION")).extension("io.modelcontextprotocol/ui", json!({}));
    TestClient::connect_as(server, revision).await.expect("GiftGen starts")
}

/// The names `suggest_gifts` suggests for `arguments`, in order.
async fn suggested(client: &TestClient, arguments: Value) -> Vec<String> {
    let result = client.call_tool("suggest_gifts", arguments).await.expect("a result");
    let suggestions: Value = match client.revision() {
        // No structured output before 2025-06-18: the JSON comes as text.
        Revision::V2024_11_05 | Revision::V2025_03_26 => {
            serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("JSON text")
        }
        _ => result["structuredContent"].clone(),
    };
    let names = suggestions["suggestions"].as_array().expect("suggestions").iter();
    names.map(|gift| gift["name"].as_str().expect("a name").to_owned()).collect()
}

#[tokio::test]
async fn suggestions_are_the_fitting_gifts_priciest_first() {
    for revision in Revision::ALL {
        let client = connect(revision).await;
        // 30, a sister, up to $60: the five gifts for anyone or for a sister, aged 30, at
        // most $60 (the ukulele lists "sister"; the rest are for anyone).
        let sister = json!({"age": 30, "relationship": "Sister", "budget": 60});
        let expected = [
            "Beginner ukulele",
            "Watercolour starter set",
            "Scented candle trio",
            "Cookbook of world street food",
            "1000-piece jigsaw puzzle",
        ];
        assert_eq!(suggested(&client, sister).await, expected, "{revision:?}");

        // 9, a nephew, no budget: seven gifts fit (the atlas and the watercolours are the
        // cheapest two, left out); the zoo day at $180 comes first.
        let nephew = json!({"age": 9, "relationship": "nephew"});
        let expected = [
            "Zoo keeper for a day",
            "Instant camera",
            "Building bricks space station",
            "Beginner ukulele",
            "Wooden marble run",
        ];
        assert_eq!(suggested(&client, nephew).await, expected, "{revision:?}");

        // A partner of 40, up to $100: the novels and the blanket cost $89 each and keep the
        // catalog's order; the cookbook, the poetry and the puzzle are cut off.
        let partner = json!({"age": 40, "relationship": "PARTNER", "budget": 100});
        let expected = [
            "Award-winning novel box set",
            "Weighted blanket",
            "Instant camera",
            "Watercolour starter set",
            "Scented candle trio",
        ];
        assert_eq!(suggested(&client, partner).await, expected, "{revision:?}");

        // Nothing costs $20 or less for a 70-year-old colleague.
        let nothing = json!({"age": 70, "relationship": "colleague", "budget": 20});
        assert!(suggested(&client, nothing).await.is_empty(), "{revision:?}");
        client.close().await.expect("GiftGen stops cleanly");
    }
}

#[tokio::test]
async fn an_age_out_of_range_is_refused_before_the_tool_runs() {
    let client = connect(Revision::LATEST_HANDSHAKE).await;
    // The client checks arguments against the input schema (`Bounded<0, 120>`) first ...
    let refused = client.call_tool("suggest_gifts", json!({"age": 130, "relationship": "friend"})).await;
    assert!(refused.is_err_and(|e| e.to_string().contains("120")));
    // ... and the server, sent it anyway, answers with a tool error saying why.
    let params = json!({"name": "suggest_gifts", "arguments": {"age": 130, "relationship": "friend"}});
    let result = client.request("tools/call", params).await.expect("a result");
    assert_eq!(result["isError"], true, "{result:#}");
    client.close().await.expect("GiftGen stops cleanly");
}

#[tokio::test]
async fn the_catalog_its_categories_and_the_prompt_are_served() {
    for revision in Revision::ALL {
        let client = connect(revision).await;
        let whole = client.read_resource("gifts://catalog").await.expect("the catalog");
        assert_eq!(whole["contents"][0]["text"], CATALOG, "{revision:?}");

        // Four books, in the catalog's order.
        let read = client.read_resource("gifts://catalog/books").await.expect("a category");
        let books: Vec<Value> = serde_json::from_str(read["contents"][0]["text"].as_str().expect("text")).unwrap();
        let names: Vec<&str> = books.iter().map(|g| g["name"].as_str().unwrap()).collect();
        let expected = [
            "Illustrated atlas of the world",
            "Award-winning novel box set",
            "Cookbook of world street food",
            "Poetry anthology, clothbound",
        ];
        assert_eq!(names, expected, "{revision:?}");
        for category in CATEGORIES {
            let read = client.read_resource(&format!("gifts://catalog/{category}")).await.expect("a category");
            assert!(read["contents"][0]["text"].as_str().is_some_and(|t| t.contains(category)), "{category}");
        }
        let missing = client.read_resource("gifts://catalog/cars").await.expect_err("no such category");
        assert!(missing.rpc().is_some(), "{missing}");

        let reference = json!({"type": "ref/resource", "uri": "gifts://catalog/{category}"});
        assert_eq!(client.complete(reference, "category", "h").await.expect("values"), ["home", "hobbies"]);

        let prompt = client.get_prompt("describe_gift", json!({"gift_name": "Kite", "recipient": "niece"})).await;
        let text = prompt.expect("the prompt")["messages"][0]["content"]["text"].as_str().map(str::to_owned);
        assert!(text.is_some_and(|t| t.contains("\"Kite\"") && t.contains("niece")), "{revision:?}");
        client.close().await.expect("GiftGen stops cleanly");
    }
}

#[tokio::test]
async fn the_cards_app_is_linked_from_the_tool_and_declared_where_revisions_allow() {
    for revision in Revision::ALL {
        let client = connect(revision).await;
        let tools = client.list_tools().await.expect("a listing");
        let link = &tools[0]["_meta"]["ui"]["resourceUri"];
        let cards = client.read_resource("ui://gifts/cards").await.expect("the app's page");
        let extensions = client.server_capabilities().await.expect("capabilities")["extensions"].clone();
        if revision >= Revision::V2025_06_18 {
            // `_meta` exists from 2025-06-18 on: the tool names its app, which is served.
            assert_eq!(link, "ui://gifts/cards", "{revision:?}");
            assert_eq!(cards["contents"][0]["mimeType"], "text/html;profile=mcp-app");
            assert_eq!(cards["contents"][0]["text"], CARDS);
        } else {
            assert!(link.is_null(), "{revision:?}: no `_meta` on tools");
        }
        // Only 2026-07-28 defines `extensions` in the capabilities.
        if revision == Revision::V2026_07_28 {
            assert_eq!(extensions, json!({"io.modelcontextprotocol/ui": {}}));
        } else {
            assert!(extensions.is_null(), "{revision:?}: {extensions}");
        }
        client.close().await.expect("GiftGen stops cleanly");
    }
}
