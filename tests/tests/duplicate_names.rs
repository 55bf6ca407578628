//! Two declarations of one tool name: start-up fails, naming both definitions.

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Error, ItemKind, Server, mcp_tool};
use serde_json::json;

mod first {
    use super::*;

    /// One `lookup`.
    #[mcp_tool]
    pub(crate) fn lookup() -> &'static str {
        "first"
    }
}

mod second {
    use super::*;

    /// Another `lookup`, renamed into the same name.
    #[mcp_tool(name = "lookup")]
    pub(crate) fn find() -> &'static str {
        "second"
    }
}

#[test]
fn duplicate_names_fail_at_start_naming_both_definitions() {
    let error = Server::new("dup", "1").validate().expect_err("duplicate names are an error");
    let Error::Duplicate { kind: ItemKind::Tool, name, first, second } = &error else {
        panic!("unexpected error: {error}")
    };
    assert_eq!(name, "lookup");
    let file = file!();
    let mut locations = [first.as_str(), second.as_str()];
    locations.sort();
    assert!(locations.iter().all(|l| l.starts_with(file)), "{locations:?}");
    assert_ne!(locations[0], locations[1]);
    let message = error.to_string();
    assert!(message.contains(first) && message.contains(second), "{message}");
    // What `fn main() -> mcp_runtime::Result<()>` prints is the same sentence.
    assert_eq!(format!("{error:?}"), message);
    // The functions themselves stay ordinary functions.
    assert_eq!((first::lookup(), second::find()), ("first", "second"));
}

/// Naming one of the two serves that one: each selection answers `lookup` with its own text.
#[tokio::test]
async fn explicit_selection_serves_the_one_named() {
    for (selected, answer) in [
        (Server::builder("one", "1").tool(first::lookup), "first"),
        (Server::builder("one", "1").tool(second::find), "second"),
    ] {
        let client = TestClient::connect(selected).await.expect("one `lookup` is no clash");
        let tools = client.list_tools().await.expect("a listing");
        assert_eq!(tools.iter().map(|t| &t["name"]).collect::<Vec<_>>(), ["lookup"]);
        let result = client.call_tool("lookup", json!({})).await.expect("a result");
        assert_eq!(result["content"][0]["text"], answer);
        client.close().await.expect("the server stops cleanly");
    }
}
