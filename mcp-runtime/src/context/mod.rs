//! What a handler knows about the request it serves, and how it talks back: application
//! state, progress, log messages to the client, and cancellation.

pub(crate) mod asking;
mod cancel;
mod identity;
pub(crate) mod input_round;
mod link;
pub(crate) mod log_layer;
pub(crate) mod outlet;
pub(crate) mod parking;
mod questions;
pub(crate) mod request_state;
pub(crate) mod slot;
pub(crate) mod state;
pub(crate) mod task_link;

pub use cancel::CancelToken;
#[cfg(feature = "http")]
pub(crate) use identity::Authorized;
pub use identity::Identity;
pub(crate) use identity::RequestExtras;
pub use link::LOG_MESSAGES_PER_SECOND;
pub(crate) use link::{Asker, ClientLink, LogLimiter, LogThreshold};
pub use questions::Input;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::context::state::{State, States};
use crate::protocol::{Feature, Implementation, LogLevel, LogMessage, RequestId, Revision, notification_line};

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
    /// The retry this request's handler now serves, once it was kept for one (2026-07-28): its
    /// notifications and cancellation are the retry's.
    resumed: OnceLock<Context>,
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
                resumed: OnceLock::new(),
            }),
        }
    }

    /// The request this context serves now: itself, or the retry its handler was kept for
    /// (and that retry's, should it be kept again).
    fn live(&self) -> &Context {
        self.served().last().unwrap_or(self)
    }

    /// This request, then each retry its handler served since, in order.
    fn served(&self) -> impl Iterator<Item = &Context> {
        std::iter::successors(Some(self), |context| context.inner.resumed.get())
    }

    /// Cancels this request and every retry its handler served since (a kept handler dropped:
    /// work it handed elsewhere, with any of their tokens, stops).
    pub(crate) fn cancel_all(&self) {
        for context in self.served() {
            context.inner.cancel.cancel();
        }
    }

    /// Whether this request's messages go to the connection whose output is `out`.
    pub(crate) fn sends_to(&self, out: &tokio::sync::mpsc::Sender<Vec<u8>>) -> bool {
        let link = self.inner.link.as_ref();
        link.is_some_and(|link| matches!(&link.out, outlet::Outlet::Connection(own) if own.same_channel(out)))
    }

    /// The handler holding this context was kept for `retry`, and now serves it.
    pub(crate) fn resume_as(&self, retry: Context) {
        let _ = self.live().inner.resumed.set(retry);
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
        self.with_states(Arc::new(states))
    }

    /// The same request seeing `states`, tied to no client (what a layer's context is).
    pub(crate) fn with_states(&self, states: Arc<States>) -> Self {
        let info = &self.inner;
        Context::for_request(RequestParts {
            negotiated: Arc::clone(&info.negotiated),
            request_id: info.request_id.clone(),
            states,
            cancel: info.cancel.clone(),
            link: None,
            extras: info.extras.clone(),
        })
    }

    /// The states this request's handler sees.
    pub(crate) fn states(&self) -> &Arc<States> {
        &self.inner.states
    }

    /// The protocol revision this request is served under.
    pub fn revision(&self) -> Revision {
        self.inner.negotiated.revision
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.live().inner.request_id
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
    /// authentication hook; see [`HttpOptions::bearer_auth`]).
    #[cfg_attr(feature = "http", doc = "", doc = "[`HttpOptions::bearer_auth`]: crate::http::HttpOptions::bearer_auth")]
    #[cfg_attr(
        not(feature = "http"),
        doc = "",
        doc = "[`HttpOptions::bearer_auth`]: https://docs.rs/mcp-runtime/latest/mcp_runtime/struct.HttpOptions.html#method.bearer_auth"
    )]
    pub fn identity(&self) -> Option<&Identity> {
        self.inner.extras.as_ref().and_then(|extras| extras.identity.as_ref())
    }

    /// The value of the request's HTTP header `name` (case-insensitive), when it came over
    /// HTTP with that header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.inner.extras.as_ref()?.header(name)
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
        self.live().inner.cancel.is_cancelled()
    }

    /// Completes when the request is cancelled (see [`is_cancelled`](Self::is_cancelled)).
    /// An async handler is also simply dropped at its next `.await` then; this is for work it
    /// handed elsewhere.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        let token = self.live().inner.cancel.clone();
        async move { token.cancelled().await }
    }

    /// A token that follows this request's cancellation, to hand to blocking work
    /// (`spawn_blocking`) or another task.
    pub fn cancel_token(&self) -> CancelToken {
        self.live().inner.cancel.clone()
    }

    /// Reports progress: `notifications/progress` for this request, sent only when the
    /// request carried a `progressToken`, only when `progress` is greater than the last one
    /// sent, and never once the response is on its way. `message` reaches clients of
    /// 2025-03-26 and later. Returns whether it was sent.
    ///
    /// In a tool call running as a task, progress becomes the task's `statusMessage` (its
    /// `message`, else how far it got), which `tasks/get` shows.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        if let Some(task) = self.task() {
            if !progress.is_finite() {
                return false;
            }
            task.status(task_link::progress_text(progress, total, message));
            return true;
        }
        let Some(line) = self.progress_line(progress, total, message) else { return false };
        self.send(line).await
    }

    /// The task this handler runs as, once it is one.
    fn task(&self) -> Option<&Arc<dyn task_link::TaskLink>> {
        match self.inner.link.as_ref()?.asker.as_ref()? {
            Asker::Task(asker) => asker.task.get(),
            Asker::Round(_) | Asker::Connection { .. } => None,
        }
    }

    /// Whether this handler runs as a task (a tool call of the tasks extension).
    pub fn is_task(&self) -> bool {
        self.task().is_some()
    }

    fn progress_line(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> Option<Vec<u8>> {
        let this = self.live();
        let link = this.inner.link.as_ref()?;
        let token = link.progress_token.as_ref()?;
        if this.inner.finished.load(Ordering::Acquire) || !progress.is_finite() {
            return None;
        }
        {
            let mut last = this.inner.last_progress.lock().unwrap_or_else(|e| e.into_inner());
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
        let this = self.live();
        let link = this.inner.link.as_ref()?;
        if this.inner.finished.load(Ordering::Acquire) || !link.log.allows(level) {
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
        self.live().inner.link.as_ref().is_some_and(|link| link.out.try_send(line))
    }

    async fn send(&self, line: Vec<u8>) -> bool {
        match &self.live().inner.link {
            Some(link) => link.out.send(line).await,
            None => false,
        }
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
