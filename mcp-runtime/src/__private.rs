//! Support for the code the attribute macros generate. Not public API: no semver promise.

#![allow(missing_docs, unreachable_pub, missing_debug_implementations)]

use std::future::Future;
use std::marker::PhantomData;

pub use crate::arguments::{ArgKind, ArgsSchema, RequiredArg, expecting, missing_arg, next_arg, parse_variable};
pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

use crate::executor::RunKind;
use crate::prompt::{IntoPromptResult, PromptDescriptor, PromptGet};
use crate::protocol::{CallToolResult, ErrorObject, GetPromptResult, Resource, ResourceContents};
use crate::resource::{IntoResourceContents, ReadError, ResourceDescriptor, ResourceRead};
use crate::tool::{IntoToolResult, ToolDescriptor};

/// Every tool declared with `#[mcp_tool]` in the program, gathered at link time.
#[linkme::distributed_slice]
pub static TOOLS: [fn() -> ToolDescriptor];

/// Every resource and template declared with `#[mcp_resource]`.
#[linkme::distributed_slice]
pub static RESOURCES: [fn() -> ResourceDescriptor];

/// Every prompt declared with `#[mcp_prompt]`.
#[linkme::distributed_slice]
pub static PROMPTS: [fn() -> PromptDescriptor];

/// A declaration whose handler is a plain `fn`: its body runs at the first poll, so it must
/// always run as a task of its own, never where requests are read.
pub trait PlainFn: Sized {
    fn plain_fn(self) -> Self;
}

impl PlainFn for ToolDescriptor {
    fn plain_fn(mut self) -> Self {
        self.run_kind = RunKind::Task;
        self
    }
}

impl PlainFn for ResourceDescriptor {
    fn plain_fn(mut self) -> Self {
        self.run_kind = RunKind::Task;
        self
    }
}

impl PlainFn for PromptDescriptor {
    fn plain_fn(mut self) -> Self {
        self.run_kind = RunKind::Task;
        self
    }
}

/// Marks a declaration's handler as a plain `fn` (see [`PlainFn`]).
pub fn plain_fn<D: PlainFn>(declaration: D) -> D {
    declaration.plain_fn()
}

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

/// Asserts at the user's return type that it can become resource contents.
pub const fn assert_resource_result<T: IntoResourceContents>() {}

/// A resource function's return value on its way to contents (see `ToolReturn`).
pub struct ResourceReturn<T>(pub T);

impl<T: IntoResourceContents> ResourceReturn<T> {
    pub fn into_read_result(self, read: &ResourceRead) -> Result<Vec<ResourceContents>, ReadError> {
        self.0.into_contents(read.uri(), read.mime_type())
    }
}

pub trait NotResourceContents: Sized {
    fn into_read_result(self, _: &ResourceRead) -> Result<Vec<ResourceContents>, ReadError> {
        Err(ReadError::Error(ErrorObject::internal("this resource's return type was rejected at compile time")))
    }
}

impl<T> NotResourceContents for ResourceReturn<T> {}

/// The default MIME type of a resource function's return type (see `ReturnSchema`).
pub struct ResourceMime<T>(pub PhantomData<fn() -> T>);

impl<T: IntoResourceContents> ResourceMime<T> {
    pub fn mime_type(&self) -> Option<&'static str> {
        T::default_mime_type()
    }
}

pub trait NoResourceMime {
    fn mime_type(&self) -> Option<&'static str> {
        None
    }
}

impl<T> NoResourceMime for ResourceMime<T> {}

/// Declares `mime` unless the declaration already names one.
pub fn with_default_mime(descriptor: ResourceDescriptor, mime: Option<&'static str>) -> ResourceDescriptor {
    match mime {
        Some(mime) if descriptor.declared_mime_type().is_none() => descriptor.mime_type(mime),
        _ => descriptor,
    }
}

/// A template the macro already validated at compile time (with the same parser), so this
/// cannot fail; were it to, the declaration becomes a fixed resource at that URI.
pub fn template(uri_template: &str, name: &str) -> ResourceDescriptor {
    ResourceDescriptor::template(uri_template, name).unwrap_or_else(|e| {
        tracing::error!(error = %e, uri_template, "invalid resource template");
        ResourceDescriptor::fixed(uri_template, name)
    })
}

/// Sets a template's lister from a plain function returning the concrete resources.
pub fn with_lister(descriptor: ResourceDescriptor, list: fn() -> Vec<Resource>) -> ResourceDescriptor {
    descriptor.lister(move |_ctx| async move { list() })
}

/// Asserts at the user's return type that it can become prompt messages.
pub const fn assert_prompt_result<T: IntoPromptResult>() {}

/// A prompt function's return value on its way to a result (see `ToolReturn`).
pub struct PromptReturn<T>(pub T);

impl<T: IntoPromptResult> PromptReturn<T> {
    pub fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        self.0.into_prompt_result()
    }
}

pub trait NotPromptResult: Sized {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Err(ErrorObject::internal("this prompt's return type was rejected at compile time"))
    }
}

impl<T> NotPromptResult for PromptReturn<T> {}

/// Sets a prompt handler that returns the result or the error to answer with, as is.
pub fn with_prompt_handler<F, Fut>(descriptor: PromptDescriptor, f: F) -> PromptDescriptor
where
    F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
{
    descriptor.raw_handler(f)
}

/// Like `with_prompt_handler`, for a `local` prompt (its future need not be `Send`).
pub fn with_local_prompt_handler<F, Fut>(descriptor: PromptDescriptor, f: F) -> PromptDescriptor
where
    F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + 'static,
{
    descriptor.local_raw_handler(f)
}
