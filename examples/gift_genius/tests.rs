//! GiftGen served in memory through `mcp_runtime::testing::TestClient`, in every revision: each
//! result is also checked against the schemas GiftGen declares.

use mcp_runtime::Server;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use serde_json::{Value, json};

use super::{CATALOG, CATEGORIES};

/// Connects to GiftGen as a client of `revision`.
async fn connect(revision: Revision) -> TestClient {
    let server = Server::new("gift-genius", env!("CARGO_PKG_VERSION"));
    TestClient::connect_as(server, revision).await.expect("GiftGen starts")
}

/// The catalog entry named `name`.
fn gift(name: &str) -> Value {
    let catalog: Vec<Value> = serde_json::from_str(CATALOG).expect("the catalog is JSON");
    catalog.into_iter().find(|g| g["name"] == name).unwrap_or_else(|| panic!("no gift `{name}`"))
}

#[tokio::test]
async fn suggestions_fit_the_recipient_and_the_budget() {
    for revision in Revision::ALL {
        let client = connect(revision).await;
        let result =
            client.call_tool("suggest_gifts", json!({"age": 30, "relationship": "Sister", "budget": 60})).await;
        let result = result.expect("a result");
        let lines: Vec<&str> = result["content"][0]["text"].as_str().expect("text").lines().collect();
        assert!((1..=5).contains(&lines.len()), "{revision:?}: {result:#}");
        let mut prices = Vec::new();
        for line in lines {
            let (name, _) = line.split_once(": $").expect("`name: $price`");
            let gift = gift(name);
            let price = gift["price_usd"].as_f64().expect("a price");
            assert!(price <= 60.0, "{gift}");
            assert!(gift["min_age"].as_i64() <= Some(30) && gift["max_age"].as_i64() >= Some(30), "{gift}");
            let to = gift["relationships"].as_array().expect("relationships");
            assert!(to.iter().any(|r| r == "any" || r.as_str().is_some_and(|r| r.eq_ignore_ascii_case("sister"))));
            prices.push(price);
        }
        assert!(prices.is_sorted_by(|a, b| a >= b), "priciest first: {prices:?}");
        if revision >= Revision::V2025_06_18 {
            assert_eq!(result["structuredContent"]["suggestions"].as_array().map(Vec::len), Some(prices.len()));
        }
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

        for category in CATEGORIES {
            let read = client.read_resource(&format!("gifts://catalog/{category}")).await.expect("a category");
            let gifts: Vec<Value> = serde_json::from_str(read["contents"][0]["text"].as_str().expect("text")).unwrap();
            assert!(!gifts.is_empty() && gifts.iter().all(|g| g["category"] == category), "{category}");
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
