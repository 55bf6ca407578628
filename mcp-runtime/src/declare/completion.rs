//! Completion of prompt arguments and template variables (`completion/complete`).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::context::state::{State, States};
use crate::protocol::ErrorObject;
use crate::util::BoxFuture;

/// What a completer is asked: which argument, what the user typed so far, the arguments
/// already resolved (`context.arguments`, 2025-06-18+), and the server's states.
#[derive(Debug, Clone, Default)]
pub struct CompletionContext {
    pub(crate) argument: String,
    pub(crate) value: String,
    pub(crate) arguments: BTreeMap<String, String>,
    pub(crate) states: Arc<States>,
}

impl CompletionContext {
    /// The argument or variable being completed.
    pub fn argument(&self) -> &str {
        &self.argument
    }

    /// What was typed so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Another argument's value, when the client already resolved it.
    pub fn resolved(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// The state of type `T` registered with [`Server::state`](crate::Server::state), if
    /// any: for values that come from what the server holds (the titles of the notes, say).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.get::<T>()
    }
}

/// The candidates that start with `typed`, ignoring ASCII case, in their original order: the
/// usual completer body.
///
/// ```
/// let categories = ["books", "tech", "toys"];
/// assert_eq!(mcp_runtime::starting_with("T", categories), ["tech", "toys"]);
/// ```
pub fn starting_with<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    candidates
        .into_iter()
        .filter(|c| c.get(..typed.len()).is_some_and(|head| head.eq_ignore_ascii_case(typed)))
        .map(str::to_owned)
        .collect()
}

/// The values a completer may return.
#[diagnostic::on_unimplemented(
    message = "a completer returns the suggested values, `Vec<String>` or `Vec<&str>`, not `{Self}`",
    label = "not a list of values"
)]
pub trait IntoCompletionValues {
    /// The values, best first.
    fn into_values(self) -> Vec<String>;
}

impl IntoCompletionValues for Vec<String> {
    fn into_values(self) -> Vec<String> {
        self
    }
}

impl IntoCompletionValues for Vec<&str> {
    fn into_values(self) -> Vec<String> {
        self.into_iter().map(str::to_owned).collect()
    }
}

/// A completer, type-erased (what [`IntoCompleter`] makes; not meant to be named).
#[derive(Clone)]
#[doc(hidden)]
pub enum CompletionHandler {
    /// A plain function (what [`IntoCompleter`] makes): answered at once.
    Plain(Arc<PlainCompleter>),
    /// Work that waits (a proxy asking its remote): run as a request's work.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Waiting(Arc<WaitingCompleter>),
}

/// A completer that answers at once.
type PlainCompleter = dyn Fn(&CompletionContext) -> Vec<String> + Send + Sync;

/// A completer whose values come later (or an error, to answer the request with).
type WaitingCompleter = dyn Fn(CompletionContext) -> BoxFuture<'static, Result<Vec<String>, ErrorObject>> + Send + Sync;

impl std::fmt::Debug for CompletionHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CompletionHandler::Plain(_) => "CompletionHandler::Plain",
            CompletionHandler::Waiting(_) => "CompletionHandler::Waiting",
        })
    }
}

/// A function that completes a value: `fn(&str) -> Vec<String>` (given what was typed) or
/// `fn(&str, &CompletionContext) -> Vec<String>` (also given the other arguments). `Vec<&str>`
/// works as the return type too. The marker `M` only tells the two shapes apart.
#[diagnostic::on_unimplemented(
    message = "this cannot complete a value: a completer is `Fn(&str) -> Vec<String>` or `Fn(&str, &CompletionContext) -> Vec<String>`",
    label = "not a completer",
    note = "it gets what the user typed so far (and, in the second shape, the other arguments) and returns the suggested values, best first; `Vec<&str>` works too",
    note = "`starting_with(typed, [\"a\", \"b\"])` returns the candidates that start with what was typed"
)]
pub trait IntoCompleter<M> {
    /// The type-erased completer.
    fn into_completer(self) -> CompletionHandler;
}

impl<F, R> IntoCompleter<(R,)> for F
where
    F: Fn(&str) -> R + Send + Sync + 'static,
    R: IntoCompletionValues,
{
    fn into_completer(self) -> CompletionHandler {
        CompletionHandler::Plain(Arc::new(move |ctx: &CompletionContext| self(&ctx.value).into_values()))
    }
}

impl<F, R> IntoCompleter<(R, CompletionContext)> for F
where
    F: Fn(&str, &CompletionContext) -> R + Send + Sync + 'static,
    R: IntoCompletionValues,
{
    fn into_completer(self) -> CompletionHandler {
        CompletionHandler::Plain(Arc::new(move |ctx: &CompletionContext| self(&ctx.value, ctx).into_values()))
    }
}
