//! POST: one message, admitted, routed to its loop, and answered `application/json` or as an
//! SSE stream.

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::admission::{admit, header_str};
use super::options::ResponseMode;
use super::sessions::{App, LiveStream, find_session};
use super::sse::{body_stream, sse_event, sse_headers};
use super::streams::pump;
use super::{METHOD_HEADER, NAME_HEADER, SESSION_HEADER, VERSION_HEADER, busy, reject};
use crate::context::RequestExtras;
use crate::context::outlet::Outgoing;
use crate::protocol::{
    CachePolicy, ErrorObject, Feature, RequestId, Revision, code, member, members, mentions, string_value,
};
use crate::transport::connection::{Frame, RoutedMessage};

/// What the endpoint reads of a message before handing it over (parsing it validates it,
/// so that its params can be read as text afterwards).
#[derive(Deserialize)]
pub(super) struct Head<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    pub(super) id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) params: Option<&'a RawValue>,
}

pub(super) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The `_meta` revision of a 2026-07-28 request, and its `name` or `uri`: each `None` when
/// absent or not a string.
#[derive(Default)]
pub(super) struct ParamsHead<'a> {
    pub(super) version: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) uri: Option<Cow<'a, str>>,
    /// The text of `arguments`, read only for a tool whose arguments are mirrored in headers.
    pub(super) arguments: Option<&'a str>,
}

impl<'a> ParamsHead<'a> {
    /// Reads the params of a message whose head parsed (valid JSON); without a protocol
    /// version in `_meta`, nothing else is read.
    fn read(params: &'a RawValue) -> Self {
        let params = params.get();
        if !mentions!(params, "io.modelcontextprotocol/protocolVersion") {
            return ParamsHead::default();
        }
        let [meta, name, uri, arguments] = members(params, ["_meta", "name", "uri", "arguments"]);
        let version =
            meta.and_then(|meta| member(meta, "io.modelcontextprotocol/protocolVersion")).and_then(string_value);
        ParamsHead { version, name: name.and_then(string_value), uri: uri.and_then(string_value), arguments }
    }
}

/// POST: one message.
pub(super) async fn on_post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let identity = match admit(&app, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return reject(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error("the body is not UTF-8"));
    };
    let is_batch = crate::protocol::shape_of(text) == crate::protocol::Shape::Array;
    let head: Option<Head<'_>> = if is_batch { None } else { serde_json::from_str(text).ok() };
    let params = head.as_ref().and_then(|h| h.params).map(ParamsHead::read).unwrap_or_default();
    let stateless_version = params.version.as_deref();
    let method = head.as_ref().and_then(|h| h.method.as_deref());
    let id = head.as_ref().and_then(|h| h.id).and_then(|raw| serde_json::from_str::<RequestId>(raw.get()).ok());
    let is_request = method.is_some() && head.as_ref().is_some_and(|h| h.id.is_some());

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
    let extras = RequestExtras { headers, identity, stream_close: close.clone() };
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
    // The loop says what its answer is: nothing here reads it back.
    let json_answer = match first {
        Some(Outgoing { line, answer: Some(answer) }) if app.mode == ResponseMode::Json => Ok((line, answer)),
        other => Err(other),
    };
    let mut response = match (json_answer, close) {
        (Ok((mut body, answer)), _) => {
            answering.done = true;
            let status = if stateless { status_of(answer.error) } else { StatusCode::OK };
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
            response
        }
        (Err(first), Some(close)) => {
            let live = Arc::new(LiveStream { id: crate::util::random::random_id(), reader: Default::default(), close });
            target.streams.lock().unwrap_or_else(|e| e.into_inner()).insert(live.id.clone(), Arc::clone(&live));
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

/// The 2026-07-28 header rules: a request carries `Mcp-Method` (and, for the methods that name
/// something, `Mcp-Name`) matching its body; `MCP-Protocol-Version`, when sent, matches its
/// `_meta` (400 with -32020 otherwise).
pub(super) fn check_stateless_headers(
    headers: &HeaderMap,
    version: Option<&str>,
    method: Option<&str>,
    params: &ParamsHead<'_>,
    id: Option<&RequestId>,
) -> Result<(), Box<Response>> {
    let mismatch = |what: &str| {
        let message = format!("Header mismatch: `{what}` does not match the body");
        Box::new(reject(StatusCode::BAD_REQUEST, id, ErrorObject::new(code::HEADER_MISMATCH, message)))
    };
    if let (Some(sent), Some(version)) = (header_str(headers, VERSION_HEADER), version)
        && sent != version
    {
        return Err(mismatch("MCP-Protocol-Version"));
    }
    let Some(method) = method else { return Ok(()) };
    if header_str(headers, METHOD_HEADER) != Some(method) {
        return Err(mismatch("Mcp-Method"));
    }
    let named = match method {
        "tools/call" | "prompts/get" => params.name.as_deref(),
        "resources/read" => params.uri.as_deref(),
        _ => return Ok(()),
    };
    if header_str(headers, NAME_HEADER).map(decode_header_value).as_deref() != named {
        return Err(mismatch("Mcp-Name"));
    }
    Ok(())
}

/// The `Mcp-Param-*` headers of a tool's mirrored arguments must be sent and match the body.
pub(super) fn check_param_headers(
    app: &App,
    headers: &HeaderMap,
    params: &ParamsHead<'_>,
    id: Option<&RequestId>,
) -> Result<(), Box<Response>> {
    let Some(name) = &params.name else { return Ok(()) };
    let registry = app.core.registry();
    let Some(tool) = registry.tools.get(name.as_ref()).filter(|tool| !tool.header_params.is_empty()) else {
        return Ok(());
    };
    let arguments: Option<serde_json::Map<String, serde_json::Value>> =
        params.arguments.and_then(|text| serde_json::from_str(text).ok());
    for (argument, header) in &tool.header_params {
        let sent = header_str(headers, format!("mcp-param-{header}")).map(decode_header_value);
        let value = arguments.as_ref().and_then(|arguments| arguments.get(argument));
        let expected = value.map(|v| match v {
            serde_json::Value::String(text) => Cow::Borrowed(text.as_str()),
            other => Cow::Owned(other.to_string()),
        });
        if sent != expected {
            let message = format!("Header mismatch: `Mcp-Param-{header}` does not match the argument `{argument}`");
            return Err(Box::new(reject(
                StatusCode::BAD_REQUEST,
                id,
                ErrorObject::new(code::HEADER_MISMATCH, message),
            )));
        }
    }
    Ok(())
}

/// A header value as 2026-07-28 writes values that are not plain ASCII:
/// `=?base64?<base64 of UTF-8>?=`.
pub(super) fn decode_header_value(value: &str) -> Cow<'_, str> {
    use base64::Engine as _;
    value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map_or(Cow::Borrowed(value), Cow::Owned)
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
