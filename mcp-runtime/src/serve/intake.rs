//! How a connection takes each incoming message, in arrival order.
//!
//! A connection starts with no era. A request whose `params._meta` carries a protocol version
//! is served statelessly (2026-07-28) whatever came before; an `initialize` without it starts
//! the handshake for this connection. The session decides that era and the [`Negotiated`]
//! view a request is served under; the [route table](crate::serve::routes) decides
//! everything about the method, and the executor runs the work: a request is built once here
//! and handed to its method (or to the executor) once.

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::context::outlet::Outgoing;
use crate::middleware::Transport;
use crate::protocol::{
    ErrorObject, Feature, Incoming, Notification, Request as Message, RequestId, Shape, classify, excerpt, shape_of,
};
use crate::serve::admit::{Reading, admit, skips_layers};
use crate::serve::arrival::{Arrival, Via};
use crate::serve::executor::collect_batch;
use crate::serve::layered::{Back, Hold};
use crate::serve::reply::{Reply, ReplyTo, Started};
use crate::serve::request::{Logging, Request, is_stateless, meta_of};
use crate::serve::routes::{Handler, route};
use crate::serve::session::{Era, Session};

impl Session {
    /// Handles one incoming message (one line of stdio, one HTTP body); `Some` is a response
    /// for the transport to queue (it holds its slot until then).
    pub(crate) fn on_message(&mut self, text: &str, arrival: Arrival) -> Option<Reply> {
        let started = match shape_of(text) {
            Shape::Array => self.on_batch(text, arrival),
            _ => self.on_single(classify(text), arrival),
        };
        started.into_reply()
    }

    fn on_single(&mut self, message: Incoming<'_>, arrival: Arrival) -> Started {
        match message {
            Incoming::Request(request) => self.on_request(request, arrival),
            Incoming::Notification(notification) => {
                self.on_notification(notification, arrival.via);
                Started::Later
            }
            Incoming::Response { id, result, error } => {
                self.on_response(id, result, error, arrival.via);
                Started::Later
            }
            Incoming::BadNotification(reason) => {
                tracing::debug!(reason, "ignoring a malformed notification");
                Started::Later
            }
            Incoming::Invalid(id, error) => arrival.reply_to.now(Outgoing::error(id.as_ref(), &error), None),
        }
    }

    fn on_request(&mut self, message: Message<'_>, arrival: Arrival) -> Started {
        let Arrival { reply_to, extras, .. } = arrival;
        let meta = meta_of(message.params);
        let stateless = is_stateless(meta);
        let negotiated = match (meta, &self.era) {
            (Some(meta), _) if stateless => match self.stateless_views.view(meta) {
                Ok((negotiated, read_now)) => {
                    if read_now {
                        self.core.met(&negotiated, self.transport);
                    }
                    negotiated
                }
                Err(e) => return reply_to.now(Outgoing::error(Some(&message.id), &e), None),
            },
            (_, Era::Fresh) => Arc::clone(&self.fresh),
            (_, Era::Handshake { negotiated, .. }) => Arc::clone(negotiated),
        };
        let logging = match (self.core.config.client_logging, stateless) {
            (false, _) => Logging::Disabled,
            (true, true) => Logging::PerRequest,
            (true, false) => Logging::Connection(Arc::clone(&self.log_level)),
        };
        let fresh = !stateless && matches!(self.era, Era::Fresh);
        let states = self.states.clone();
        let reading = Reading { negotiated, fresh, meta, logging, extras, reply_to, states };
        let (request, handler) = match admit(&self.core, message, reading) {
            Ok(admitted) => admitted,
            Err((error, reply_to)) => return reply_to.now(error, None),
        };
        match self.layered.is_some() && !skips_layers(&request) {
            true => self.through_layers(request, handler),
            false => self.run(request, handler),
        }
    }

    /// Sends a request into the layers; it comes back through [`on_back`](Self::on_back).
    fn through_layers(&mut self, request: Request<'_>, handler: Handler) -> Started {
        let out = self.executor.output().clone();
        let Some(layered) = self.layered.as_mut() else { return self.run(request, handler) };
        let id = request.id.clone();
        let stateless = request.revision().supports(Feature::Stateless);
        let hold = Hold {
            // Only a session's lifecycle orders what comes after it (2026-07-28 requests stand alone).
            blocking: matches!(handler, Handler::Lifecycle(_)) && !stateless,
            counted: !(stateless && self.transport == Transport::Http),
        };
        let here = self.executor.here_parts();
        let (task, stopped) = layered.enter(request, handler.method(), hold, self.transport, out, here);
        self.executor.track(id, task, stopped);
        Started::Later
    }

    /// What a request in the layers told the loop.
    pub(crate) fn on_back(&mut self, back: Back) -> Started {
        let Some(layered) = self.layered.as_mut() else { return Started::Later };
        match back {
            Back::Cancel(id) => drop(self.executor.cancel(&id)),
            Back::Admit(request, hold) => {
                layered.done_with(hold);
                // Its row, found again (a lifecycle method's: the layers cannot carry the
                // connection's own handlers).
                if let Some(route) = route(request.method, &self.core.capabilities) {
                    return self.run(*request, route.handler);
                }
            }
        }
        Started::Later
    }

    /// Runs a request's method: on the reading loop, or through the executor.
    pub(crate) fn run(&mut self, request: Request<'_>, handler: Handler) -> Started {
        let span = || tracing::debug_span!("request", method = request.method, id = %request.id, revision = %request.negotiated.revision);
        match handler {
            Handler::Lifecycle(handle) => {
                let line = span().in_scope(|| handle(self, &request));
                request.reply_to.now(line, None)
            }
            Handler::Inline(handle) => {
                let line = span().in_scope(|| handle(&request));
                request.reply_to.now(line, None)
            }
            Handler::Work(work) => self.executor.submit(request, work),
            Handler::Notification(_) => Started::Later,
        }
    }

    /// The client answered one of the server's questions (handshake revisions).
    fn on_response(&mut self, id: Option<RequestId>, result: Option<&RawValue>, error: Option<&RawValue>, via: Via) {
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
            // Another instance serving the session may have asked it.
            let (member, value) = match (result, error) {
                (_, Some(error)) => ("error", error.get()),
                (Some(result), None) => ("result", result.get()),
                (None, None) => return,
            };
            let id = serde_json::to_string(&id).unwrap_or_default();
            self.forward(via, format!(r#"{{"jsonrpc":"2.0","id":{id},"{member}":{value}}}"#));
            tracing::debug!(%id, "a response to no question this server is waiting on");
        }
    }

    fn on_notification(&mut self, notification: Notification<'_>, via: Via) {
        match route(&notification.method, &self.core.capabilities).map(|route| route.handler) {
            Some(Handler::Notification(handle)) => handle(self, notification.params, via),
            _ => tracing::trace!(method = %excerpt(&notification.method), "notification ignored"),
        }
    }

    /// A JSON-RPC batch: only a 2025-03-26 connection accepts them. Every member runs through
    /// the executor like a single message (in-flight bound, cancellation); the answer is one
    /// array, sent once every member answered.
    fn on_batch(&mut self, text: &str, arrival: Arrival) -> Started {
        let Arrival { reply_to, extras, via } = arrival;
        let batching =
            matches!(&self.era, Era::Handshake { negotiated, .. } if negotiated.revision.supports(Feature::Batching));
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return reply_to.now(Outgoing::error(None, &ErrorObject::parse_error(e)), None);
            }
            Err(e) => {
                let error = ErrorObject::invalid_request(format!("Invalid batch: {e}"));
                return reply_to.now(Outgoing::error(None, &error), None);
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
            return reply_to.now(Outgoing::error(None, &ErrorObject::invalid_request(refusal)), None);
        }
        let batch = collect_batch(reply_to.outlet(self.executor.output()), self.executor.drain_guard());
        for item in items {
            let member = Arrival { reply_to: ReplyTo::Batch(batch.clone()), extras: extras.clone(), via };
            let _none = match (shape_of(item.get()), classify(item.get())) {
                (_, Incoming::Request(request)) if is_stateless(meta_of(request.params)) => member.reply_to.now(
                    Outgoing::error(
                        Some(&request.id),
                        &ErrorObject::invalid_request(
                            "Invalid request: 2026-07-28 requests (with `_meta` protocolVersion) cannot be batched",
                        ),
                    ),
                    None,
                ),
                (Shape::Object, message) => self.on_single(message, member),
                _ => member.reply_to.now(
                    Outgoing::error(
                        None,
                        &ErrorObject::invalid_request("Invalid request: a batch element must be an object"),
                    ),
                    None,
                ),
            };
        }
        Started::Later
    }
}
