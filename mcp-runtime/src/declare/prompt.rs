//! Prompts: descriptors (static data plus a handler) and what a prompt may return.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::Context;
use crate::declare::completion::{CompletionHandler, IntoCompleter};
use crate::declare::handler::HandlerFn;
use crate::declare::item::ItemParts;
use crate::protocol::{ErrorObject, GetPromptResult, Icon, Prompt, PromptArgument, PromptMessage};

/// One `prompts/get`: the arguments given and the context.
#[derive(Debug)]
pub struct PromptGet {
    pub(crate) name: Arc<str>,
    pub(crate) arguments: BTreeMap<String, String>,
    pub(crate) context: Context,
}

impl PromptGet {
    /// An argument's value, if given.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// A required argument parsed into `T`; the error is the -32602 to answer with, naming the
    /// argument.
    pub fn parse_argument<T>(&self, name: &str) -> Result<T, ErrorObject>
    where
        T: std::str::FromStr,
        T::Err: fmt::Display,
    {
        match self.parse_optional_argument(name)? {
            Some(value) => Ok(value),
            None => Err(ErrorObject::invalid_params(format!("Prompt `{}` needs the argument `{name}`", self.name))),
        }
    }

    /// An optional argument parsed into `T` (`None` when absent).
    pub fn parse_optional_argument<T>(&self, name: &str) -> Result<Option<T>, ErrorObject>
    where
        T: std::str::FromStr,
        T::Err: fmt::Display,
    {
        self.argument(name)
            .map(|raw| {
                raw.parse::<T>().map_err(|e| {
                    ErrorObject::invalid_params(format!(
                        "Invalid value `{raw}` for argument `{name}` of prompt `{}`: {e}",
                        self.name
                    ))
                })
            })
            .transpose()
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

/// What a prompt may return: a `String` (one user message), a [`PromptMessage`], a
/// `Vec<PromptMessage>`, a whole [`GetPromptResult`], or a `Result` of one of them whose `Err`
/// (`E: Display`) is answered as an error: an [`ErrorObject`] with its own code (so `?` on
/// [`PromptGet::parse_argument`] answers -32602), any other error -32603 with its message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this type cannot become prompt messages",
    note = "return a `String`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of one of them with `E: Display`"
)]
pub trait IntoPromptResult {
    /// Converts the value into the result sent to the client.
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(GetPromptResult { description: None, messages: self })
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: fmt::Display + 'static> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        self.map_err(error_object)?.into_prompt_result()
    }
}

/// The error a prompt's `Err` is answered with: an [`ErrorObject`] as it is, so that `?` on
/// [`PromptGet::parse_argument`] keeps its -32602; anything else -32603 with its message.
fn error_object<E: fmt::Display + 'static>(error: E) -> ErrorObject {
    // `Any` instead of a second impl: coherence allows only one `Result<T, E>` impl.
    let mut slot = Some(error);
    if let Some(object) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<ErrorObject>>()
        && let Some(object) = object.take()
    {
        return object;
    }
    slot.map_or_else(|| ErrorObject::internal("the prompt failed"), |error| ErrorObject::internal(error.to_string()))
}

pub(crate) type PromptHandler = HandlerFn<PromptGet, Result<GetPromptResult, ErrorObject>>;

/// A prompt: what `prompts/list` shows of it, and the handler `prompts/get` runs.
///
/// ```
/// use mcp_runtime::{PromptDescriptor, PromptGet};
///
/// let greet = PromptDescriptor::new("greet")
///     .description("Greets someone")
///     .argument("name", Some("Who to greet"), true)
///     .handler(|get: PromptGet| async move {
///         let name: String = get.parse_argument("name")?;
///         Ok::<_, mcp_runtime::protocol::ErrorObject>(format!("Say hello to {name}."))
///     });
/// assert_eq!(greet.name(), "greet");
/// ```
pub struct PromptDescriptor {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Option<PromptHandler>,
    pub(crate) completions: Vec<(String, CompletionHandler)>,
    pub(crate) parts: ItemParts,
}

impl fmt::Debug for PromptDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDescriptor")
            .field("prompt", &self.prompt)
            .field("defined_at", &self.parts.defined_at)
            .finish_non_exhaustive()
    }
}

impl PromptDescriptor {
    /// A prompt called `name`, without arguments or handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        PromptDescriptor {
            prompt: Prompt {
                name: name.into(),
                title: None,
                description: None,
                arguments: Vec::new(),
                icons: None,
                meta: None,
            },
            handler: None,
            completions: Vec::new(),
            parts: ItemParts::default(),
        }
    }

    /// A prompt as another server lists it, with no handler yet.
    #[cfg(feature = "client")]
    pub(crate) fn listed(prompt: Prompt) -> Self {
        PromptDescriptor { prompt, ..PromptDescriptor::new("") }
    }

    /// Completes `argument` with `completer`, of any kind (one that waits, say).
    #[cfg(feature = "client")]
    pub(crate) fn completed_by(mut self, argument: String, completer: CompletionHandler) -> Self {
        self.completions.push((argument, completer));
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.prompt.name
    }

    /// The prompt as `prompts/list` shows it (before shaping for a revision).
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Declares an argument.
    #[must_use]
    pub fn argument(mut self, name: impl Into<String>, description: Option<&str>, required: bool) -> Self {
        self.prompt.arguments.push(PromptArgument {
            name: name.into(),
            title: None,
            description: description.map(str::to_owned),
            required: Some(required),
        });
        self
    }

    /// Adds an icon.
    #[must_use]
    pub fn icon(mut self, icon: Icon) -> Self {
        self.prompt.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Adds a `_meta` entry.
    #[must_use]
    pub fn meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.prompt.meta.get_or_insert_with(Map::new).insert(key.into(), value);
        self
    }

    /// Tags the prompt (see [`ToolDescriptor::tag`](crate::ToolDescriptor::tag)).
    #[must_use]
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.parts.tags.add(tag.into());
        self
    }

    /// The prompt's tags.
    pub fn tags(&self) -> &[String] {
        self.parts.tags.as_slice()
    }

    /// Needs `scope` of a caller's token to be got (see
    /// [`ToolDescriptor::scope`](crate::ToolDescriptor::scope)).
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.parts.scopes.add(scope.into());
        self
    }

    /// The scopes the prompt needs.
    pub fn scopes(&self) -> &[String] {
        self.parts.scopes.as_slice()
    }

    /// Records where the prompt is defined, for start-up errors (`file:line`).
    #[must_use]
    pub fn defined_at(mut self, location: impl Into<Cow<'static, str>>) -> Self {
        self.parts.defined_at = location.into();
        self
    }

    /// Completes the argument `argument` with `completer` (see [`IntoCompleter`]).
    #[must_use]
    pub fn complete<M>(mut self, argument: impl Into<String>, completer: impl IntoCompleter<M>) -> Self {
        self.completions.push((argument.into(), completer.into_completer()));
        self
    }

    /// Sets a handler that produces the result, or the error to answer with, itself.
    pub(crate) fn raw_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + Send + 'static,
    {
        self.handler = Some(HandlerFn::sendable(f));
        self
    }

    /// Like `raw_handler`, for a function whose future is not `Send` (`#[mcp_prompt(local)]`).
    pub(crate) fn local_raw_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorObject>> + 'static,
    {
        self.handler = Some(HandlerFn::local(f));
        self
    }

    /// Sets how long the handler may run: past it the request is answered with an internal
    /// error (-32603) naming the limit (the server-wide default is
    /// [`Server::default_timeout`](crate::Server::default_timeout); none unless set).
    #[must_use]
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.parts.spec.timeout = Some(limit);
        self
    }

    /// Sets the handler. Required arguments are checked before it runs (a missing one is
    /// answered with -32602 naming it).
    #[must_use]
    pub fn handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoPromptResult,
    {
        let f = Arc::new(f);
        self.handler = Some(HandlerFn::sendable(move |get: PromptGet| prompt_get(Arc::clone(&f), get)));
        self
    }

    /// Like [`handler`](Self::handler), for a function whose future is not `Send`: it runs on
    /// the server's one thread for local handlers.
    #[must_use]
    pub fn local_handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(PromptGet) -> Fut + Send + Sync + 'static,
        Fut: Future + 'static,
        Fut::Output: IntoPromptResult,
    {
        let f = Arc::new(f);
        self.handler = Some(HandlerFn::local(move |get: PromptGet| prompt_get(Arc::clone(&f), get)));
        self
    }
}

/// One call of a prompt's handler (`Send` when `f`'s future is: one body for both kinds).
async fn prompt_get<F, Fut>(f: Arc<F>, get: PromptGet) -> Result<GetPromptResult, ErrorObject>
where
    F: Fn(PromptGet) -> Fut,
    Fut: Future,
    Fut::Output: IntoPromptResult,
{
    f(get).await.into_prompt_result()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::code;

    #[test]
    fn an_error_object_keeps_its_code_and_other_errors_are_internal() {
        let invalid: Result<String, ErrorObject> = Err(ErrorObject::invalid_params("missing `name`"));
        let error = invalid.into_prompt_result().expect_err("an error");
        assert_eq!((error.code, error.message.as_str()), (code::INVALID_PARAMS, "missing `name`"));

        let failed: Result<String, String> = Err("no such gift".into());
        let error = failed.into_prompt_result().expect_err("an error");
        assert_eq!((error.code, error.message.as_str()), (code::INTERNAL_ERROR, "no such gift"));
    }
}
