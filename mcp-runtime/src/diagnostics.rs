//! The macros' diagnostics: each mistake, what the compiler says, and how to fix it.
//!
#![doc = include_str!("docs/diagnostics.md")]
//!
//! The hidden items below are what generated code checks declarations with: a compile error
//! names them in its "required by a bound in" note.

use schemars::JsonSchema;

use std::future::Future;

use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::declare::prompt::{IntoPromptResult, PromptGet};
use crate::declare::resource::{IntoResourceContents, ResourceRead};
use crate::declare::tool::IntoToolResult;
use crate::protocol::{ErrorObject, GetPromptResult};
use crate::{PromptDescriptor, ResourceDescriptor, ToolDescriptor};

// What generated argument code calls. It is reached here rather than through `__private` so
// that the notes of a compile error name it plainly (`FromArgumentString`, `next_arg`): rustc
// spells out the whole path of an item reached only through a hidden module.
#[doc(hidden)]
pub use crate::declare::arguments::{
    ArgKind, ArgsSchema, ArgumentSchema, ArgumentValue, FromArgumentString, RequiredArg, expecting, flattened,
    flattened_schema, missing_arg, next_arg, parse_variable,
};
#[doc(hidden)]
pub use crate::declare::output::{OutputSchema, OutputValue};

/// What a handler's future must be unless its item is `local`: `Send`, as it may move between
/// the runtime's worker threads at each `.await`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this function's future is not `Send`: it holds a value that is not `Send` across an `.await`",
    label = "its future is not `Send`",
    note = "the notes below name the value: drop it before the `.await` (end its scope, or `drop(value)` first), or use its `Send` counterpart: `Arc` for `Rc`, `tokio::sync::Mutex` for `RefCell` or for a `std::sync::Mutex` whose guard is held (a tokio guard may be held across an `.await`)",
    note = "only for a value that must live across the `.await` and cannot be `Send`, declare the item `local` (`#[mcp_tool(local)]`): it then runs on the one thread all local handlers share, where a held lock stalls the others"
)]
pub trait SendFuture: Future + Send {}

impl<F: Future + Send> SendFuture for F {}

/// Sets a tool's handler, its future checked to be `Send` (see [`SendFuture`]).
#[doc(hidden)]
pub fn tool_handler<A, F, Fut>(descriptor: ToolDescriptor, f: F) -> ToolDescriptor
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    // The line rustc shows of this bound when the future is not `Send`: its advice must fit in it.
    Fut: SendFuture, // not `Send`? Drop it before `.await`, use `Arc` (not `Rc`) or `tokio::sync::Mutex`, or `#[mcp_tool(local)]`
    Fut: 'static,
    Fut::Output: IntoToolResult,
{
    descriptor.handler_with_context(f)
}

/// Sets a resource's reader, its future checked to be `Send` (see [`SendFuture`]).
#[doc(hidden)]
pub fn resource_reader<F, Fut>(descriptor: ResourceDescriptor, f: F) -> ResourceDescriptor
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: SendFuture, // not `Send`? Drop it before `.await`, use `Arc` (not `Rc`) or `tokio::sync::Mutex`, or `#[mcp_resource(local)]`
    Fut: 'static,
    Fut::Output: IntoResourceContents,
{
    descriptor.reader(f)
}

/// What a generated prompt handler answers with: the result, or the error as is.
#[doc(hidden)]
pub type PromptOutput = Result<GetPromptResult, ErrorObject>;

/// Sets a prompt's handler, which returns the result or the error to answer with as is, its
/// future checked to be `Send` (see [`SendFuture`]).
#[doc(hidden)]
pub fn prompt_handler<F, Fut>(descriptor: PromptDescriptor, f: F) -> PromptDescriptor
where
    F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
    Fut: SendFuture, // not `Send`? Drop it before `.await`, use `Arc` (not `Rc`) or `tokio::sync::Mutex`, or `#[mcp_prompt(local)]`
    Fut: Future<Output = PromptOutput> + 'static,
{
    descriptor.raw_handler(f)
}

/// What `#[mcp(default)]` needs of an argument's type: a value to take when the argument is
/// left out.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`#[mcp(default)]` needs `{Self}: Default`: an argument left out takes `Default::default()`",
    label = "`{Self}` has no `Default`",
    note = "derive or implement `Default` for `{Self}`, or take `Option<{Self}>` (no `#[mcp(default)]`) to see whether the argument was sent and choose the value in the body"
)]
pub trait DefaultArgument: Sized {
    /// The value of an argument left out.
    fn default_argument() -> Self;
}

impl<T: Default> DefaultArgument for T {
    fn default_argument() -> Self {
        T::default()
    }
}

/// Checks, at the user's return type, that a tool can return it.
#[doc(hidden)]
pub const fn returned_by_tool<T: IntoToolResult>() {}

/// Checks, at the user's return type, that a resource can return it.
#[doc(hidden)]
pub const fn returned_by_resource<T: IntoResourceContents>() {}

/// Checks, at the user's return type, that a prompt can return it.
#[doc(hidden)]
pub const fn returned_by_prompt<T: IntoPromptResult>() {}

/// Called by the macros on a declaration with neither a `///` doc comment nor a
/// `description = "..."`, at the item's name: a deprecation is how a macro warns on stable
/// Rust. A client shows the description to the model, which picks tools by it.
#[doc(hidden)]
pub trait MissingDescription: Sized {
    #[deprecated(note = "this MCP tool, resource or prompt has no description, which is what a client \
                         shows the model: add a `///` doc comment above it (a `//` comment is not one) or \
                         `description = \"...\"` to the attribute")]
    fn add_a_description(self) -> Self {
        self
    }
}

impl MissingDescription for ToolDescriptor {}
impl MissingDescription for ResourceDescriptor {}
impl MissingDescription for PromptDescriptor {}
