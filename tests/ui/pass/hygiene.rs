//! The expansions resolve every path themselves: they compile when a module shadows the
//! prelude's and the runtime's names, under `deny(warnings)` and the project's strict lints.
#![deny(warnings, missing_docs, unused_qualifications, unsafe_code)]

use ::mcp_runtime::{Server, mcp_prompt, mcp_resource, mcp_tool};

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
    pub fn shadowed_tool(text: ::std::string::String, count: ::std::option::Option<u8>) -> ::std::string::String {
        let _ = count;
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

fn main() {
    assert!(Server::new("hygiene", "1").validate().is_ok());
}
