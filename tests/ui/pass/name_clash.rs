//! The macros add no name to the module: a module or type named like a declared function
//! compiles, and the function itself selects its declaration. Nor do parameters named like
//! their function hide it from the generated code.
#![deny(warnings)]

use mcp_runtime::testing::TestClient;
use mcp_runtime::{Server, State, mcp_prompt, mcp_resource, mcp_tool};
use serde_json::json;

/// The search index, in a module named like the tool.
mod search {
    pub fn index() -> Vec<&'static str> {
        vec!["kite", "ball"]
    }
}

/// Searches the index.
#[mcp_tool]
fn search(word: String) -> String {
    search::index().into_iter().filter(|w| w.contains(&word)).collect()
}

/// The catalog's entries, in a type named like the resource.
#[allow(non_camel_case_types)]
struct catalog {
    entries: &'static [&'static str],
}

/// The catalog.
#[mcp_resource("shop://catalog")]
fn catalog() -> String {
    catalog { entries: &["kite", "ball"] }.entries.join(", ")
}

/// A greeting, in a module named like the prompt.
mod greet {
    pub const OPENING: &str = "Hello";
}

/// Greets someone.
#[mcp_prompt]
fn greet(name: String) -> String {
    format!("{} {name}", greet::OPENING)
}

/// A tally, in a state.
struct Tally(u32);

/// A tool whose state parameter is named like it.
#[mcp_tool]
fn tally(tally: State<Tally>) -> String {
    tally.0.to_string()
}

/// A prompt whose argument is named like it.
#[mcp_prompt]
fn topic(topic: String) -> String {
    format!("Tell me about {topic}")
}

/// A template whose variable is named like it.
#[mcp_resource("shop://rows/{row}")]
fn row(row: u32) -> String {
    format!("row {row}")
}

/// Not declared with any macro.
fn plain(word: String) -> String {
    word
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = Server::builder("clash", "1").tool(search).resource(catalog).prompt(greet);
    let client = TestClient::connect(server).await.expect("the server starts");
    let called = client.call_tool("search", json!({"word": "ki"})).await.expect("a result");
    assert_eq!(called["content"][0]["text"], "kite");
    let read = client.read_resource("shop://catalog").await.expect("contents");
    assert_eq!(read["contents"][0]["text"], "kite, ball");
    let got = client.get_prompt("greet", json!({"name": "Ada"})).await.expect("messages");
    assert_eq!(got["messages"][0]["content"]["text"], "Hello Ada");
    client.close().await.expect("the server stops cleanly");

    // Parameters named like their function do not hide it from the generated code.
    let server = Server::builder("shadows", "1").state(Tally(7)).tool(tally).prompt(topic).resource(row);
    let client = TestClient::connect(server).await.expect("the server starts");
    assert_eq!(client.call_tool("tally", json!({})).await.expect("a result")["content"][0]["text"], "7");
    let got = client.get_prompt("topic", json!({"topic": "kites"})).await.expect("messages");
    assert_eq!(got["messages"][0]["content"]["text"], "Tell me about kites");
    let read = client.read_resource("shop://rows/3").await.expect("contents");
    assert_eq!(read["contents"][0]["text"], "row 3");
    client.close().await.expect("the server stops cleanly");

    // What the builder cannot take is refused at start-up, naming it and what to do.
    let plain_refused = Server::builder("clash", "1").tool(plain).validate().expect_err("not a tool");
    let message = plain_refused.to_string();
    assert!(message.contains("::plain`, which is not a tool"), "{message}");
    assert!(message.contains("`#[mcp_tool]`"), "{message}");
    let kind_refused = Server::builder("clash", "1").tool(catalog).validate().expect_err("a resource");
    let message = kind_refused.to_string();
    assert!(message.contains("is declared with `#[mcp_resource]`, not `#[mcp_tool]`"), "{message}");
    assert!(message.contains("`.resource(..)`"), "{message}");
    let closure_refused = Server::builder("clash", "1").prompt(|| "hi").validate().expect_err("a closure");
    assert!(closure_refused.to_string().contains("which is not a prompt"), "{closure_refused}");
}
