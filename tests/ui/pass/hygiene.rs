//! The expansions resolve every path themselves: they compile when a module shadows the
//! prelude's and the runtime's names, under `deny(warnings)` and the project's strict lints.
#![deny(warnings, missing_docs, unused_qualifications, unsafe_code)]

use ::mcp_runtime::testing::TestClient;
use ::mcp_runtime::{Server, mcp_prompt, mcp_resource, mcp_tool};
use ::serde_json::json;

/// Shadows every name generated code could reach for by accident.
pub mod shadowed {
    #![allow(dead_code, non_camel_case_types)]

    use ::mcp_runtime::{mcp_prompt, mcp_resource, mcp_tool};

    struct Result;
    struct Option;
    struct Some;
    struct None;
    struct Ok;
    struct Err;
    struct Vec;
    struct String;
    struct Box;
    struct Default;
    mod serde {}
    mod serde_json {}
    mod schemars {}
    mod core {}
    mod std {}
    mod mcp_runtime {}
    mod linkme {}

    /// A tool among shadowed names.
    #[mcp_tool]
    pub fn shadowed_tool(text: ::std::string::String, _count: ::std::option::Option<u8>) -> ::std::string::String {
        // `_count`, unused: its local in the expansion must not trip `non_snake_case`.
        text
    }

    /// A resource among shadowed names.
    #[mcp_resource("shadow://{id}")]
    pub fn shadowed_resource(id: u32) -> ::std::string::String {
        ::std::format!("{id}")
    }

    /// A prompt among shadowed names.
    #[mcp_prompt]
    pub fn shadowed_prompt(name: ::std::string::String) -> ::std::string::String {
        name
    }

    /// A server written as an `impl` block among shadowed names.
    pub struct Shadowed;

    #[::mcp_runtime::mcp_server]
    impl Shadowed {
        /// A method among shadowed names.
        #[mcp_tool]
        pub async fn shadowed_method(&self, text: ::std::string::String) -> ::std::string::String {
            text
        }
    }
}

/// A tool outside.
#[mcp_tool]
pub fn outside() -> &'static str {
    "ok"
}

/// A resource outside.
#[mcp_resource("outside://x")]
pub const OUTSIDE: &str = "x";

/// A prompt outside.
#[mcp_prompt]
pub fn outside_prompt() -> String {
    "go".to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // What was declared among shadowed names is served as declared.
    let server = Server::new("hygiene", "1").instance(shadowed::Shadowed);
    let client = TestClient::connect(server).await.expect("the server starts");
    let tools = client.list_tools().await.expect("a listing");
    let names: ::std::vec::Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["outside", "shadowed_method", "shadowed_tool"]);
    let method = client.call_tool("shadowed_method", json!({"text": "m"})).await.expect("a result");
    assert_eq!(method["content"][0]["text"], "m");
    let called = client.call_tool("shadowed_tool", json!({"text": "t", "_count": 2})).await.expect("a result");
    assert_eq!(called["content"][0]["text"], "t");
    let read = client.read_resource("shadow://5").await.expect("a read");
    assert_eq!(read["contents"][0]["text"], "5");
    assert_eq!(client.read_resource("outside://x").await.expect("a read")["contents"][0]["text"], "x");
    let got = client.get_prompt("shadowed_prompt", json!({"name": "n"})).await.expect("a prompt");
    assert_eq!(got["messages"][0]["content"]["text"], "n");
    assert!(client.get_prompt("outside_prompt", json!({})).await.is_ok());
    client.close().await.expect("the server stops cleanly");
}
