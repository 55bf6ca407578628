//! POST: one message, admitted, routed to its loop, and answered `application/json` or as an
//! SSE stream.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use super::admission::{Peer, admit, header_str};
use super::body::{check_batch, read_body};
use super::media::{EVENT_STREAM, JSON, accepts_all, is_json_body};
use super::options::ResponseMode;
use super::sessions::{App, LiveStream, find_session};
use super::sse::{body_stream, sse_event, sse_headers};
use super::stateless_headers::{ParamsHead, check_param_headers, check_stateless_headers};
use super::streams::pump;
use super::{SESSION_HEADER, VERSION_HEADER, busy, reject};
use crate::context::RequestExtras;
use crate::context::outlet::Outgoing;
use crate::protocol::{
    CachePolicy, ErrorObject, Feature, Incoming, RequestId, Revision, Shape, classify, code, shape_of,
};
use crate::transport::connection::{Frame, RoutedMessage};

/// POST: one message.
pub(super) async fn on_post(
    State(app): State<Arc<App>>,
    Peer(peer): Peer,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if *app.stopping.borrow() {
        return busy(None, "The server is shutting down: retry on another instance");
    }
    let identity = match admit(&app, &uri, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    if !is_json_body(&headers) {
        let error =
            ErrorObject::invalid_request("A POST carries one JSON-RPC message: `Content-Type: application/json`");
        return reject(StatusCode::UNSUPPORTED_MEDIA_TYPE, None, error);
    }
    if !accepts_all(&headers, &[JSON, EVENT_STREAM]) {
        let error = ErrorObject::invalid_request(
            "A POST is answered with JSON or an SSE stream: `Accept: application/json, text/event-stream`",
        );
        return reject(StatusCode::NOT_ACCEPTABLE, None, error);
    }
    let body = match read_body(&app, &headers, body).await {
        Ok(body) => body,
        Err(rejected) => return *rejected,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return reject(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error("the body is not UTF-8"));
    };
    let is_batch = shape_of(text) == Shape::Array;
    // The message is checked here, so that one that is not a message is refused on its own
    // POST (a loop would answer it on the session's GET stream, where its sender never looks).
    let message = (!is_batch).then(|| classify(text));
    let (id, method, message_params) = match message {
        None | Some(Incoming::Response { .. }) => (None, None, None),
        Some(Incoming::Request(request)) => (Some(request.id), Some(request.method), request.params),
        Some(Incoming::Notification(notification)) => (None, Some(notification.method), notification.params),
        Some(Incoming::BadNotification(reason)) => {
            return reject(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request(reason));
        }
        Some(Incoming::Invalid(id, error)) => return reject(StatusCode::BAD_REQUEST, id.as_ref(), error),
    };
    let params = message_params.map(ParamsHead::read).unwrap_or_default();
    let stateless_version = params.version.as_deref();
    let method = method.as_deref();
    let is_request = id.is_some();
    let session_id = header_str(&headers, SESSION_HEADER);
    // A 2026-07-28 request names its revision; a client without a session may also probe
    // with `server/discover` and send notifications (which no era answers).
    let stateless = stateless_version.is_some()
        || (session_id.is_none() && (method == Some("server/discover") || (!is_request && !is_batch)));
    let (target, minted) = if stateless {
        // The header rules bind messages that name 2026-07-28 in their `_meta`; a sessionless
        // probe or notification without it has nothing to match.
        if stateless_version.is_some()
            && let Err(rejected) = check_stateless_headers(&headers, stateless_version, method, &params, id.as_ref())
        {
            return *rejected;
        }
        if method == Some("tools/call")
            && let Err(rejected) = check_param_headers(&app, &headers, &params, id.as_ref())
        {
            return *rejected;
        }
        (Arc::clone(app.stateless.for_request(method)), None)
    } else {
        if is_batch && let Err(rejected) = check_batch(text, session_id, header_str(&headers, VERSION_HEADER)) {
            return *rejected;
        }
        if let Some(version) = header_str(&headers, VERSION_HEADER)
            && !Revision::parse(version).is_some_and(|r| r.supports(Feature::Handshake))
        {
            let error = ErrorObject::invalid_request(format!(
                "Unsupported MCP-Protocol-Version `{}`",
                crate::protocol::excerpt(version)
            ));
            return reject(StatusCode::BAD_REQUEST, id.as_ref(), error);
        }
        match session_id {
            Some(session) => match find_session(&app, session, identity.as_ref(), id.as_ref()).await {
                Ok(handle) => (handle, None),
                Err(answer) => return *answer,
            },
            None if method == Some("initialize") => {
                let session = format!("{}{}", app.session_prefix, crate::util::random::random_id());
                let owner = identity.as_ref().map(|i| i.subject().to_owned());
                match app.open_session(&session, owner, None) {
                    Some(handle) => (handle, Some(session)),
                    None => return busy(id.as_ref(), "Too many open sessions: retry later"),
                }
            }
            None => {
                let error = ErrorObject::invalid_request(
                    "Missing Mcp-Session-Id: send `initialize` first, or a 2026-07-28 request with its `_meta`",
                );
                return reject(StatusCode::BAD_REQUEST, id.as_ref(), error);
            }
        }
    };

    // A listen stream lives long and counts against its own limit, not this one.
    let slot = match method == Some("subscriptions/listen") {
        true => None,
        false => match Arc::clone(&app.requests).try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) => return busy(id.as_ref(), "The server is busy: retry later"),
        },
    };
    if !is_request && !is_batch {
        // A notification or a response: never answered. Without a session, any of the
        // 2026-07-28 loops may run the request a cancellation names.
        let targets = if stateless { app.stateless.all() } else { std::slice::from_ref(&target) };
        for target in targets {
            let _ = target.inbound.send(Frame::Message(body.to_vec())).await;
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let (stream, answers) = mpsc::channel::<Outgoing>(16);
    // A handshake-era request's SSE stream is resumable, and its handler may close it.
    let close = (!stateless).then(|| Arc::new(tokio::sync::Notify::new()));
    let authorized = app.edge.as_ref().map(|edge| Arc::clone(&edge.authorized));
    let mut headers = headers;
    // The client's token goes no further than the edge, unless the application asked.
    if app.edge.as_ref().is_some_and(|edge| !edge.keep_token) {
        headers.remove(axum::http::header::AUTHORIZATION);
    }
    let extras = RequestExtras { headers, identity, authorized, peer, stream_close: close.clone() };
    let routed = RoutedMessage { bytes: body.to_vec(), stream, extras: Some(Arc::new(extras)) };
    if target.inbound.send(Frame::Routed(Box::new(routed))).await.is_err() {
        let error = ErrorObject::internal("The session ended");
        return reject(StatusCode::NOT_FOUND, id.as_ref(), error);
    }
    // From here on, a 2026-07-28 client that goes away cancels the request.
    let cancel = (stateless && is_request).then(|| target.inbound.clone());
    let mut answering =
        Answering { first: None, rest: answers, id: id.clone(), next_event: 1, done: false, cancel, _slot: slot };
    // The handler may close its stream before it sends anything (SSE polling): the answer is
    // then a stream that opens with its priming event and closes, for the client to resume.
    let closing = close.clone();
    let closed_first = async move {
        match closing {
            Some(close) => close.notified().await,
            None => std::future::pending().await,
        }
    };
    let first = tokio::select! {
        biased;
        first = answering.rest.recv() => match first {
            Some(first) => Some(first),
            None => return reject(StatusCode::INTERNAL_SERVER_ERROR, id.as_ref(), ErrorObject::internal("No answer")),
        },
        () = closed_first => None,
    };
    // `initialize`, `logging/setLevel` and the subscriptions answer at once: what they changed
    // is kept before the client hears back.
    if !stateless && let Err(e) = app.keep(&target).await {
        tracing::error!(error = %e, "the session store failed to save a session");
        if let Some(session) = &minted {
            app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
        }
        return busy(id.as_ref(), "The session store is unavailable: retry later");
    }
    // The loop says what its answer is: nothing here reads it back. An answer a layer gave
    // an HTTP status of its own (a refusal) is plain JSON whatever the mode.
    let json_answer = match first {
        Some(Outgoing { line, answer: Some(answer) }) if app.mode == ResponseMode::Json || answer.http.is_some() => {
            Ok((line, answer))
        }
        other => Err(other),
    };
    let mut response = match (json_answer, close) {
        (Ok((mut body, answer)), _) => {
            answering.done = true;
            let status = match (stateless, is_batch, answer.error) {
                _ if let Some(http) = &answer.http => StatusCode::from_u16(http.status).unwrap_or(StatusCode::OK),
                (true, _, error) => status_of(error),
                // A batch is answered with an array; an error alone refuses the whole batch.
                (false, true, Some(_)) => StatusCode::BAD_REQUEST,
                (false, ..) => StatusCode::OK,
            };
            body.pop();
            if let (Some(session), Some(_)) = (&minted, answer.error) {
                // A failed `initialize` leaves no session behind.
                app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
            }
            let caching = answer.cache.filter(|_| stateless).and_then(cache_control);
            let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
            if let Some(caching) = caching {
                response.headers_mut().insert(header::CACHE_CONTROL, caching);
            }
            for (name, value) in answer.http.iter().flat_map(|http| &http.headers) {
                match (HeaderName::try_from(name.as_str()), HeaderValue::try_from(value.as_str())) {
                    (Ok(name), Ok(value)) => drop(response.headers_mut().append(name, value)),
                    _ => tracing::debug!(name, "a layer's header HTTP cannot carry was left out"),
                }
            }
            response
        }
        (Err(first), Some(close)) => {
            let live = Arc::new(LiveStream { id: crate::util::random::random_id(), reader: Default::default(), close });
            target.streams.lock().unwrap_or_else(|e| e.into_inner()).insert(live.id.clone(), Arc::clone(&live));
            target.made_stream(&live.id);
            let (body, reading) = mpsc::channel::<Bytes>(16);
            *live.reader.lock().await = Some(body);
            answering.done = true;
            let rest = std::mem::replace(&mut answering.rest, mpsc::channel(1).1);
            let slot = answering._slot.take();
            tokio::spawn(pump(Arc::clone(&app.events), Arc::clone(&target), live, first, rest, slot));
            sse_headers(Response::new(Body::from_stream(body_stream(reading))))
        }
        // Not resumable (2026-07-28): its first message is there.
        (Err(first), None) => {
            answering.first = first;
            sse_response(answering)
        }
    };
    if let Some(session) = minted
        && let Ok(value) = HeaderValue::from_str(&session)
    {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

/// The status of a 2026-07-28 answer whose error code is `error`: errors the protocol names
/// get theirs.
pub(super) fn status_of(error: Option<i32>) -> StatusCode {
    match error {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            code::INVALID_PARAMS
            | code::INVALID_REQUEST
            | code::PARSE_ERROR
            | code::HEADER_MISMATCH
            | code::UNSUPPORTED_PROTOCOL_VERSION
            | code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// `Cache-Control` saying what a result's `ttlMs` and `cacheScope` say, so that an HTTP cache
/// between client and server agrees with the client (`public, max-age=60`; `ttlMs: 0` is
/// `no-cache`).
pub(super) fn cache_control(policy: CachePolicy) -> Option<HeaderValue> {
    let scope = policy.scope().as_str();
    let value = match policy.ttl_ms() {
        0 => format!("{scope}, no-cache"),
        ttl => format!("{scope}, max-age={}", ttl / 1_000),
    };
    HeaderValue::from_str(&value).ok()
}

/// What a POSTed request produces, on its way to the client. Dropped before the response
/// went out (the client went away), it cancels a 2026-07-28 request: there, closing the
/// response stream is the cancellation.
pub(super) struct Answering {
    pub(super) first: Option<Outgoing>,
    pub(super) rest: mpsc::Receiver<Outgoing>,
    pub(super) id: Option<RequestId>,
    pub(super) next_event: u64,
    pub(super) done: bool,
    /// The loop to tell, for a 2026-07-28 request.
    pub(super) cancel: Option<mpsc::Sender<Frame>>,
    /// Its share of the server-wide request limit, held until the answer is out.
    pub(super) _slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Drop for Answering {
    fn drop(&mut self) {
        if let (false, Some(inbound), Some(id)) = (self.done, self.cancel.take(), &self.id) {
            let notification = serde_json::json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the client closed the response stream"},
            });
            let _ = inbound.try_send(Frame::Message(notification.to_string().into_bytes()));
        }
    }
}

/// A request's SSE stream: what it produced, up to and including its response.
pub(super) fn sse_response(state: Answering) -> Response {
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        let message = match state.first.take() {
            Some(message) => message,
            None => state.rest.recv().await?,
        };
        state.done = message.is_answer();
        let event = sse_event(Some(state.next_event), &message.line);
        state.next_event += 1;
        Some((Ok::<_, Infallible>(event), state))
    });
    sse_headers(Response::new(Body::from_stream(stream)))
}
