//! What a handler knows about the request it serves, and how it talks back: application
//! state, progress, log messages to the client, and cancellation.

pub(crate) mod asking;
mod cancel;
mod identity;
mod link;
pub(crate) mod log_layer;
pub(crate) mod outlet;
pub(crate) mod request_state;
pub(crate) mod slot;
pub(crate) mod state;

pub use cancel::CancelToken;
pub use identity::Identity;
pub(crate) use identity::RequestExtras;
pub use link::LOG_MESSAGES_PER_SECOND;
pub(crate) use link::{Asker, ClientLink, LogLimiter, LogThreshold};

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Map, Value};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::context::asking::{
    AskError, Elicitation, Interrupt, Question, Root, SampledMessage, SamplingRequest, elicitation_from, form_schema,
};
use crate::context::state::{State, States};
use crate::protocol::{
    Feature, Implementation, LogLevel, LogMessage, RequestId, Revision, notification_line, request_line,
};

/// What was agreed with the client, whatever the era: through `initialize` (handshake
/// revisions) or from the request's own `_meta` (2026-07-28). Handlers see this one view.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Negotiated {
    /// The revision in use.
    pub revision: Revision,
    /// What the client declared it can do.
    pub client_capabilities: Map<String, Value>,
    /// Who the client said it is.
    pub client_info: Option<Implementation>,
}

/// The context of one request: a tool, resource or prompt takes it as a `Context` (or
/// `&Context`) parameter, which is not an argument and never appears in a schema.
///
/// Cloning is cheap.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Counts to `n`, telling the client how far it got.
/// #[mcp_tool]
/// async fn count(ctx: Context, n: u32) -> String {
///     for i in 1..=n {
///         ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
///         if ctx.is_cancelled() {
///             return format!("stopped at {i}");
///         }
///     }
///     format!("counted to {n} under {}", ctx.revision())
/// }
///
/// // A context tied to no client, for calling a handler in a unit test:
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(count(Context::detached(), 2).await, "counted to 2 under 2026-07-28");
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    inner: Arc<RequestInfo>,
}

#[derive(Debug)]
struct RequestInfo {
    negotiated: Arc<Negotiated>,
    request_id: RequestId,
    states: Arc<States>,
    cancel: CancelToken,
    /// `None` for a context tied to no client.
    link: Option<ClientLink>,
    extras: Option<Arc<RequestExtras>>,
    /// The last progress sent (each must be greater).
    last_progress: Mutex<Option<f64>>,
    /// The response is on its way: nothing more may be sent for this request.
    finished: AtomicBool,
    /// Questions asked so far (for URL elicitation ids).
    asked: std::sync::atomic::AtomicUsize,
}

/// What the runtime builds a request's context from.
pub(crate) struct RequestParts {
    pub(crate) negotiated: Arc<Negotiated>,
    pub(crate) request_id: RequestId,
    pub(crate) states: Arc<States>,
    pub(crate) cancel: CancelToken,
    pub(crate) link: Option<ClientLink>,
    pub(crate) extras: Option<Arc<RequestExtras>>,
}

impl Context {
    pub(crate) fn for_request(parts: RequestParts) -> Self {
        let RequestParts { negotiated, request_id, states, cancel, link, extras } = parts;
        Context {
            inner: Arc::new(RequestInfo {
                negotiated,
                request_id,
                states,
                cancel,
                link,
                extras,
                last_progress: Mutex::new(None),
                finished: AtomicBool::new(false),
                asked: std::sync::atomic::AtomicUsize::new(0),
            }),
        }
    }

    /// A context tied to no client, for calling a handler directly (in a unit test): the
    /// latest revision, no client capabilities, no states (add them with
    /// [`with_state`](Self::with_state)); progress and log messages go nowhere.
    pub fn detached() -> Self {
        let negotiated = Negotiated { revision: Revision::LATEST, client_capabilities: Map::new(), client_info: None };
        Context::for_request(RequestParts {
            negotiated: Arc::new(negotiated),
            request_id: RequestId::from(0),
            states: Arc::default(),
            cancel: CancelToken::default(),
            link: None,
            extras: None,
        })
    }

    /// This context with `value` registered as a state (replacing one of the same type).
    ///
    /// ```
    /// use mcp_runtime::Context;
    /// let ctx = Context::detached().with_state(42_u32);
    /// assert_eq!(*ctx.state::<u32>().unwrap(), 42);
    /// ```
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Self {
        let mut states = (*self.inner.states).clone();
        states.insert(value);
        let info = &self.inner;
        Context::for_request(RequestParts {
            negotiated: Arc::clone(&info.negotiated),
            request_id: info.request_id.clone(),
            states: Arc::new(states),
            cancel: info.cancel.clone(),
            link: None,
            extras: info.extras.clone(),
        })
    }

    /// The protocol revision this request is served under.
    pub fn revision(&self) -> Revision {
        self.inner.negotiated.revision
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// Who the client said it is, if it said.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.negotiated.client_info.as_ref()
    }

    /// The client's declared capabilities.
    pub fn client_capabilities(&self) -> &Map<String, Value> {
        &self.inner.negotiated.client_capabilities
    }

    /// Whether the client declared the capability `name` (e.g. `"elicitation"`).
    pub fn client_supports(&self, name: &str) -> bool {
        self.inner.negotiated.client_capabilities.contains_key(name)
    }

    /// Who made the request, when the transport authenticated it (HTTP with an
    /// authentication hook; see [`HttpOptions::bearer_auth`](crate::HttpOptions)).
    pub fn identity(&self) -> Option<&Identity> {
        self.inner.extras.as_ref().and_then(|extras| extras.identity.as_ref())
    }

    /// The value of the request's HTTP header `name` (case-insensitive), when it came over
    /// HTTP with that header.
    pub fn header(&self, name: &str) -> Option<&str> {
        let extras = self.inner.extras.as_ref()?;
        extras.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Ends the connection carrying this request's SSE stream now, without ending the request
    /// (HTTP, handshake revisions): the client reconnects with `Last-Event-ID` after the
    /// stream's `retry` delay and misses nothing, since every event is kept. Handlers of long
    /// tasks use it so that no connection stays open for the whole task (SSE polling). No
    /// effect anywhere else.
    pub fn close_sse_stream(&self) {
        if let Some(close) = self.inner.extras.as_ref().and_then(|e| e.stream_close.as_ref()) {
            close.notify_one();
        }
    }

    /// The registered state of type `T` (see [`State`]); `None` when none was registered.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.states.get::<T>()
    }

    /// Whether the request was cancelled (by the client, by its time limit, or by a shutdown
    /// whose drain deadline passed): for blocking work to check now and then.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled (see [`is_cancelled`](Self::is_cancelled)).
    /// An async handler is also simply dropped at its next `.await` then; this is for work it
    /// handed elsewhere.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.inner.cancel.clone();
        async move { token.cancelled().await }
    }

    /// A token that follows this request's cancellation, to hand to blocking work
    /// (`spawn_blocking`) or another task.
    pub fn cancel_token(&self) -> CancelToken {
        self.inner.cancel.clone()
    }

    /// Reports progress: `notifications/progress` for this request, sent only when the
    /// request carried a `progressToken`, only when `progress` is greater than the last one
    /// sent, and never once the response is on its way. `message` reaches clients of
    /// 2025-03-26 and later. Returns whether it was sent.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(line) = self.progress_line(progress, total, message) else { return false };
        self.send(line).await
    }

    fn progress_line(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> Option<Vec<u8>> {
        let link = self.inner.link.as_ref()?;
        let token = link.progress_token.as_ref()?;
        if self.inner.finished.load(Ordering::Acquire) || !progress.is_finite() {
            return None;
        }
        {
            let mut last = self.inner.last_progress.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|last| progress <= last) {
                return None;
            }
            *last = Some(progress);
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Progress<'a> {
            progress_token: &'a Value,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        let message = message.filter(|_| self.revision().supports(Feature::ProgressMessage));
        let params = Progress { progress_token: token, progress, total, message };
        Some(notification_line("notifications/progress", Some(&params)))
    }

    /// Sends the client a log message (`notifications/message`) for this request, when the
    /// server enabled [client logging](crate::Server::client_logging) and the client asked
    /// for this level: at or above the level of `logging/setLevel` (handshake revisions;
    /// `info` until the client sets one), or of the request's `_meta` log level (2026-07-28;
    /// nothing without it). At most [`LOG_MESSAGES_PER_SECOND`] go out per connection.
    /// Returns whether it was sent.
    pub async fn log(&self, level: LogLevel, data: impl Serialize) -> bool {
        let Some(line) = self.log_line(level, None, &data) else { return false };
        self.send(line).await
    }

    /// The line of a log message this request may send now (see [`log`](Self::log)).
    pub(crate) fn log_line(&self, level: LogLevel, logger: Option<&str>, data: &impl Serialize) -> Option<Vec<u8>> {
        let link = self.inner.link.as_ref()?;
        if self.inner.finished.load(Ordering::Acquire) || !link.log.allows(level) {
            return None;
        }
        let dropped = link.limiter.take()?;
        let mut line = Vec::new();
        if dropped > 0 {
            let note = format!("{dropped} log messages were dropped (more than {LOG_MESSAGES_PER_SECOND} per second)");
            let params = LogMessage { level: LogLevel::Warning, logger: Some("mcp-runtime"), data: note };
            line = notification_line("notifications/message", Some(&params));
        }
        line.extend(notification_line("notifications/message", Some(&LogMessage { level, logger, data })));
        Some(line)
    }

    /// Queues a notification line for this request without waiting (the log layer's path);
    /// dropped when the output is full.
    pub(crate) fn try_send(&self, line: Vec<u8>) -> bool {
        self.inner.link.as_ref().is_some_and(|link| link.out.try_send(line))
    }

    async fn send(&self, line: Vec<u8>) -> bool {
        match &self.inner.link {
            Some(link) => link.out.send(line).await,
            None => false,
        }
    }

    /// Asks the user to fill in a form for `T` (`elicitation/create`): the form's schema comes
    /// from `T`, a struct of strings, numbers, integers, booleans, enums of strings (described
    /// variants become titled choices) and lists of enum values; `Option` fields are
    /// optional, doc comments become descriptions. The user accepts (with the values), declines
    /// or cancels.
    ///
    /// Handshake revisions send the request on the connection; 2026-07-28 answers the request
    /// with an input-required result and runs the handler again with the answer. Without the
    /// client's `elicitation` capability this fails at once (2026-07-28: the request is
    /// answered with -32021).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::Elicitation;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Type "yes" to delete
    ///     answer: String,
    /// }
    ///
    /// /// Deletes everything, once the user confirms.
    /// #[mcp_tool(destructive)]
    /// async fn delete_all(ctx: Context) -> Result<String, mcp_runtime::AskError> {
    ///     Ok(match ctx.elicit::<Confirm>("Delete everything?").await? {
    ///         Elicitation::Accept(Confirm { answer }) if answer == "yes" => "Deleted".into(),
    ///         _ => "Kept everything".into(),
    ///     })
    /// }
    /// ```
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        self.elicit_as(None, message).await
    }

    async fn elicit_as<T: DeserializeOwned + JsonSchema>(
        &self,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        let schema = form_schema::<T>()?;
        let mut params = json!({"message": message.into(), "requestedSchema": schema});
        if self.revision().supports(Feature::ElicitationModes) {
            params["mode"] = json!("form");
        }
        elicitation_from(self.ask(Question::elicit(params), key).await?)
    }

    /// Asks the user to visit `url` (URL elicitation; 2025-11-25 and later, with the client's
    /// `elicitation.url` capability): whether they agreed to go.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.elicit_url_as(None, message, url).await
    }

    async fn elicit_url_as(
        &self,
        key: Option<&str>,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        if !self.revision().supports(Feature::ElicitationModes) {
            return Err(AskError::NotDeclared("elicitation.url"));
        }
        let mut params = json!({"mode": "url", "message": message.into(), "url": url.into()});
        if self.revision().supports(Feature::Handshake) {
            params["elicitationId"] =
                json!(format!("{}-{}", self.request_id(), self.inner.asked.load(Ordering::Relaxed)));
        }
        let answer = self.ask(Question::elicit_url(params), key).await?;
        Ok(match elicitation_from::<Value>(answer)? {
            Elicitation::Accept(_) => Elicitation::Accept(()),
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
        })
    }

    /// Asks the client's model for a message (`sampling/createMessage`; needs the client's
    /// `sampling` capability, and `sampling.tools` when the request offers tools).
    pub async fn sample(&self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.sample_as(None, request).await
    }

    async fn sample_as(&self, key: Option<&str>, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        let answer = self.ask(Question::sample(&request), key).await?;
        serde_json::from_value(answer).map_err(|e| AskError::Unreadable(e.to_string()))
    }

    /// The client's roots (`roots/list`; needs the client's `roots` capability).
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.roots_as(None).await
    }

    async fn roots_as(&self, key: Option<&str>) -> Result<Vec<Root>, AskError> {
        #[derive(serde::Deserialize)]
        struct Roots {
            roots: Vec<Root>,
        }
        let answer = self.ask(Question::roots(), key).await?;
        serde_json::from_value::<Roots>(answer).map(|r| r.roots).map_err(|e| AskError::Unreadable(e.to_string()))
    }

    /// The same questions as [`elicit`](Self::elicit), [`sample`](Self::sample),
    /// [`roots`](Self::roots) and [`elicit_url`](Self::elicit_url), under a key of your
    /// choosing: in 2026-07-28 it names the question in the input-required result (its
    /// `inputRequests`) and the client's answer in the retry (`inputResponses`); elsewhere it
    /// changes nothing. Questions asked together (in one `join!`) reach a 2026-07-28 client in
    /// one result, and its retry answers them all; keys must differ within a request.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::{AskError, SamplingRequest};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greets the user by name, in words the client's model chose.
    /// #[mcp_tool]
    /// async fn greet(ctx: Context) -> Result<String, AskError> {
    ///     let (name, greeting) = tokio::join!(
    ///         ctx.input("user_name").elicit::<Name>("What is your name?"),
    ///         ctx.input("greeting").sample(SamplingRequest::new(50).user("A greeting, please")),
    ///     );
    ///     let name = match name? {
    ///         mcp_runtime::Elicitation::Accept(Name { name }) => name,
    ///         _ => "stranger".into(),
    ///     };
    ///     Ok(format!("{} {name}", greeting?.text().unwrap_or("Hello")))
    /// }
    /// ```
    pub fn input<'a>(&'a self, key: &'a str) -> Input<'a> {
        Input { context: self, key }
    }

    /// Asks the client `question` the way this request's era does; in 2026-07-28, under `key`
    /// in the input-required result (its number among this request's questions by default).
    async fn ask(&self, question: Question, key: Option<&str>) -> Result<Value, AskError> {
        self.inner.asked.fetch_add(1, Ordering::Relaxed);
        let link = self.inner.link.as_ref().ok_or(AskError::Unavailable)?;
        if self.inner.finished.load(Ordering::Acquire) {
            return Err(AskError::Unavailable);
        }
        let declared = question.declared_in(self.client_capabilities());
        match link.asker.as_ref().ok_or(AskError::Unavailable)? {
            Asker::Round(round) => {
                if !declared {
                    round.stop(Interrupt::MissingCapability(question));
                } else if let Some(answer) = round.next(question, key) {
                    return Ok(answer);
                }
                // The executor answers the request now; this handler is dropped while it waits.
                std::future::pending().await
            }
            Asker::Connection { pending, timeout } => {
                if !declared {
                    return Err(AskError::NotDeclared(question.capability_name()));
                }
                if question.needs == ("elicitation", None) && !self.revision().supports(Feature::Elicitation) {
                    return Err(AskError::NotDeclared("elicitation"));
                }
                let (id, answer) = pending.register();
                let line = request_line(&id, question.method, &question.params);
                if !link.out.send(line).await {
                    pending.forget(&id);
                    return Err(AskError::Disconnected);
                }
                // A handler waiting for its client holds no in-flight slot.
                if let Some(lease) = &link.lease {
                    lease.release();
                }
                let outcome = tokio::time::timeout(*timeout, answer).await;
                if let Some(lease) = &link.lease {
                    lease.reacquire().await;
                }
                match outcome {
                    Ok(Ok(Ok(answer))) => Ok(answer),
                    Ok(Ok(Err(error))) => Err(AskError::Client(error)),
                    Ok(Err(_)) => Err(AskError::Disconnected),
                    Err(_) => {
                        pending.forget(&id);
                        Err(AskError::TimedOut(*timeout))
                    }
                }
            }
        }
    }

    /// Completes when this 2026-07-28 request's handler was interrupted to ask the client
    /// (never for other requests).
    pub(crate) async fn interrupted(&self) -> Interrupt {
        match self.inner.link.as_ref().and_then(|link| link.asker.as_ref()) {
            Some(Asker::Round(round)) => round.interrupted().await,
            _ => std::future::pending().await,
        }
    }

    /// The interruption, if the handler was interrupted (checked after its first poll).
    pub(crate) fn take_interrupt(&self) -> Option<Interrupt> {
        match self.inner.link.as_ref().and_then(|link| link.asker.as_ref()) {
            Some(Asker::Round(round)) => round.take(),
            _ => None,
        }
    }

    /// Whether this request can be interrupted to ask the client (2026-07-28).
    pub(crate) fn can_interrupt(&self) -> bool {
        matches!(self.inner.link.as_ref().and_then(|link| link.asker.as_ref()), Some(Asker::Round(_)))
    }

    /// The module path the handler was defined in, when known.
    pub(crate) fn origin(&self) -> Option<&'static str> {
        self.inner.link.as_ref().and_then(|link| link.origin)
    }

    /// The response is on its way: nothing more is sent for this request.
    pub(crate) fn finish(&self) {
        self.inner.finished.store(true, Ordering::Release);
    }
}

/// A question under a key of the handler's choosing: see [`Context::input`].
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    context: &'a Context,
    key: &'a str,
}

impl Input<'_> {
    /// [`Context::elicit`], under this key.
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, AskError> {
        self.context.elicit_as(Some(self.key), message).await
    }

    /// [`Context::elicit_url`], under this key.
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.context.elicit_url_as(Some(self.key), message, url).await
    }

    /// [`Context::sample`], under this key.
    pub async fn sample(self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.context.sample_as(Some(self.key), request).await
    }

    /// [`Context::roots`], under this key.
    pub async fn roots(self) -> Result<Vec<Root>, AskError> {
        self.context.roots_as(Some(self.key)).await
    }
}
