//! One connection: which era it is in, and each incoming message taken in arrival order.
//!
//! A connection starts with no era. A request whose `params._meta` carries a protocol version
//! is served statelessly (2026-07-28) whatever came before; an `initialize` without it starts
//! the handshake for this connection. The session decides that era and the [`Negotiated`]
//! view a request is served under; the [route table](crate::serve::routes) decides
//! everything about the method, and the [`Executor`] runs the work.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::context::Negotiated;
use crate::context::{CancelToken, RequestExtras};
use crate::protocol::{
    ErrorObject, Feature, Incoming, LogLevel, Notification, Request, RequestId, Revision, Shape, classify, error_line,
    excerpt, shape_of,
};
use crate::serve::executor::{Executor, Job, Output, Reply, collect_batch};
use crate::serve::request::{Call, Logging, RequestMeta, stateless_view};
use crate::serve::routes::{Handler, Served};
use crate::serve::subscriptions::{Routed, Subscriptions};
use crate::server::builder::ServerCore;
use crate::server::handle::Event;

/// Where a connection is in its life.
#[derive(Debug)]
pub(crate) enum Era {
    /// Nothing negotiated yet.
    Fresh,
    /// `initialize` was answered.
    Handshake {
        negotiated: Arc<Negotiated>,
        /// `notifications/initialized` arrived: server-initiated traffic may flow.
        client_ready: bool,
    },
}

/// A connection's state, and the executor that runs its requests.
#[derive(Debug)]
pub(crate) struct Session {
    core: Arc<ServerCore>,
    pub(crate) era: Era,
    pub(crate) subscriptions: Subscriptions,
    pub(crate) executor: Executor,
    /// The view of the methods served before `initialize` (`ping`).
    fresh: Arc<Negotiated>,
    /// The least severe log message the client wants (`logging/setLevel`; handshake only).
    pub(crate) log_level: Arc<AtomicU8>,
    /// What the transport knows of the message being handled (HTTP headers, identity).
    extras: Option<Arc<RequestExtras>>,
    /// Counts changes to what [`state`](Self::state) returns, so that a transport keeping
    /// sessions elsewhere saves only when something changed.
    pub(crate) changes: u64,
}

/// What a handshake-era session is, apart from its loop and what runs in it: enough to serve
/// the session again, on another loop or in another process.
#[derive(Debug, Clone)]
pub(crate) struct SessionState {
    pub(crate) negotiated: Arc<Negotiated>,
    pub(crate) log_level: LogLevel,
    /// The URIs of `resources/subscribe`.
    pub(crate) subscriptions: Vec<String>,
}

/// The `_meta` key a 2026-07-28 request carries.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

#[derive(Deserialize)]
struct ParamsHead<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaHead<'a>>,
}

#[derive(Deserialize)]
struct MetaHead<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a RawValue>,
}

/// Whether a request carries the 2026-07-28 `_meta` that makes it stateless.
fn is_stateless(params: Option<&RawValue>) -> bool {
    let Some(params) = params else { return false };
    if !crate::protocol::mentions!(params.get(), META_PROTOCOL_VERSION) {
        return false;
    }
    serde_json::from_str::<ParamsHead<'_>>(params.get())
        .ok()
        .and_then(|head| head.meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}

impl Session {
    /// A new connection whose responses go to `out`.
    pub(crate) fn new(core: Arc<ServerCore>, out: mpsc::Sender<Vec<u8>>, listen_limit: usize) -> Self {
        let fresh = Arc::new(Negotiated {
            revision: Revision::LATEST_HANDSHAKE,
            client_capabilities: Default::default(),
            client_info: None,
        });
        let executor = Executor::new(Arc::clone(&core), out);
        let log_level = Arc::new(AtomicU8::new(LogLevel::Info.index()));
        Session {
            core,
            era: Era::Fresh,
            subscriptions: Subscriptions::with_limit(listen_limit),
            executor,
            fresh,
            log_level,
            extras: None,
            changes: 0,
        }
    }

    /// What this session is, once `initialize` was answered.
    pub(crate) fn state(&self) -> Option<SessionState> {
        let Era::Handshake { negotiated, .. } = &self.era else { return None };
        let level = self.log_level.load(std::sync::atomic::Ordering::Relaxed);
        Some(SessionState {
            negotiated: Arc::clone(negotiated),
            log_level: LogLevel::from_index(level).unwrap_or(LogLevel::Info),
            subscriptions: self.subscriptions.uris().map(str::to_owned).collect(),
        })
    }

    /// Serves a session that was started elsewhere as this one. Its client sent
    /// `notifications/initialized` before anything that reached here: it is ready.
    pub(crate) fn restore(&mut self, state: SessionState) {
        self.era = Era::Handshake { negotiated: state.negotiated, client_ready: true };
        self.log_level.store(state.log_level.index(), std::sync::atomic::Ordering::Relaxed);
        self.subscriptions.restore(state.subscriptions);
    }

    /// Handles one incoming message (one line of stdio, one HTTP body) whose answers go to
    /// `output`; `Some` is a response for the transport to queue (it holds its slot until
    /// then).
    pub(crate) fn on_message(&mut self, text: &str, output: Output) -> Option<Reply> {
        match shape_of(text) {
            Shape::Array => self.on_batch(text, output),
            _ => self.on_single(classify(text), output),
        }
    }

    /// Like [`on_message`](Self::on_message), for a message the transport knows more of.
    pub(crate) fn on_message_with(
        &mut self,
        text: &str,
        output: Output,
        extras: Option<Arc<RequestExtras>>,
    ) -> Option<Reply> {
        self.extras = extras;
        let reply = self.on_message(text, output);
        self.extras = None;
        reply
    }

    /// What this connection sends after missing events it cannot name (see
    /// [`Subscriptions::on_lag`]).
    pub(crate) fn on_lag(&self) -> Vec<Routed> {
        let ready = matches!(self.era, Era::Handshake { client_ready: true, .. });
        self.subscriptions.on_lag(&self.core, ready)
    }

    /// The notifications an event becomes on this connection.
    pub(crate) fn on_event(&self, event: &Event) -> Vec<Routed> {
        let ready = matches!(self.era, Era::Handshake { client_ready: true, .. });
        self.subscriptions.on_event(&self.core, event, ready)
    }

    /// The connection is ending: the responses that close what is still open. Questions still
    /// waiting for the client end with `AskError::Disconnected`.
    pub(crate) fn close(&mut self) -> Vec<Routed> {
        self.executor.pending().close();
        self.subscriptions.close(&self.core)
    }

    fn on_single(&mut self, message: Incoming<'_>, output: Output) -> Option<Reply> {
        match message {
            Incoming::Request(request) => self.on_request(request, output),
            Incoming::Notification(notification) => {
                self.on_notification(notification);
                None
            }
            Incoming::Response { id, result, error } => {
                self.on_response(id, result, error);
                None
            }
            Incoming::BadNotification(reason) => {
                tracing::debug!(reason, "ignoring a malformed notification");
                None
            }
            Incoming::Invalid(id, error) => answer(output, error_line(id.as_ref(), &error)),
        }
    }

    fn on_request(&mut self, request: Request<'_>, output: Output) -> Option<Reply> {
        let stateless = is_stateless(request.params);
        let negotiated = match (stateless, &self.era) {
            (true, _) => match stateless_view(request.params) {
                Ok(negotiated) => negotiated,
                Err(e) => return answer(output, error_line(Some(&request.id), &e)),
            },
            (false, Era::Fresh) => Arc::clone(&self.fresh),
            (false, Era::Handshake { negotiated, .. }) => Arc::clone(negotiated),
        };
        let fresh = !stateless && matches!(self.era, Era::Fresh);
        let route = self.core.routes.get(&request.method).copied();
        let served = route.filter(|route| {
            !matches!(route.handler, Handler::Notification(_))
                && if fresh { route.before_initialize } else { route.served.includes(negotiated.revision) }
        });
        let Some(route) = served else {
            let error = unserved(&request.method, (!fresh).then_some(negotiated.revision), route.map(|r| r.served));
            return answer(output, error_line(Some(&request.id), &error));
        };
        let logging = match (self.core.config.client_logging, stateless) {
            (false, _) => Logging::Disabled,
            (true, true) => Logging::PerRequest,
            (true, false) => Logging::Connection(Arc::clone(&self.log_level)),
        };
        let meta = match RequestMeta::read(request.params, &logging) {
            Ok(meta) => meta,
            Err(e) => return answer(output, error_line(Some(&request.id), &e)),
        };
        let core = Arc::clone(&self.core);
        let call = Call {
            core: &core,
            negotiated: &negotiated,
            id: &request.id,
            method: route.method,
            params: request.params,
            meta: RequestMeta::NONE,
            cancel: CancelToken::default(),
            link: None,
            stream: match &output {
                Output::Stream(stream) => Some(stream.clone()),
                _ => None,
            },
            extras: self.extras.clone(),
        };
        let span = || tracing::debug_span!("request", method = route.method, id = %request.id, revision = %negotiated.revision);
        match route.handler {
            Handler::Lifecycle(handle) => {
                let line = span().in_scope(|| handle(self, &call));
                answer(output, line)
            }
            Handler::Inline(handle) => answer(output, span().in_scope(|| handle(&call))),
            Handler::Work(work) => {
                let job = Job {
                    meta,
                    extras: self.extras.clone(),
                    negotiated: Arc::clone(&negotiated),
                    id: request.id.clone(),
                    method: route.method,
                    params: request.params,
                    work,
                    output,
                };
                self.executor.submit(job).0
            }
            Handler::Notification(_) => None,
        }
    }

    /// The client answered one of the server's questions (handshake revisions).
    fn on_response(&mut self, id: Option<RequestId>, result: Option<&RawValue>, error: Option<&RawValue>) {
        let Some(id) = id else {
            tracing::debug!("ignoring a response without a usable id");
            return;
        };
        let answer = match (result, error) {
            (Some(result), None) => serde_json::from_str::<serde_json::Value>(result.get())
                .map_err(|e| ErrorObject::internal(format!("unreadable result: {e}"))),
            (_, Some(error)) => Err(serde_json::from_str::<ErrorObject>(error.get())
                .unwrap_or_else(|e| ErrorObject::internal(format!("unreadable error: {e}")))),
            (None, None) => Err(ErrorObject::internal("a response with neither result nor error")),
        };
        if !self.executor.pending().answer(&id, answer) {
            tracing::debug!(%id, "ignoring a response to no question this server is waiting on");
        }
    }

    fn on_notification(&mut self, notification: Notification<'_>) {
        match self.core.routes.get(&notification.method).map(|route| route.handler) {
            Some(Handler::Notification(handle)) => handle(self, notification.params),
            _ => tracing::trace!(method = %excerpt(&notification.method), "notification ignored"),
        }
    }

    /// A JSON-RPC batch: only a 2025-03-26 connection accepts them. Every member runs through
    /// the executor like a single message (in-flight bound, cancellation); the answer is one
    /// array, sent once every member answered.
    fn on_batch(&mut self, text: &str, output: Output) -> Option<Reply> {
        let batching =
            matches!(&self.era, Era::Handshake { negotiated, .. } if negotiated.revision.supports(Feature::Batching));
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return answer(output, error_line(None, &ErrorObject::parse_error(e)));
            }
            Err(e) => {
                let error = ErrorObject::invalid_request(format!("Invalid batch: {e}"));
                return answer(output, error_line(None, &error));
            }
        };
        let refusal = if !batching {
            Some("Invalid request: batches are accepted only under protocol revision 2025-03-26")
        } else if items.is_empty() {
            Some("Invalid request: empty batch")
        } else {
            None
        };
        if let Some(refusal) = refusal {
            return answer(output, error_line(None, &ErrorObject::invalid_request(refusal)));
        }
        let target = match output {
            Output::Stream(stream) => stream,
            _ => self.executor.output().clone(),
        };
        let batch = collect_batch(target, self.executor.drain_guard());
        for item in items {
            let member = Output::Batch(batch.clone());
            let _none = match (shape_of(item.get()), classify(item.get())) {
                (_, Incoming::Request(request)) if is_stateless(request.params) => answer(
                    member,
                    error_line(
                        Some(&request.id),
                        &ErrorObject::invalid_request(
                            "Invalid request: 2026-07-28 requests (with `_meta` protocolVersion) cannot be batched",
                        ),
                    ),
                ),
                (Shape::Object, message) => self.on_single(message, member),
                _ => answer(
                    member,
                    error_line(
                        None,
                        &ErrorObject::invalid_request("Invalid request: a batch element must be an object"),
                    ),
                ),
            };
        }
        None
    }
}

/// Sends an immediate answer where it goes: back to the transport, or into a batch.
fn answer(output: Output, line: Vec<u8>) -> Option<Reply> {
    match output {
        Output::Connection => Some(Reply::now(line)),
        Output::Stream(stream) => Some(Reply::to_stream(line, stream)),
        Output::Batch(batch) => {
            let _ = batch.send(line);
            None
        }
    }
}

/// The error for a method this connection does not serve now: `revision` is `None` before
/// `initialize`; `route` says which era serves the method, if any does.
fn unserved(method: &str, revision: Option<Revision>, route: Option<Served>) -> ErrorObject {
    match (revision, route) {
        // A 2026-07-28 method, before any `initialize`, without the `_meta` that makes a request
        // 2026-07-28 (a handshake session does not know the method at all).
        (None, Some(Served::Stateless)) => ErrorObject::invalid_params(format!(
            "`{}` is a 2026-07-28 request: its `params._meta` needs \
             `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`",
            excerpt(method)
        )),
        (None, _) => ErrorObject::invalid_params(format!(
            "`{}` arrived before `initialize`: send `initialize` first, or put \
             `io.modelcontextprotocol/protocolVersion` and \
             `io.modelcontextprotocol/clientCapabilities` in `params._meta` (2026-07-28)",
            excerpt(method)
        )),
        (Some(revision), Some(_)) => ErrorObject::method_not_found_in(method, revision),
        (Some(_), None) => ErrorObject::method_not_found(method),
    }
}
