//! POST: one message, admitted, read once, served (a 2026-07-28 request right here; a
//! handshake-era message by its session's loop), and answered `application/json` or as an SSE
//! stream.

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::admission::{admit, client_address, header_str};
use super::answering::{Answering, http_response, is_json};
use super::body::{check_batch, read_body};
use super::media::{EVENT_STREAM, JSON, accepts_all, is_json_body};
use super::sessions::{App, LiveStream, SessionHandle, find_session};
use super::sse::{body_stream, sse_headers};
use super::stateless_headers::{ParamsHead, check_param_headers, check_stateless_headers};
use super::streams::pump;
use super::{SESSION_HEADER, VERSION_HEADER, busy, reject};
use crate::context::outlet::{Answer, Outgoing, RequestStream, StreamOnUse};
use crate::context::slot::SlotLease;
use crate::context::{Identity, RequestExtras};
use crate::protocol::{
    ErrorObject, Feature, Incoming, Request as Message, RequestId, Revision, Shape, classify, shape_of,
};
use crate::serve::here::Served;
use crate::serve::routes::{Named, route};
use crate::serve::stateless::{self, Arrived};
use crate::transport::connection::{Frame, RoutedMessage};

/// POST: one message. (The request is taken whole: extracting its headers apart would copy
/// them.)
pub(super) async fn on_post(State(app): State<Arc<App>>, request: Request<Body>) -> Response {
    let (Parts { uri, headers, extensions, .. }, body) = request.into_parts();
    let peer = client_address(&extensions);
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
    // The message is read here, so that one that is not a message is refused on its own POST
    // (a loop would answer it on the session's GET stream, where its sender never looks).
    let posted = match Posted::read(text) {
        Ok(posted) => posted,
        Err(rejected) => return *rejected,
    };
    let from = From { headers, identity, peer };
    match posted.stateless(header_str(&from.headers, SESSION_HEADER)) {
        true => post_stateless(&app, posted, from).await,
        false => post_in_session(&app, posted, from).await,
    }
}

/// A POSTed message, read once.
struct Posted<'a> {
    text: &'a str,
    is_batch: bool,
    /// The request (`None`: a notification, a response, or a batch).
    request: Option<Message<'a>>,
    method: Option<Cow<'a, str>>,
    /// What the HTTP edge reads of its params (`_meta`'s revision, the names its headers repeat).
    head: ParamsHead<'a>,
}

impl<'a> Posted<'a> {
    fn read(text: &'a str) -> Result<Self, Box<Response>> {
        let is_batch = shape_of(text) == Shape::Array;
        let (request, method, params): (_, _, Option<&RawValue>) = match (!is_batch).then(|| classify(text)) {
            None | Some(Incoming::Response { .. }) => (None, None, None),
            Some(Incoming::Request(request)) => {
                let (method, params) = (request.method.clone(), request.params);
                (Some(request), Some(method), params)
            }
            Some(Incoming::Notification(notification)) => (None, Some(notification.method), notification.params),
            Some(Incoming::BadNotification(reason)) => {
                return Err(Box::new(reject(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request(reason))));
            }
            Some(Incoming::Invalid(id, error)) => {
                return Err(Box::new(reject(StatusCode::BAD_REQUEST, id.as_ref(), error)));
            }
        };
        let head = params.map(ParamsHead::read).unwrap_or_default();
        Ok(Posted { text, is_batch, request, method, head })
    }

    fn id(&self) -> Option<&RequestId> {
        self.request.as_ref().map(|request| &request.id)
    }

    fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// Whether it is served without a session: a 2026-07-28 request names its revision; a
    /// client without a session may also probe with `server/discover` and send notifications
    /// (which no era answers).
    fn stateless(&self, session: Option<&str>) -> bool {
        self.head.version.is_some()
            || (session.is_none()
                && (self.method() == Some("server/discover") || (self.request.is_none() && !self.is_batch)))
    }
}

/// Who POSTed it, and how.
struct From {
    headers: HeaderMap,
    identity: Option<Identity>,
    peer: Option<std::net::SocketAddr>,
}

impl From {
    /// What a request's handler may read of the HTTP request. `close`: how its handler closes
    /// its resumable stream (handshake era).
    fn into_extras(self, app: &App, close: Option<Arc<tokio::sync::Notify>>) -> Arc<RequestExtras> {
        let From { mut headers, identity, peer } = self;
        let authorized = app.edge.as_ref().map(|edge| Arc::clone(&edge.authorized));
        // The client's token goes no further than the edge, unless the application asked.
        if app.edge.as_ref().is_some_and(|edge| !edge.keep_token) {
            headers.remove(header::AUTHORIZATION);
        }
        Arc::new(RequestExtras { headers, identity, authorized, peer, stream_close: close })
    }
}

/// A 2026-07-28 message: a request is served here, in this task; a listen stream, a
/// notification or a request without `_meta` (a sessionless probe) goes to the listen loop.
async fn post_stateless(app: &Arc<App>, posted: Posted<'_>, from: From) -> Response {
    let row = posted.method().and_then(|method| route(method, &app.core.capabilities));
    // The header rules bind messages that name 2026-07-28 in their `_meta`; a sessionless
    // probe or notification without it has nothing to match.
    if posted.head.version.is_some() {
        let named = row.map_or(Named::Nothing, |row| row.named);
        if let Err(rejected) = check_stateless_headers(&from.headers, posted.method(), named, &posted.head, posted.id())
        {
            return *rejected;
        }
    }
    if posted.method() == Some("tools/call")
        && let Err(rejected) = check_param_headers(app, &from.headers, &posted.head, posted.id())
    {
        return *rejected;
    }
    let opens_stream = row.is_some_and(|row| row.opens_stream);
    let Posted { text, request, head, .. } = posted;
    let (request, meta) = match (request, head.meta) {
        (Some(request), Some(meta)) if !opens_stream => (request, meta),
        (request, _) => return to_loop(app, &app.listening, text, request.map(|r| r.id), from, opens_stream).await,
    };
    let Ok(slot) = Arc::clone(&app.requests).try_acquire_owned() else {
        return busy(Some(&request.id), "The server is busy: retry later");
    };
    let id = request.id.clone();
    let stream = Arc::new(StreamOnUse::default());
    let lease = SlotLease::new(Arc::clone(&app.requests), slot);
    let extras = from.into_extras(app, None);
    let arrived = Arrived { message: request, meta, extras, stream: Arc::clone(&stream), lease };
    let mut answering = match stateless::serve(&app.core, arrived) {
        Served::Answered(answer) => Answering::here(stream, id.clone()).with_answer(answer),
        Served::Running(work) => Answering::here(stream, id.clone()).with_work(work),
        Served::OnLoop => {
            return reject(StatusCode::INTERNAL_SERVER_ERROR, Some(&id), ErrorObject::internal("Not served here"));
        }
    };
    let Some(first) = answering.next().await else {
        return reject(StatusCode::INTERNAL_SERVER_ERROR, Some(&id), ErrorObject::internal("No answer"));
    };
    http_response(app, first, answering, true, false)
}

/// A message for a loop (a handshake-era session's, or the listen loop): sent there, and
/// answered with what comes back on the request's own stream; a notification or a response,
/// with 202. `slotless`: a listen stream, which counts against its own limit.
async fn to_loop(
    app: &App,
    target: &Arc<SessionHandle>,
    text: &str,
    id: Option<RequestId>,
    from: From,
    slotless: bool,
) -> Response {
    let slot = match slotless {
        true => None,
        false => match Arc::clone(&app.requests).try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) => return busy(id.as_ref(), "The server is busy: retry later"),
        },
    };
    let Some(id) = id else {
        let _ = target.inbound.send(Frame::Message(text.as_bytes().to_vec())).await;
        return StatusCode::ACCEPTED.into_response();
    };
    let (stream, answers) = mpsc::channel::<Outgoing>(16);
    let extras = from.into_extras(app, None);
    if let Err(rejected) = route_to(target, text, stream, extras, &id).await {
        return *rejected;
    }
    // From here on, a client that goes away cancels the request (a listen stream ends).
    let mut answering = Answering::new(answers, Some(id.clone()), Some(target.inbound.clone()), slot);
    let Some(first) = answering.next().await else {
        return reject(StatusCode::INTERNAL_SERVER_ERROR, Some(&id), ErrorObject::internal("No answer"));
    };
    http_response(app, first, answering, true, false)
}

/// Hands a message, with its stream and what came with it, to its loop.
async fn route_to(
    target: &SessionHandle,
    text: &str,
    stream: RequestStream,
    extras: Arc<RequestExtras>,
    id: &RequestId,
) -> Result<(), Box<Response>> {
    let routed = RoutedMessage { bytes: text.as_bytes().to_vec(), stream, extras: Some(extras) };
    match target.inbound.send(Frame::Routed(Box::new(routed))).await {
        Ok(()) => Ok(()),
        Err(_) => Err(Box::new(reject(StatusCode::NOT_FOUND, Some(id), ErrorObject::internal("The session ended")))),
    }
}

/// A handshake-era message: to its session's loop (a new one for `initialize`), its answer
/// kept in a resumable stream when it is not JSON.
async fn post_in_session(app: &Arc<App>, posted: Posted<'_>, from: From) -> Response {
    let id = posted.id().cloned();
    let session_id = header_str(&from.headers, SESSION_HEADER);
    if posted.is_batch
        && let Err(rejected) = check_batch(posted.text, session_id, header_str(&from.headers, VERSION_HEADER))
    {
        return *rejected;
    }
    if let Some(version) = header_str(&from.headers, VERSION_HEADER)
        && !Revision::parse(version).is_some_and(|r| r.supports(Feature::Handshake))
    {
        let error = ErrorObject::invalid_request(format!(
            "Unsupported MCP-Protocol-Version `{}`",
            crate::protocol::excerpt(version)
        ));
        return reject(StatusCode::BAD_REQUEST, id.as_ref(), error);
    }
    let (target, minted) = match session_id {
        Some(session) => match find_session(app, session, from.identity.as_ref(), id.as_ref()).await {
            Ok(handle) => (handle, None),
            Err(answer) => return *answer,
        },
        None if posted.method() == Some("initialize") => {
            let session = format!("{}{}", app.session_prefix, crate::util::random::random_id());
            let owner = from.identity.as_ref().map(|i| i.subject().to_owned());
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
    };
    let Ok(slot) = Arc::clone(&app.requests).try_acquire_owned() else {
        return busy(id.as_ref(), "The server is busy: retry later");
    };
    if id.is_none() && !posted.is_batch {
        let _ = target.inbound.send(Frame::Message(posted.text.as_bytes().to_vec())).await;
        return StatusCode::ACCEPTED.into_response();
    }
    let (stream, answers) = mpsc::channel::<Outgoing>(16);
    // A handshake-era request's SSE stream is resumable, and its handler may close it.
    let close = Arc::new(tokio::sync::Notify::new());
    let extras = from.into_extras(app, Some(Arc::clone(&close)));
    let routed = RoutedMessage { bytes: posted.text.as_bytes().to_vec(), stream, extras: Some(extras) };
    if target.inbound.send(Frame::Routed(Box::new(routed))).await.is_err() {
        return reject(StatusCode::NOT_FOUND, id.as_ref(), ErrorObject::internal("The session ended"));
    }
    let mut answering = Answering::new(answers, id.clone(), None, Some(slot));
    // The handler may close its stream before it sends anything (SSE polling): the answer is
    // then a stream that opens with its priming event and closes, for the client to resume.
    let first = tokio::select! {
        biased;
        first = answering.next() => match first {
            Some(first) => Some(first),
            None => return reject(StatusCode::INTERNAL_SERVER_ERROR, id.as_ref(), ErrorObject::internal("No answer")),
        },
        () = close.notified() => None,
    };
    // `initialize`, `logging/setLevel` and the subscriptions answer at once: what they changed
    // is kept before the client hears back.
    if let Err(e) = app.keep(&target).await {
        tracing::error!(error = %e, "the session store failed to save a session");
        if let Some(session) = &minted {
            app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
        }
        return busy(id.as_ref(), "The session store is unavailable: retry later");
    }
    let mut response = match first {
        Some(first) if is_json(app, &first) => {
            // A failed `initialize` leaves no session behind.
            if let (Some(session), Some(Answer { error: Some(_), .. })) = (&minted, &first.answer) {
                app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
            }
            http_response(app, first, answering, false, posted.is_batch)
        }
        first => {
            let live = Arc::new(LiveStream { id: crate::util::random::random_id(), reader: Default::default(), close });
            target.streams.lock().unwrap_or_else(|e| e.into_inner()).insert(live.id.clone(), Arc::clone(&live));
            target.made_stream(&live.id);
            let (body, reading) = mpsc::channel::<Bytes>(16);
            *live.reader.lock().await = Some(body);
            let (rest, slot) = answering.into_parts();
            tokio::spawn(pump(Arc::clone(&app.events), Arc::clone(&target), live, first, rest, slot));
            sse_headers(Response::new(Body::from_stream(body_stream(reading))))
        }
    };
    if let Some(session) = minted
        && let Ok(value) = HeaderValue::from_str(&session)
    {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}
