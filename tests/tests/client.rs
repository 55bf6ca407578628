//! The Rust client (`mcp_runtime::client`) against real servers: this repository's examples
//! over stdio and Streamable HTTP in both eras, servers in memory, and scripted servers that
//! misbehave (garbage, wrong shapes, a version the client does not speak, sudden death).

mod client {
    mod calls;
    mod examples;
    mod robustness;
}
