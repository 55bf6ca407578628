//! Servers sharing a change bus hear each other: a resource update published by one reaches
//! the subscribers of another, and an item disabled or removed by name on one is gone from the
//! other's lists too (its clients told). Each server is served in memory, as two instances of
//! one application would be behind a load balancer.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::changes::MemoryChangeBus;
use mcp_runtime::protocol::Revision;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{ItemKind, ResourceDescriptor, Server, ServerHandle, ToolDescriptor};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
struct NoArgs {}

/// One instance of the application: a subscribable note and a tool, on `bus`.
fn instance(bus: &Arc<MemoryChangeBus>) -> (Server, ServerHandle) {
    let server = Server::builder("notes", "1.0.0")
        .dynamic_lists()
        .change_bus(Arc::clone(bus))
        .resource(ResourceDescriptor::fixed("note://1", "first").subscribable(true).reader(|_| async { "text" }))
        .tool(ToolDescriptor::new("tidy").description("Tidies").handler(|_: NoArgs| async { "tidied" }));
    let handle = server.handle();
    (server, handle)
}

/// Waits (up to 5 s) for a notification of `method`; the ones seen so far otherwise.
async fn wait_for(client: &TestClient, method: &str) -> Result<Value, Vec<Value>> {
    for _ in 0..500 {
        if let Some(found) = client.notifications().into_iter().find(|n| n["method"] == method) {
            return Ok(found);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(client.notifications())
}

#[tokio::test]
async fn an_update_published_by_one_server_reaches_the_subscribers_of_another() {
    let bus = Arc::new(MemoryChangeBus::default());
    let (first, first_handle) = instance(&bus);
    let (second, _) = instance(&bus);
    let _first_client = TestClient::connect_as(first, Revision::V2025_11_25).await.unwrap();
    let subscriber = TestClient::connect_as(second, Revision::V2025_11_25).await.unwrap();
    subscriber.request("resources/subscribe", json!({"uri": "note://1"})).await.unwrap();

    first_handle.resource_updated("note://1").unwrap();
    let update = wait_for(&subscriber, "notifications/resources/updated").await.expect("the update");
    assert_eq!(update["params"]["uri"], "note://1");
}

#[tokio::test]
async fn an_item_disabled_on_one_server_is_gone_from_every_server_and_back_when_enabled() {
    let bus = Arc::new(MemoryChangeBus::default());
    let (first, first_handle) = instance(&bus);
    let (second, _) = instance(&bus);
    let (third, _) = instance(&bus);
    let _first_client = TestClient::connect_as(first, Revision::V2025_11_25).await.unwrap();
    let other = TestClient::connect_as(second, Revision::V2025_11_25).await.unwrap();
    let stateless = TestClient::connect_as(third, Revision::V2026_07_28).await.unwrap();
    let names = |tools: Vec<Value>| tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(other.list_tools().await.unwrap()), ["tidy"]);

    first_handle.disable(ItemKind::Tool, "tidy").unwrap();
    wait_for(&other, "notifications/tools/list_changed").await.expect("the list change");
    assert!(names(other.list_tools().await.unwrap()).is_empty());
    assert!(names(stateless.list_tools().await.unwrap()).is_empty(), "the stateless era reads the same lists");
    let refused = other.call_tool("tidy", json!({})).await.unwrap_err();
    assert_eq!(refused.rpc().map(|e| e.code), Some(-32602), "a disabled tool is unknown: {refused:?}");

    first_handle.enable(ItemKind::Tool, "tidy").unwrap();
    assert_eq!(names(stateless.list_tools().await.unwrap()), ["tidy"]);
    first_handle.remove(ItemKind::Tool, "tidy").unwrap();
    assert!(names(other.list_tools().await.unwrap()).is_empty());
    // Each server applied it once: removing again is an error on the one asked.
    assert!(first_handle.remove(ItemKind::Tool, "tidy").is_err());
}

#[tokio::test]
async fn servers_on_buses_of_their_own_do_not_hear_each_other() {
    let (first, first_handle) = instance(&Arc::new(MemoryChangeBus::default()));
    let (second, _) = instance(&Arc::new(MemoryChangeBus::default()));
    let _first_client = TestClient::connect_as(first, Revision::V2025_11_25).await.unwrap();
    let other = TestClient::connect_as(second, Revision::V2025_11_25).await.unwrap();
    first_handle.disable(ItemKind::Tool, "tidy").unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(other.list_tools().await.unwrap().len(), 1);
    assert!(other.notifications().is_empty(), "{:?}", other.notifications());
}
