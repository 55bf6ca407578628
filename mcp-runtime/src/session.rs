//! One connection's lifecycle: which era it is in, and the handling of each incoming message
//! in arrival order.
//!
//! A connection starts with no era. A request whose `params._meta` carries a protocol version
//! is served statelessly (2026-07-28) whatever came before; an `initialize` without it starts
//! the handshake for this connection. Lifecycle messages are handled here, synchronously and in
//! order, so `notifications/initialized` cannot race the request after it; everything else is
//! handed to [`dispatch`](crate::dispatch) and may run concurrently.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::context::Negotiated;
use crate::dispatch::{self, Outcome};
use crate::handle::Event;
use crate::in_flight::InFlight;
use crate::protocol::{
    ErrorObject, Feature, Incoming, InitializeParams, InitializeResult, Notification, Request, RequestId, Revision,
    Shape, classify, error_line, shape_of, success_line, to_raw,
};
use crate::server::ServerCore;
use crate::subscriptions::Subscriptions;

/// Where a connection is in its life.
#[derive(Debug)]
enum State {
    /// Nothing negotiated yet.
    Fresh,
    /// `initialize` was answered.
    Handshake {
        negotiated: Arc<Negotiated>,
        /// `notifications/initialized` arrived: server-initiated traffic may flow.
        client_ready: bool,
    },
}

/// A connection's state and the server it serves.
#[derive(Debug)]
pub(crate) struct Session {
    core: Arc<ServerCore>,
    state: State,
    subscriptions: Subscriptions,
    in_flight: Arc<InFlight>,
}

/// The `_meta` keys a 2026-07-28 request carries.
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
    if !params.get().contains(META_PROTOCOL_VERSION) {
        return false;
    }
    serde_json::from_str::<ParamsHead<'_>>(params.get())
        .ok()
        .and_then(|head| head.meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}

impl Session {
    pub(crate) fn new(core: Arc<ServerCore>) -> Self {
        Session { core, state: State::Fresh, subscriptions: Subscriptions::default(), in_flight: Arc::default() }
    }

    /// Handles one incoming message (one line of stdio, one HTTP body).
    pub(crate) fn on_message(&mut self, text: &str) -> Outcome {
        match shape_of(text) {
            Shape::Array => self.on_batch(text),
            _ => self.on_single(classify(text)),
        }
    }

    fn on_single(&mut self, message: Incoming<'_>) -> Outcome {
        match message {
            Incoming::Request(request) => self.on_request(request),
            Incoming::Notification(notification) => {
                self.on_notification(notification);
                Outcome::Silent
            }
            Incoming::Response { id } => {
                tracing::debug!(%id, "ignoring a response to a request this server did not send");
                Outcome::Silent
            }
            Incoming::Invalid(id, error) => Outcome::Reply(error_line(id.as_ref(), &error)),
        }
    }

    /// The requests this connection runs (the transport starts them there).
    pub(crate) fn in_flight(&self) -> &Arc<InFlight> {
        &self.in_flight
    }

    /// The notifications an event becomes on this connection.
    pub(crate) fn on_event(&self, event: &Event) -> Vec<String> {
        let ready = matches!(self.state, State::Handshake { client_ready: true, .. });
        self.subscriptions.on_event(&self.core, event, ready)
    }

    /// The connection is ending: the responses that close what is still open.
    pub(crate) fn close(&mut self) -> Vec<String> {
        self.subscriptions.close(&self.core)
    }

    fn on_request(&mut self, request: Request<'_>) -> Outcome {
        if is_stateless(request.params) {
            let negotiated = match dispatch::stateless_view(&request) {
                Ok(negotiated) => negotiated,
                Err(e) => return reply_error(&request.id, e),
            };
            if request.method == "subscriptions/listen" {
                let params = request.params.map_or("{}", RawValue::get);
                return match self.subscriptions.listen(&self.core, &request.id, params) {
                    Ok(ack) => Outcome::Reply(ack),
                    Err(e) => reply_error(&request.id, e),
                };
            }
            return dispatch::route(&self.core, &negotiated, request);
        }
        match (&self.state, request.method.as_ref()) {
            (State::Fresh, "initialize") => self.initialize(&request),
            (State::Handshake { .. }, "initialize") => reply_error(
                &request.id,
                ErrorObject::invalid_request("Invalid request: `initialize` was already received on this connection"),
            ),
            (_, "ping") => reply_empty(&request.id),
            // Era probes: a client may ask before (or instead of) `initialize`.
            (_, "server/discover") => dispatch::discover(&self.core, &request.id, Revision::LATEST),
            (State::Fresh, _) => reply_error(
                &request.id,
                ErrorObject::invalid_params(format!(
                    "`{}` arrived before `initialize`: send `initialize` first, or put \
                     `io.modelcontextprotocol/protocolVersion` and \
                     `io.modelcontextprotocol/clientCapabilities` in `params._meta` (2026-07-28)",
                    request.method
                )),
            ),
            (State::Handshake { .. }, "resources/subscribe" | "resources/unsubscribe") => self.subscription(&request),
            (State::Handshake { negotiated, .. }, _) => dispatch::route(&self.core, negotiated, request),
        }
    }

    /// `resources/subscribe` and `resources/unsubscribe` (handshake revisions).
    fn subscription(&mut self, request: &Request<'_>) -> Outcome {
        let declared = self.core.capabilities.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
        if !declared {
            return reply_error(&request.id, ErrorObject::method_not_found(&request.method));
        }
        #[derive(Deserialize)]
        struct UriParams {
            uri: String,
        }
        let params: UriParams = match request.params.map(|p| serde_json::from_str(p.get())) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                return reply_error(&request.id, ErrorObject::invalid_params(format!("Invalid params: {e}")));
            }
            None => {
                return reply_error(
                    &request.id,
                    ErrorObject::invalid_params("Missing params with the resource's `uri`"),
                );
            }
        };
        if request.method == "resources/subscribe" {
            if let Err(e) = self.subscriptions.subscribe(&self.core, &params.uri) {
                return reply_error(&request.id, e);
            }
        } else {
            self.subscriptions.unsubscribe(&params.uri);
        }
        reply_empty(&request.id)
    }

    fn initialize(&mut self, request: &Request<'_>) -> Outcome {
        let params: InitializeParams = match request.params.map(|p| serde_json::from_str(p.get())) {
            Some(Ok(params)) => params,
            Some(Err(e)) => {
                return reply_error(
                    &request.id,
                    ErrorObject::invalid_params(format!("Invalid `initialize` params: {e}")),
                );
            }
            None => {
                return reply_error(
                    &request.id,
                    ErrorObject::invalid_params(
                        "`initialize` needs params with `protocolVersion`, `capabilities` and `clientInfo`",
                    ),
                );
            }
        };
        let revision = Revision::parse(&params.protocol_version)
            .filter(|r| r.supports(Feature::Handshake))
            .unwrap_or(Revision::LATEST_HANDSHAKE);
        tracing::debug!(
            requested = %params.protocol_version,
            negotiated = %revision,
            client = ?params.client_info.as_ref().map(|c| &c.name),
            "initialize"
        );
        let result = InitializeResult {
            protocol_version: revision.as_str(),
            capabilities: self.core.capabilities.for_revision(revision),
            server_info: self.core.info.for_revision(revision),
            instructions: self.core.instructions.clone(),
        };
        self.state = State::Handshake {
            negotiated: Arc::new(Negotiated {
                revision,
                client_capabilities: params.capabilities,
                client_info: params.client_info,
            }),
            client_ready: false,
        };
        match to_raw(&result) {
            Ok(raw) => Outcome::Reply(success_line(&request.id, raw.get())),
            Err(e) => reply_error(&request.id, e),
        }
    }

    fn on_notification(&mut self, notification: Notification<'_>) {
        match (&mut self.state, notification.method.as_ref()) {
            (State::Handshake { client_ready, .. }, "notifications/initialized") => *client_ready = true,
            (_, "notifications/cancelled") => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: RequestId,
                }
                if let Some(Ok(cancelled)) = notification.params.map(|p| serde_json::from_str::<Cancelled>(p.get()))
                    && !self.subscriptions.cancel(&cancelled.request_id)
                {
                    self.in_flight.cancel(&cancelled.request_id);
                }
            }
            (_, method) => tracing::trace!(method, "notification ignored"),
        }
    }

    /// A JSON-RPC batch: only a 2025-03-26 connection accepts them.
    fn on_batch(&mut self, text: &str) -> Outcome {
        let batching = matches!(&self.state, State::Handshake { negotiated, .. } if negotiated.revision.supports(Feature::Batching));
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) if e.is_syntax() || e.is_eof() => {
                return Outcome::Reply(error_line(None, &ErrorObject::parse_error(e)));
            }
            Err(e) => {
                return Outcome::Reply(error_line(None, &ErrorObject::invalid_request(format!("Invalid batch: {e}"))));
            }
        };
        if !batching {
            return Outcome::Reply(error_line(
                None,
                &ErrorObject::invalid_request(
                    "Invalid request: batches are accepted only under protocol revision 2025-03-26",
                ),
            ));
        }
        if items.is_empty() {
            return Outcome::Reply(error_line(None, &ErrorObject::invalid_request("Invalid request: empty batch")));
        }
        let outcomes: Vec<Outcome> = items
            .into_iter()
            .map(|item| match (shape_of(item.get()), classify(item.get())) {
                (_, Incoming::Request(request)) if is_stateless(request.params) => Outcome::Reply(error_line(
                    Some(&request.id),
                    &ErrorObject::invalid_request(
                        "Invalid request: 2026-07-28 requests (with `_meta` protocolVersion) cannot be batched",
                    ),
                )),
                (Shape::Object, message) => self.on_single(message),
                _ => Outcome::Reply(error_line(
                    None,
                    &ErrorObject::invalid_request("Invalid request: a batch element must be an object"),
                )),
            })
            .collect();
        Outcome::batch(outcomes)
    }
}

fn reply_error(id: &RequestId, error: ErrorObject) -> Outcome {
    Outcome::Reply(error_line(Some(id), &error))
}

fn reply_empty(id: &RequestId) -> Outcome {
    Outcome::Reply(success_line(id, "{}"))
}
