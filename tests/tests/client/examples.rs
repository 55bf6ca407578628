//! GiftGen (`examples/gift_genius`) through the client, over stdio (spawned) and Streamable
//! HTTP, in each era: what it lists, a typed call, a read, a prompt, a completion.

use mcp_runtime::client::{Client, ClientBuilder, Era};
use mcp_runtime::protocol::{Content, ResourceContents, Revision};
use mcp_tests::example_binary;
use mcp_tests::gift_genius::expected;
use mcp_tests::http::HttpServer;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Suggestions {
    suggestions: Vec<Gift>,
}

#[derive(Deserialize)]
struct Gift {
    name: String,
    price_usd: f64,
}

/// Everything GiftGen offers, asked through `client`, which must speak `revision`.
async fn exercise(client: &Client, revision: Revision) {
    assert_eq!(client.revision(), revision);
    let negotiation = client.negotiation();
    assert!(negotiation.capabilities.tools.is_some(), "{negotiation:?}");
    if revision == Revision::V2026_07_28 {
        assert!(negotiation.supported_versions.iter().any(|v| v == "2025-11-25"), "{negotiation:?}");
    }
    assert_eq!(negotiation.server_info.as_ref().map(|i| i.name.as_str()), Some("gift-genius"));

    let tools = client.list_tools().await.expect("tools/list");
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["suggest_gifts"]);

    let found: Suggestions = client
        .call_tool_as("suggest_gifts", json!({"age": 30, "relationship": "sister", "budget": 100.0}))
        .await
        .expect("a typed call");
    let names: Vec<String> = found.suggestions.iter().map(|g| g.name.clone()).collect();
    assert_eq!(names, expected(30, "sister", Some(100.0)));
    assert!(found.suggestions.windows(2).all(|w| w[0].price_usd >= w[1].price_usd));

    // Arguments the server refuses are its answer, not the client's guess.
    let refused = client.call_tool("suggest_gifts", json!({"age": 300, "relationship": "x"})).await;
    match refused {
        Ok(result) => assert!(result.is_error, "{result:?}"),
        Err(e) => assert!(e.rpc().is_some(), "{e}"),
    }

    let catalog = client.read_resource("gifts://catalog").await.expect("resources/read");
    let ResourceContents::Text { text, .. } = &catalog.contents[0] else { panic!("text contents: {catalog:?}") };
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).expect("JSON").as_array().map(Vec::len),
        Some(mcp_tests::gift_genius::catalog().len())
    );

    let prompt = client
        .get_prompt("describe_gift", json!({"gift_name": "Kite", "recipient": "niece"}))
        .await
        .expect("prompts/get");
    let Content::Text { text, .. } = &prompt.messages[0].content else { panic!("a text message: {prompt:?}") };
    assert!(text.contains("\"Kite\"") && text.contains("niece"), "{text}");

    let completion = client
        .complete(json!({"type": "ref/resource", "uri": "gifts://catalog/{category}"}), "category", "bo")
        .await
        .expect("completion/complete");
    assert_eq!(completion.values, ["books"]);
    client.ping().await.expect("ping");
}

fn eras() -> [(ClientBuilder, Revision); 3] {
    [
        (Client::builder(), Revision::V2026_07_28),
        (Client::builder().era(Era::Handshake), Revision::V2025_11_25),
        (Client::builder().revision(Revision::V2025_03_26), Revision::V2025_03_26),
    ]
}

#[tokio::test]
async fn giftgen_over_stdio_in_each_era() {
    let binary = example_binary("gift_genius");
    for (builder, revision) in eras() {
        let client = builder.spawn(binary.to_str().expect("a UTF-8 path"), ["--stdio"]).await.expect("connects");
        exercise(&client, revision).await;
        client.close().await.expect("closes");
        assert!(client.ended().is_some());
    }
}

#[tokio::test]
async fn giftgen_over_http_in_each_era() {
    let server = HttpServer::start(&example_binary("gift_genius"), &[]);
    for (builder, revision) in eras() {
        let client = builder.http(&server.url).await.unwrap_or_else(|e| panic!("connects: {e}\n{}", server.log()));
        exercise(&client, revision).await;
        client.close().await.expect("closes");
    }
}

#[test]
fn the_client_example_prints_giftgen_s_suggestions_over_stdio_and_http() {
    let example = example_binary("client");
    let server = example_binary("gift_genius");
    let http = HttpServer::start(&server, &[]);
    for target in [server.to_str().expect("a UTF-8 path").to_owned(), http.url.clone()] {
        let output = std::process::Command::new(&example).arg(&target).output().expect("the example runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{target}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.contains("connected to gift-genius speaking 2026-07-28"), "{stdout}");
        // Each of the five suggestions, in the order GiftGen ranks them.
        let printed: Vec<&str> = stdout.lines().filter_map(|l| l.rsplit_once(" ($").map(|(name, _)| name)).collect();
        assert_eq!(printed, expected(30, "sister", Some(100.0)), "{stdout}");
    }
}
