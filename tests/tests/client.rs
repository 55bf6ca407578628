//! The Rust client (`mcp_runtime::client`) against real servers: this repository's examples
//! over stdio and Streamable HTTP in both eras, servers in memory, scripted servers that
//! misbehave (garbage, wrong shapes, a version the client does not speak, sudden death), and
//! servers written with the official TypeScript and Python SDKs.

#[path = "support/oauth_servers.rs"]
mod oauth_servers;

mod client {
    mod authorization;
    mod calls;
    mod every_example;
    mod examples;
    mod peers;
    mod robustness;
}
