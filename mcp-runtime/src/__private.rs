//! Support for the code the attribute macros generate. Not public API: no semver promise.

#![allow(missing_docs, unreachable_pub)]

pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

use crate::tool::{IntoToolResult, ToolDescriptor};

/// Every tool declared with `#[mcp_tool]` in the program, gathered at link time.
#[linkme::distributed_slice]
pub static TOOLS: [fn() -> ToolDescriptor];

/// Asserts at the user's return type that it can become a tool result.
pub const fn assert_tool_result<T: IntoToolResult>() {}
