//! A request read from its message, the same way on every path: the route table's row for
//! its method (served in its revision, or the error saying why not), what its `_meta` asks of
//! its notifications, and the one [`Request`] value its method is handed.

use std::borrow::Cow;
use std::sync::Arc;

use crate::context::outlet::Outgoing;
use crate::context::state::States;
use crate::context::{Negotiated, RequestExtras};
use crate::protocol::{ErrorObject, Request as Message, Revision, excerpt};
use crate::serve::reply::ReplyTo;
use crate::serve::request::{Logging, Request, RequestMeta};
use crate::serve::routes::{Handler, Served, route};
use crate::server::core::ServerCore;

/// What a request is read with, beside its message.
pub(crate) struct Reading<'a> {
    /// The view it is served under: its connection's, or its own `_meta`'s (2026-07-28).
    pub(crate) negotiated: Arc<Negotiated>,
    /// Its connection has not sent `initialize` yet: only the rows served before it exist.
    pub(crate) fresh: bool,
    /// The text of its `params._meta`, found once.
    pub(crate) meta: Option<&'a str>,
    pub(crate) logging: Logging,
    pub(crate) extras: Option<Arc<RequestExtras>>,
    pub(crate) reply_to: ReplyTo,
    /// Its session's states, when the session has instances of its own.
    pub(crate) states: Option<Arc<States>>,
}

/// The request `message` is, with how its method runs; `Err`: the error to answer with, and
/// where.
pub(crate) fn admit<'a>(
    core: &Arc<ServerCore>,
    message: Message<'a>,
    reading: Reading<'_>,
) -> Result<(Request<'a>, Handler), (Outgoing, ReplyTo)> {
    let Message { id, method, params } = message;
    let Reading { negotiated, fresh, meta, logging, extras, reply_to, states } = reading;
    let row = route(&method, &core.capabilities);
    let served = row.filter(|row| {
        !matches!(row.handler, Handler::Notification(_))
            && if fresh { row.before_initialize } else { row.served.includes(negotiated.revision) }
    });
    let Some(row) = served else {
        let error = unserved(&method, (!fresh).then_some(negotiated.revision), row.map(|r| r.served));
        return Err((Outgoing::error(Some(&id), &error), reply_to));
    };
    let meta = match RequestMeta::read(meta, &logging) {
        Ok(meta) => meta,
        Err(e) => return Err((Outgoing::error(Some(&id), &e), reply_to)),
    };
    let request = Request {
        core: Arc::clone(core),
        session_states: states,
        negotiated,
        id,
        method: row.method,
        caching: row.caching,
        may_ask: row.may_ask,
        params: params.map(Cow::Borrowed),
        meta,
        extras,
        reply_to,
        link: None,
        visible: None,
        #[cfg(feature = "telemetry")]
        trace: None,
    };
    Ok((request, row.handler))
}

/// Whether `request` may skip the layers: when the only one is the scope check and the
/// HTTP edge did not authorize it (stdio, a channel, HTTP without a verifier), there is
/// nothing to check, and the request costs what it costs without layers.
pub(crate) fn skips_layers(request: &Request<'_>) -> bool {
    #[cfg(feature = "http")]
    let authorized = request.extras.as_ref().is_some_and(|extras| extras.authorized.is_some());
    #[cfg(not(feature = "http"))]
    let authorized = false;
    request.core.layers_only_check && !authorized
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
