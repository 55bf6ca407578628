//! The methods that change a connection's state or describe the server: `initialize`,
//! `ping`, `server/discover`, the subscriptions of both eras, and the notifications a client
//! sends.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::context::Negotiated;
use crate::context::outlet::Outgoing;
use crate::protocol::{ErrorObject, Feature, InitializeParams, InitializeResult, LogLevel, RequestId, Revision};
use crate::serve::arrival::Via;
use crate::serve::reply::{Empty, ReplyTo};
use crate::serve::request::Request;
use crate::serve::session::{Era, Session};
use crate::serve::subscriptions::Opening;

pub(crate) fn initialize(session: &mut Session, request: &Request<'_>) -> Outgoing {
    let refuse = |error: ErrorObject| {
        tracing::warn!(
            transport = session.transport.as_str(),
            reason = %error.message,
            "an `initialize` was refused"
        );
        request.error(&error)
    };
    if matches!(session.era, Era::Handshake { .. }) {
        return refuse(ErrorObject::invalid_request(
            "Invalid request: `initialize` was already received on this connection",
        ));
    }
    let params: InitializeParams = match request.raw_params() {
        Some(raw) => match serde_json::from_str(raw.get()) {
            Ok(params) => params,
            Err(e) => return refuse(ErrorObject::invalid_params(format!("Invalid `initialize` params: {e}"))),
        },
        None => {
            return refuse(ErrorObject::invalid_params(
                "`initialize` needs params with `protocolVersion`, `capabilities` and `clientInfo`",
            ));
        }
    };
    let requested = crate::protocol::excerpt(&params.protocol_version);
    let asked = Revision::parse(&params.protocol_version).filter(|r| r.supports(Feature::Handshake));
    let revision = asked.unwrap_or(Revision::LATEST_HANDSHAKE);
    if asked.is_none() {
        tracing::warn!(
            requested = %requested,
            offered = %revision,
            "a client asked for a protocol revision this server does not support: offering {revision}"
        );
    }
    let client = params.client_info.as_ref();
    tracing::info!(
        client = client.map(|c| c.name.as_str()),
        client_version = client.map(|c| c.version.as_str()),
        requested = %requested,
        served = %revision,
        transport = session.transport.as_str(),
        session = session.session_id.as_deref(),
        "a client started a session ({revision})"
    );
    let core = &request.core;
    let result = InitializeResult {
        protocol_version: revision.as_str(),
        capabilities: core.capabilities.for_revision(revision),
        server_info: core.info.for_revision(revision),
        instructions: core.instructions.clone(),
    };
    session.era = Era::Handshake {
        negotiated: Arc::new(Negotiated {
            revision,
            client_capabilities: params.capabilities,
            client_info: params.client_info,
        }),
        client_ready: false,
    };
    session.changes += 1;
    crate::serve::reply::result_line(core, &request.id, revision, None, result)
}

pub(crate) fn ping(request: &Request<'_>) -> Outgoing {
    request.respond(None, Empty {})
}

/// The `server/discover` result: a 2026-07-28 result, whichever era asks.
pub(crate) fn discover(request: &Request<'_>) -> Outgoing {
    let core = &request.core;
    let revision = Revision::LATEST;
    let mut result = Map::new();
    result
        .insert("supportedVersions".into(), Value::from(Revision::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>()));
    result.insert(
        "capabilities".into(),
        serde_json::to_value(core.capabilities.for_revision(revision)).unwrap_or(Value::Null),
    );
    if let Some(instructions) = &core.instructions {
        result.insert("instructions".into(), Value::from(instructions.as_str()));
    }
    crate::serve::reply::result_line(core, &request.id, revision, request.configured_cache(), result)
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

/// `resources/subscribe` (handshake revisions).
pub(crate) fn subscribe(session: &mut Session, request: &Request<'_>) -> Outgoing {
    let result = request.params::<UriParams>("resources/subscribe").and_then(|params| {
        if !crate::serve::methods::resources::shows_resource(request, &request.core.registry(), &params.uri) {
            // As for a resource that does not exist.
            let uri = crate::protocol::excerpt(&params.uri);
            return Err(ErrorObject::new(
                crate::protocol::code::RESOURCE_NOT_FOUND,
                format!("Resource not found: `{uri}`"),
            )
            .with_data(serde_json::json!({ "uri": uri })));
        }
        session.subscriptions.subscribe(&request.core, &params.uri)
    });
    match result {
        Ok(()) => {
            session.changes += 1;
            request.respond(None, Empty {})
        }
        Err(e) => request.error(&e),
    }
}

/// `resources/unsubscribe` (handshake revisions): always succeeds for a valid request.
pub(crate) fn unsubscribe(session: &mut Session, request: &Request<'_>) -> Outgoing {
    match request.params::<UriParams>("resources/unsubscribe") {
        Ok(params) => {
            session.subscriptions.unsubscribe(&params.uri);
            session.changes += 1;
            request.respond(None, Empty {})
        }
        Err(e) => request.error(&e),
    }
}

/// `subscriptions/listen` (2026-07-28): opens a stream; its acknowledgement goes out now and
/// its result when the stream ends.
pub(crate) fn listen(session: &mut Session, request: &Request<'_>) -> Outgoing {
    let params = request.raw_params().map_or("{}", RawValue::get);
    let stream = match &request.reply_to {
        ReplyTo::Stream(stream) => Some(stream.clone()),
        ReplyTo::Connection | ReplyTo::Batch(_) | ReplyTo::Caller => None,
    };
    let opening = Opening {
        id: &request.id,
        params,
        stream,
        caller: request.principal(),
        tasks_opted_in: crate::serve::methods::tasks::opted_in(&request.negotiated),
    };
    match session.subscriptions.listen(&request.core, opening) {
        Ok(ack) => Outgoing::interim(ack),
        Err(e) => request.error(&e),
    }
}

/// `logging/setLevel` (handshake revisions): the least severe log message the client wants,
/// for this connection's requests from now on (those running included).
pub(crate) fn set_level(session: &mut Session, request: &Request<'_>) -> Outgoing {
    #[derive(Deserialize)]
    struct SetLevel {
        level: LogLevel,
    }
    match request.params::<SetLevel>("logging/setLevel") {
        Ok(SetLevel { level }) => {
            session.log_level.store(level.index(), std::sync::atomic::Ordering::Relaxed);
            session.changes += 1;
            request.respond(None, Empty {})
        }
        Err(e) => request.error(&e),
    }
}

/// `notifications/initialized`: server-initiated traffic may flow.
pub(crate) fn initialized(session: &mut Session, _params: Option<&RawValue>, _via: Via) {
    if let Era::Handshake { client_ready, .. } = &mut session.era {
        *client_ready = true;
    }
}

/// `notifications/cancelled`: ends a listen stream, or the request with that id.
pub(crate) fn cancelled(session: &mut Session, params: Option<&RawValue>, via: Via) {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Cancelled {
        request_id: RequestId,
    }
    let Some(Ok(cancelled)) = params.map(|p| serde_json::from_str::<Cancelled>(p.get())) else {
        tracing::debug!("a cancellation without a readable `requestId` was ignored");
        return;
    };
    if !session.subscriptions.cancel(&cancelled.request_id) && !session.executor.cancel(&cancelled.request_id) {
        // Another instance serving the session may run it.
        let params = params.map(RawValue::get).unwrap_or("{}");
        session.forward(via, format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{params}}}"#));
        tracing::trace!(id = %cancelled.request_id, "cancellation of no request running here");
    }
}
