//! Support for the code the attribute macros generate. Not public API: no semver promise.

#![allow(missing_docs, unreachable_pub, missing_debug_implementations)]

use std::marker::PhantomData;

pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

use crate::protocol::CallToolResult;
use crate::tool::{IntoToolResult, ToolDescriptor};

/// Every tool declared with `#[mcp_tool]` in the program, gathered at link time.
#[linkme::distributed_slice]
pub static TOOLS: [fn() -> ToolDescriptor];

/// Asserts at the user's return type that it can become a tool result.
pub const fn assert_tool_result<T: IntoToolResult>() {}

// The handler a macro generates converts its function's return value through `ToolReturn`
// rather than through a bound on the return type, so that a return type that cannot be a
// result is reported once, by `assert_tool_result` at the user's type, and not a second time
// at the macro. The inherent methods apply when the bound holds; the blanket trait methods are
// the fallbacks that only exist to keep the rest of the expansion free of errors.

/// A tool function's return value on its way to a result.
pub struct ToolReturn<T>(pub T);

impl<T: IntoToolResult> ToolReturn<T> {
    pub fn into_call_result(self) -> CallToolResult {
        self.0.into_tool_result()
    }
}

pub trait NotAToolReturn: Sized {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::error("this tool's return type was rejected at compile time")
    }
}

impl<T> NotAToolReturn for ToolReturn<T> {}

/// The output schema of a tool function's return type.
pub struct ReturnSchema<T>(pub PhantomData<fn() -> T>);

impl<T: IntoToolResult> ReturnSchema<T> {
    pub fn output_schema(&self) -> Option<serde_json::Value> {
        T::output_schema()
    }
}

pub trait NoReturnSchema {
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }
}

impl<T> NoReturnSchema for ReturnSchema<T> {}

/// Sets a descriptor's output schema when there is one.
pub fn with_output_schema(descriptor: ToolDescriptor, schema: Option<serde_json::Value>) -> ToolDescriptor {
    match schema {
        Some(schema) => descriptor.output_schema(schema),
        None => descriptor,
    }
}
