//! Attribute macros of `mcp-runtime`; use them through that crate.
