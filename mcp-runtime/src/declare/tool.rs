//! Tools: descriptors (static data plus a handler), and what a handler may return.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::declare::handler::HandlerFn;
use crate::declare::item::ItemParts;
use crate::declare::output::{OutputSchema, OutputValue};
use crate::declare::task::{TaskPolicy, TaskSupport};
use crate::protocol::{CallToolResult, Content, Icon, Tool, ToolAnnotations};
use crate::util::BoxFuture;
use crate::util::schema;

/// The type-erased handler every tool is stored as.
pub(crate) type ToolHandler = HandlerFn<ToolCall, CallToolResult>;

/// One call of a tool: its raw arguments and the request's context.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolCall {
    pub(crate) name: Arc<str>,
    /// The text of the arguments object (valid JSON: it was read from a validated message).
    pub(crate) arguments: Option<Box<str>>,
    pub(crate) context: Context,
}

impl ToolCall {
    /// The called tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The request's context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Deserializes the arguments (absent arguments read as `{}`). The error is the
    /// `isError` result to send back, naming the offending field.
    pub fn arguments<A: DeserializeOwned>(&self) -> Result<A, CallToolResult> {
        let text = self.arguments.as_deref().unwrap_or("{}");
        // Valid arguments take the plain parse. Tracking the path to the offending field costs
        // about a tenth of a small call's work, so only arguments that failed are parsed again
        // with it, to name the field.
        serde_json::from_str(text).map_err(|plain| {
            let mut de = serde_json::Deserializer::from_str(text);
            match serde_path_to_error::deserialize::<_, A>(&mut de) {
                Err(e) => invalid_arguments(&self.name, &e.path().to_string(), e.inner()),
                Ok(_) => invalid_arguments(&self.name, ".", &plain),
            }
        })
    }
}

#[cold]
fn invalid_arguments(tool: &str, path: &str, e: &serde_json::Error) -> CallToolResult {
    // The position in the arguments' JSON text says nothing the field's name does not.
    let full = e.to_string();
    let reason = full.find(" at line ").map_or(full.as_str(), |end| &full[..end]);
    let message = if path == "." || path.is_empty() {
        format!("Invalid arguments for tool `{tool}`: {reason}")
    } else {
        format!("Invalid arguments for tool `{tool}`: `{path}`: {reason}")
    };
    CallToolResult::error(message)
}

/// A tool: what `tools/list` shows of it, and the handler `tools/call` runs.
///
/// This is the builder API the `#[mcp_tool]` macro expands to; it works without the macro.
///
/// ```
/// use mcp_runtime::{ToolDescriptor, Json};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// let add = ToolDescriptor::new("add")
///     .description("Adds two integers")
///     .read_only(true)
///     .handler(|args: AddArgs| async move { (args.a + args.b).to_string() });
/// assert_eq!(add.name(), "add");
/// ```
pub struct ToolDescriptor {
    pub(crate) tool: Tool,
    pub(crate) handler: Option<ToolHandler>,
    pub(crate) parts: ItemParts,
    /// The input schema was set explicitly and is not replaced by the handler's.
    input_schema_set: bool,
    pub(crate) required_client_capabilities: Vec<String>,
    /// The states the handler takes: checked when the server starts.
    /// Arguments mirrored in HTTP headers: (argument, header name after `Mcp-Param-`).
    pub(crate) header_params: Vec<(String, String)>,
    pub(crate) task: TaskPolicy,
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("tool", &self.tool)
            .field("has_handler", &self.handler.is_some())
            .field("defined_at", &self.parts.defined_at)
            .finish()
    }
}

impl ToolDescriptor {
    /// A tool called `name`, with an empty object input schema and no handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        ToolDescriptor {
            tool: Tool {
                name: name.into(),
                title: None,
                description: None,
                input_schema: serde_json::json!({ "type": "object" }),
                output_schema: None,
                annotations: None,
                icons: None,
                meta: None,
            },
            handler: None,
            parts: ItemParts::default(),
            input_schema_set: false,
            required_client_capabilities: Vec::new(),
            header_params: Vec::new(),
            task: TaskPolicy::default(),
        }
    }

    /// A tool as another server lists it (its schemas as they are), with no handler yet.
    #[cfg(feature = "client")]
    pub(crate) fn listed(tool: Tool) -> Self {
        ToolDescriptor { tool, input_schema_set: true, ..ToolDescriptor::new("") }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool as `tools/list` shows it (before shaping for a revision).
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Sets the display name.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Sets the description the model reads.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Sets the input schema as written (kept intact: `$schema`, `$defs` and all).
    #[must_use]
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.tool.input_schema = schema;
        self.input_schema_set = true;
        self
    }

    /// Sets the output schema as written; structured results must match it.
    #[must_use]
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// Sets every annotation at once.
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = (!annotations.is_empty()).then_some(annotations);
        self
    }

    fn annotation(mut self, set: impl FnOnce(&mut ToolAnnotations)) -> Self {
        set(self.tool.annotations.get_or_insert_with(ToolAnnotations::default));
        self
    }

    /// Hints that the tool does not change its environment.
    #[must_use]
    pub fn read_only(self, hint: bool) -> Self {
        self.annotation(|a| a.read_only_hint = Some(hint))
    }

    /// Hints that the tool may destroy or overwrite data.
    #[must_use]
    pub fn destructive(self, hint: bool) -> Self {
        self.annotation(|a| a.destructive_hint = Some(hint))
    }

    /// Hints that repeating a call with the same arguments has no further effect.
    #[must_use]
    pub fn idempotent(self, hint: bool) -> Self {
        self.annotation(|a| a.idempotent_hint = Some(hint))
    }

    /// Hints that the tool reaches outside the server.
    #[must_use]
    pub fn open_world(self, hint: bool) -> Self {
        self.annotation(|a| a.open_world_hint = Some(hint))
    }

    /// Adds an icon.
    #[must_use]
    pub fn icon(mut self, icon: Icon) -> Self {
        self.tool.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// Adds a `_meta` entry.
    #[must_use]
    pub fn meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.tool.meta.get_or_insert_with(Map::new).insert(key.into(), value);
        self
    }

    /// Tags the tool (`"admin"`): a layer or [`Server::only_tags`](crate::Server::only_tags)
    /// can select tools by their tags, which clients never see.
    ///
    /// ```
    /// use mcp_runtime::ToolDescriptor;
    /// let tool = ToolDescriptor::new("wipe").tag("admin");
    /// assert_eq!(tool.tags(), ["admin"]);
    /// ```
    #[must_use]
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.parts.tags.add(tag.into());
        self
    }

    /// The tool's tags.
    pub fn tags(&self) -> &[String] {
        self.parts.tags.as_slice()
    }

    /// Needs `scope` of a caller's token (`"notes:write"`): over HTTP with
    /// [authorization], a call without it is refused (403
    /// `insufficient_scope`, so the client can step up) before the handler runs, and lists
    /// leave the tool out. Without authorization (stdio, HTTP without a verifier) scopes are
    /// not checked.
    ///
    /// ```
    /// use mcp_runtime::ToolDescriptor;
    /// let tool = ToolDescriptor::new("write_note").scope("notes:write");
    /// assert_eq!(tool.scopes(), ["notes:write"]);
    /// ```
    #[cfg_attr(feature = "http", doc = "", doc = "[authorization]: crate::http::Authorization")]
    #[cfg_attr(
        not(feature = "http"),
        doc = "",
        doc = "[authorization]: https://docs.rs/mcp-runtime/latest/mcp_runtime/http/struct.Authorization.html"
    )]
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.parts.scopes.add(scope.into());
        self
    }

    /// The scopes the tool needs.
    pub fn scopes(&self) -> &[String] {
        self.parts.scopes.as_slice()
    }

    /// Declares that a call needs the client capability `name` (e.g. `"elicitation"`). A
    /// 2026-07-28 request from a client that did not declare it is refused with -32021 before
    /// the handler runs; under the handshake revisions the call fails with an `isError` result.
    #[must_use]
    pub fn requires_client_capability(mut self, name: impl Into<String>) -> Self {
        self.required_client_capabilities.push(name.into());
        self
    }

    /// Mirrors the argument `argument` in the HTTP header `Mcp-Param-<header>` (2026-07-28):
    /// its input schema property gets `"x-mcp-header": header`, clients send the header, and
    /// the server refuses a request whose header does not match the body (400, -32020). The
    /// argument must be a string, integer or boolean; the name a token, unique in the tool.
    /// What `#[mcp(header = "...")]` on a parameter does.
    #[must_use]
    pub fn header_param(mut self, argument: impl Into<String>, header: impl Into<String>) -> Self {
        self.header_params.push((argument.into(), header.into()));
        self
    }

    /// Says whether calls may run as tasks (the tasks extension of 2026-07-28; see
    /// [`TaskSupport`]). The server declares the extension when a tool allows tasks.
    #[must_use]
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task.support = support;
        self
    }

    /// Starts a call's task only once the handler first waits on something other than a
    /// question: questions it asks before that reach the client as in any call (input-required
    /// results, answered by the client's retry), and the retry that brings the last answer is
    /// the one answered with the task. Without this, a task starts before the handler runs and
    /// every question waits in the task (`tasks/get` shows it, `tasks/update` answers it).
    /// What `#[mcp_tool(task = "...", task_after_input)]` does.
    #[must_use]
    pub fn task_after_input(mut self) -> Self {
        self.task.after_input = true;
        self
    }

    /// Whether calls may run as tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.task.support
    }

    /// Sets how long a call may run: past it the call ends with an `isError` result saying so
    /// (the server-wide default is [`Server::default_timeout`](crate::Server::default_timeout);
    /// none unless set).
    #[must_use]
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.parts.spec.timeout = Some(limit);
        self
    }

    /// Records where the tool is defined, for start-up errors (`file:line`).
    #[must_use]
    pub fn defined_at(mut self, location: impl Into<Cow<'static, str>>) -> Self {
        self.parts.defined_at = location.into();
        self
    }

    /// Sets the handler: a function of the deserialized arguments. The input schema comes
    /// from `A` and the output schema from the return type, unless set explicitly before.
    #[must_use]
    pub fn handler<A, F, Fut>(self, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        self.handler_with_context(move |args: A, _ctx: Context| f(args))
    }

    /// Like [`handler`](Self::handler), for functions that also take the request's [`Context`].
    #[must_use]
    pub fn handler_with_context<A, F, Fut>(self, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        let f = Arc::new(f);
        self.typed::<A, Fut::Output>(HandlerFn::sendable(move |call: ToolCall| typed_call(Arc::clone(&f), call)))
    }

    /// Like [`handler_with_context`](Self::handler_with_context), for a function whose future
    /// is not `Send` (it holds an `Rc` or a `RefCell` guard across `.await`): it runs on the
    /// server's one thread for local handlers, whatever the transport. What `#[mcp_tool(local)]`
    /// uses.
    ///
    /// ```
    /// use std::cell::RefCell;
    /// use std::rc::Rc;
    /// use mcp_runtime::{Context, ToolDescriptor};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Args { times: u32 }
    ///
    /// let count = ToolDescriptor::new("count").local_handler_with_context(|args: Args, _ctx: Context| async move {
    ///     let total = Rc::new(RefCell::new(0));
    ///     for _ in 0..args.times {
    ///         *total.borrow_mut() += 1;
    ///         tokio::task::yield_now().await; // `total` (an `Rc`) lives across this await
    ///     }
    ///     let total = *total.borrow();
    ///     total.to_string()
    /// });
    /// assert_eq!(count.name(), "count");
    /// ```
    #[must_use]
    pub fn local_handler_with_context<A, F, Fut>(self, f: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future + 'static,
        Fut::Output: IntoToolResult,
    {
        let f = Arc::new(f);
        self.typed::<A, Fut::Output>(HandlerFn::local(move |call: ToolCall| typed_call(Arc::clone(&f), call)))
    }

    /// Sets a handler of arguments `A` returning `R`, `Send` or local: the input schema comes
    /// from `A` and the output schema from `R`, unless set before.
    fn typed<A: JsonSchema, R: IntoToolResult>(mut self, handler: ToolHandler) -> Self {
        if !self.input_schema_set {
            self.tool.input_schema = schema::input_schema_for::<A>();
        }
        if self.tool.output_schema.is_none() {
            self.tool.output_schema = R::output_schema();
        }
        self.handler = Some(handler);
        self
    }

    /// Sets a handler that takes the raw [`ToolCall`] and produces the result itself.
    #[must_use]
    pub fn raw_handler<F>(mut self, f: F) -> Self
    where
        F: Fn(ToolCall) -> BoxFuture<'static, CallToolResult> + Send + Sync + 'static,
    {
        self.handler = Some(HandlerFn::Send(Arc::new(f)));
        self
    }
}

/// One call of a handler of typed arguments: the arguments read as `A` (an error result
/// saying what does not fit, otherwise), then `f` (`Send` when `f`'s future is, so that the
/// same body serves both kinds of handler).
async fn typed_call<A, F, Fut>(f: Arc<F>, call: ToolCall) -> CallToolResult
where
    A: DeserializeOwned,
    F: Fn(A, Context) -> Fut,
    Fut: Future,
    Fut::Output: IntoToolResult,
{
    match call.arguments::<A>() {
        Ok(args) => f(args, call.context).await.into_tool_result(),
        Err(error) => error,
    }
}

/// Whether `name` is a valid tool name: 1–128 characters of `A-Z a-z 0-9 _ - .`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// What a tool may return.
///
/// Implemented for text (`String`, `&'static str`), content blocks ([`Content`],
/// `Vec<Content>`), structured output ([`Json`], [`Structured`]), a whole
/// [`CallToolResult`], `()` and `Result<T, E>` where `Err` becomes an `isError` result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this type cannot become a tool result",
    note = "return a `String`, `Content`, `Vec<Content>`, `Json<T>` (structured output), `CallToolResult`, or a `Result<T, E>` of one of them with `E: Display`"
)]
pub trait IntoToolResult {
    /// Converts the value into the result sent to the client.
    fn into_tool_result(self) -> CallToolResult;

    /// The JSON Schema of the structured output, if the type has one.
    fn output_schema() -> Option<Value> {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for Cow<'static, str> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::content(Vec::new())
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::content(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::content(self)
    }
}

impl<T: IntoToolResult, E: fmt::Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(e) => CallToolResult::error(e.to_string()),
        }
    }

    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

/// Structured output: `T` is sent as `structuredContent` (with `outputSchema` from its
/// `JsonSchema`) and, for older clients, as a text block holding the same JSON.
///
/// ```
/// use mcp_runtime::{IntoToolResult, Json};
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Total { sum: i64 }
/// let result = Json(Total { sum: 3 }).into_tool_result();
/// assert_eq!(result.structured_content.unwrap()["sum"], 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    /// Replaces the default text copy (the serialized JSON) with a text of your own.
    pub fn with_text(self, text: impl Into<String>) -> Structured<T> {
        Structured { value: self.0, text: text.into() }
    }
}

/// Structured output with a text of the tool's choosing beside it (see [`Json::with_text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structured<T> {
    /// The structured value.
    pub value: T,
    /// The text sent beside it.
    pub text: String,
}

fn structured_result(value: Result<Value, serde_json::Error>, text: Option<String>) -> CallToolResult {
    match value {
        Ok(value) => {
            let text = text.unwrap_or_else(|| value.to_string());
            CallToolResult { structured_content: Some(value), ..CallToolResult::text(text) }
        }
        Err(e) => {
            tracing::error!(error = %e, "a tool's structured output could not be serialized");
            CallToolResult::error("The tool's output could not be serialized")
        }
    }
}

impl<T: OutputValue + OutputSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> CallToolResult {
        structured_result(serde_json::to_value(&self.0), None)
    }

    fn output_schema() -> Option<Value> {
        Some(schema::output_schema_for::<T>())
    }
}

impl<T: OutputValue + OutputSchema> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> CallToolResult {
        structured_result(serde_json::to_value(&self.value), Some(self.text))
    }

    fn output_schema() -> Option<Value> {
        Some(schema::output_schema_for::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    struct Args {
        #[allow(dead_code)]
        age: u8,
    }

    fn call(arguments: &str) -> ToolCall {
        ToolCall { name: "t".into(), arguments: Some(arguments.into()), context: Context::detached() }
    }

    fn error_text(result: CallToolResult) -> String {
        assert!(result.is_error);
        match &result.content[0] {
            Content::Text { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn argument_errors_name_the_field() {
        let text = error_text(call(r#"{"age": "old"}"#).arguments::<Args>().err().unwrap());
        assert!(text.contains("`age`"), "{text}");
        let text = error_text(call("{}").arguments::<Args>().err().unwrap());
        assert!(text.contains("missing field `age`"), "{text}");
    }

    #[test]
    fn err_becomes_is_error() {
        let r: Result<String, String> = Err("too old".into());
        assert_eq!(error_text(r.into_tool_result()), "too old");
    }

    #[test]
    fn names_are_checked() {
        assert!(is_valid_tool_name("suggest_gifts-v1.2"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("with space"));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
    }
}
