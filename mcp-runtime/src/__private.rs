//! Support for the code the attribute macros generate. Not public API: no semver promise.

#![allow(missing_docs, unreachable_pub, missing_debug_implementations)]

use std::future::Future;
use std::marker::PhantomData;

pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::context::state::RequiredState;
pub use crate::declare::handler::HandlerSpec;
pub use crate::declare::selection::{Declared, PROMPTS, RESOURCES, TOOLS};
pub use crate::server::instance::Items;

use crate::context::Context;
use crate::context::state::State;
use crate::declare::handler::RunKind;
use crate::declare::prompt::{IntoPromptResult, PromptDescriptor, PromptGet};
use crate::declare::resource::{IntoResourceContents, ReadError, ResourceDescriptor, ResourceRead};
use crate::declare::tool::{IntoToolResult, ToolDescriptor};
use crate::protocol::{CallToolResult, ErrorObject, GetPromptResult, Resource, ResourceContents};

/// An argument's name as a tool's arguments are read: borrowed from the request's text
/// unless it has escapes (a `String` key would cost an allocation per argument per call).
pub struct ArgName<'de>(pub std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for ArgName<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;

        impl<'de> serde::de::Visitor<'de> for Name {
            type Value = ArgName<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an argument name")
            }

            fn visit_borrowed_str<E: serde::de::Error>(self, name: &'de str) -> Result<Self::Value, E> {
                Ok(ArgName(std::borrow::Cow::Borrowed(name)))
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
                Ok(ArgName(std::borrow::Cow::Owned(name.to_owned())))
            }

            fn visit_string<E: serde::de::Error>(self, name: String) -> Result<Self::Value, E> {
                Ok(ArgName(std::borrow::Cow::Owned(name)))
            }
        }

        deserializer.deserialize_str(Name)
    }
}

/// The id of a declared function's item type, which `.tool(f)` and the like look up.
pub fn item_type_of<F: 'static>(_: &F) -> std::any::TypeId {
    std::any::TypeId::of::<F>()
}

/// What the macros set on any declaration, whatever its kind.
pub trait DeclarationParts: Sized {
    #[doc(hidden)]
    fn parts(&mut self) -> (&mut HandlerSpec, &mut Option<&'static str>, &mut Vec<RequiredState>);
}

macro_rules! declaration_parts {
    ($($descriptor:ty),*) => {$(
        impl DeclarationParts for $descriptor {
            fn parts(&mut self) -> (&mut HandlerSpec, &mut Option<&'static str>, &mut Vec<RequiredState>) {
                (&mut self.parts.spec, &mut self.parts.origin, &mut self.parts.required_states)
            }
        }
    )*};
}
declaration_parts!(ToolDescriptor, ResourceDescriptor, PromptDescriptor);

/// Marks a declaration's handler as a plain `fn`: its body runs at the first poll and may
/// block its thread, so it runs in place with a watch on it, or on another thread (see the
/// executor).
pub fn plain_fn<D: DeclarationParts>(mut declaration: D) -> D {
    declaration.parts().0.kind = RunKind::Blocking;
    declaration
}

/// Sets a declaration's time limit (`timeout = "30s"`).
pub fn with_timeout<D: DeclarationParts>(mut declaration: D, millis: u64) -> D {
    declaration.parts().0.timeout = Some(std::time::Duration::from_millis(millis));
    declaration
}

/// Records the module the declaration is written in (`module_path!()`): the client log
/// layer forwards that crate's events.
pub fn defined_in<D: DeclarationParts>(mut declaration: D, module: &'static str) -> D {
    *declaration.parts().1 = Some(module);
    declaration
}

/// Records that the handler takes `S` (a `State<T>` parameter), checked at start-up. A state
/// is shared by every request, so `T` must be `Send + Sync`; the comment on the bound is what
/// a compile error shows of it.
pub fn requires_state<S, D>(mut declaration: D) -> D
where
    S: StateParam, // not `Sync` (a `rusqlite::Connection`)? Take `State<Mutex<T>>`: an `RwLock` needs `Sync` too
    D: DeclarationParts,
{
    declaration.parts().2.push(S::required());
    declaration
}

/// A parameter type the handler reads from the registered states.
pub trait StateParam: Sized {
    #[doc(hidden)]
    fn required() -> RequiredState;
    #[doc(hidden)]
    fn from_context(context: &Context) -> Option<Self>;
}

impl<T: Send + Sync + 'static> StateParam for State<T> {
    fn required() -> RequiredState {
        RequiredState::of::<T>()
    }

    fn from_context(context: &Context) -> Option<Self> {
        context.state::<T>()
    }
}

/// A `State<T>` parameter's value. The server checked at start-up that every handler's
/// states are registered; a handler added later without its state fails its call.
pub fn state_param<S: StateParam>(context: &Context) -> Result<S, MissingState> {
    S::from_context(context).ok_or_else(|| MissingState(S::required().type_name))
}

/// A handler's state was not registered (possible only for handlers added while serving).
#[derive(Debug)]
pub struct MissingState(&'static str);

impl MissingState {
    fn message(&self) -> String {
        format!("the server has no state of type `{}`: register it with `.state(...)`", self.0)
    }
}

impl From<MissingState> for CallToolResult {
    fn from(missing: MissingState) -> Self {
        CallToolResult::error(missing.message())
    }
}

impl From<MissingState> for ReadError {
    fn from(missing: MissingState) -> Self {
        ReadError::Error(ErrorObject::internal(missing.message()))
    }
}

impl From<MissingState> for ErrorObject {
    fn from(missing: MissingState) -> Self {
        ErrorObject::internal(missing.message())
    }
}

// The handler a macro generates converts its function's return value through `ToolReturn`
// rather than through a bound on the return type, so that a return type that cannot be a
// result is reported once, by `diagnostics::returned_by_tool` at the user's type, and not a second time
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

/// A resource function's return value on its way to contents (see `ToolReturn`).
pub struct ResourceReturn<T>(pub T);

impl<T: IntoResourceContents> ResourceReturn<T> {
    pub fn into_read_result(self, read: &ResourceRead) -> Result<Vec<ResourceContents>, ReadError> {
        self.0.into_contents(read.uri(), read.mime())
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
        Some(mime) if descriptor.declared_mime().is_none() => descriptor.mime(mime),
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

/// Like `diagnostics::prompt_handler`, for a `local` prompt (its future need not be `Send`).
pub fn with_local_prompt_handler<F, Fut>(descriptor: PromptDescriptor, f: F) -> PromptDescriptor
where
    F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + 'static,
{
    descriptor.local_raw_handler(f)
}

/// For `embed_skills!`: one skill the binary carries.
#[cfg(feature = "skills")]
pub const fn embedded_skill(
    prefix: &'static str,
    name: &'static str,
    files: &'static [(&'static str, &'static [u8])],
) -> crate::skills::EmbeddedSkill {
    crate::skills::embedded::embedded_skill(prefix, name, files)
}

/// For `embed_skills!`: the skills the binary carries.
#[cfg(feature = "skills")]
pub const fn embedded_skills(skills: &'static [crate::skills::EmbeddedSkill]) -> crate::skills::EmbeddedSkills {
    crate::skills::EmbeddedSkills(skills)
}
