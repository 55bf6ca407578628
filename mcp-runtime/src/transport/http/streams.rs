//! A session's streams: a request's resumable stream while it runs, the standalone GET stream,
//! and `Last-Event-ID` resumption.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, StatusCode, Uri};
use axum::response::Response;
use tokio::sync::mpsc;

use super::admission::{admit, header_str};
use super::event_store::{EventStore, StoredEvents};
use super::media::{EVENT_STREAM, accepts_all};
use super::sessions::{App, LiveStream, SessionHandle, find_session};
use super::sse::{body_stream, keep_event, missed_events, priming_event, replayed, send_event, sse_event, sse_headers};
use super::standalone::STANDALONE;
use super::{SESSION_HEADER, method_not_allowed, reject};
use crate::context::outlet::Outgoing;
use crate::protocol::ErrorObject;

/// The header a reconnecting client names the last event it got with.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Carries a handshake-era request's messages into its resumable stream: each is kept in the
/// event store, then sent to the connection reading the stream, if any. A connection that
/// breaks (or that the handler closes) loses nothing: the client resumes with
/// `Last-Event-ID`.
pub(super) async fn pump(
    events: Arc<dyn EventStore>,
    session: Arc<SessionHandle>,
    live: Arc<LiveStream>,
    first: Option<Outgoing>,
    mut rest: mpsc::Receiver<Outgoing>,
    _slot: Option<tokio::sync::OwnedSemaphorePermit>,
) {
    {
        let mut reader = live.reader.lock().await;
        let priming = keep_event(&*events, &live.id, b"").await;
        send_event(&mut reader, priming_event(priming.as_deref())).await;
        if first.is_none() {
            // Closed by its handler before anything was sent: the client resumes.
            reader.take();
        }
    }
    let mut next = first;
    loop {
        let message = match next.take() {
            Some(message) => message,
            None => tokio::select! {
                message = rest.recv() => match message {
                    Some(message) => message,
                    None => break,
                },
                () = live.close.notified() => {
                    // The handler closed the stream: the client reconnects after `retry`.
                    live.reader.lock().await.take();
                    continue;
                }
            },
        };
        // Kept and sent under one lock, so a reconnection replays up to exactly here.
        let mut reader = live.reader.lock().await;
        let event_id = keep_event(&*events, &live.id, &message.line).await;
        send_event(&mut reader, sse_event(event_id.as_deref(), &message.line)).await;
        if message.is_answer() {
            reader.take();
            break;
        }
    }
    session.streams.lock().unwrap_or_else(|e| e.into_inner()).remove(&live.id);
}

/// GET: a session's stream of list changes and resource updates (handshake revisions); with
/// `Last-Event-ID`, what a stream missed (this one, or a request's), then what follows.
pub(super) async fn on_get(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap) -> Response {
    use futures_util::StreamExt as _;
    let identity = match admit(&app, &uri, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        return method_not_allowed("GET opens a session's stream: send Mcp-Session-Id (2026-07-28 has no GET)");
    };
    if !accepts_all(&headers, &[EVENT_STREAM]) {
        let error = ErrorObject::invalid_request("GET opens an SSE stream: `Accept: text/event-stream`");
        return reject(StatusCode::NOT_ACCEPTABLE, None, error);
    }
    let last = match last_event_id(&headers) {
        Ok(last) => last,
        Err(rejected) => return *rejected,
    };
    let handle = match find_session(&app, session, identity.as_ref(), None).await {
        Ok(handle) => handle,
        Err(answer) => return *answer,
    };
    if let Some(last) = last.filter(|last| !last.starts_with(STANDALONE)) {
        return resume(&app, &handle, last).await;
    }
    // Replayed (or primed) and attached under the stream's lock: nothing missed, nothing twice.
    let mut standalone = handle.standalone.lock().await;
    let (opening, reading) = match standalone.open(&*app.events, last).await {
        Ok(opened) => opened,
        Err(answer) => return *answer,
    };
    drop(standalone);
    let mut stopping = app.stopping.clone();
    let live = body_stream(reading).take_until(async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    });
    let opening = futures_util::stream::iter(opening.into_iter().map(Ok::<_, Infallible>));
    sse_headers(Response::new(Body::from_stream(opening.chain(live))))
}

/// The longest `Last-Event-ID` read: the ids this server writes are far shorter.
const MAX_EVENT_ID: usize = 256;

/// The `Last-Event-ID` a GET names, if any; 400 when it is malformed (sent twice, not visible
/// ASCII, longer than [`MAX_EVENT_ID`], or holding characters no event id holds). Never 404:
/// to a client, 404 says the session is gone.
fn last_event_id(headers: &HeaderMap) -> Result<Option<&str>, Box<Response>> {
    let mut values = headers.get_all(LAST_EVENT_ID).iter();
    let Some(value) = values.next() else { return Ok(None) };
    let well_formed = values.next().is_none()
        && value.len() <= MAX_EVENT_ID
        && value.as_bytes().iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    match value.to_str() {
        Ok(id) if well_formed && !id.is_empty() => Ok(Some(id)),
        _ => Err(unknown_event("Malformed Last-Event-ID")),
    }
}

/// 400 for a `Last-Event-ID` that resumes nothing.
fn unknown_event(why: &str) -> Box<Response> {
    Box::new(reject(StatusCode::BAD_REQUEST, None, ErrorObject::invalid_request(why)))
}

/// What a request stream's unknown `Last-Event-ID` is told.
const UNKNOWN_EVENT: &str = "Unknown Last-Event-ID: that stream's events are no longer kept; it cannot be resumed";

/// GET with `Last-Event-ID`: what the stream missed, then (if its request still runs) what
/// follows.
pub(super) async fn resume(app: &App, session: &SessionHandle, last: &str) -> Response {
    use futures_util::StreamExt as _;
    let live = app
        .events
        .stream_of(last)
        .and_then(|stream| session.streams.lock().unwrap_or_else(|e| e.into_inner()).get(stream).cloned());
    let missed =
        |events: StoredEvents| futures_util::stream::iter(replayed(&events).into_iter().map(Ok::<_, Infallible>));
    let body = match live {
        Some(live) => {
            // Replayed and attached under the stream's lock: nothing missed, nothing twice.
            let mut reader = live.reader.lock().await;
            let found = match missed_events(&*app.events, last).await {
                Ok(found) => found,
                Err(answer) => return *answer,
            };
            let Some(events) = found else { return *unknown_event(UNKNOWN_EVENT) };
            let (connection, reading) = mpsc::channel::<Bytes>(16);
            *reader = Some(connection);
            Body::from_stream(missed(events).chain(body_stream(reading)))
        }
        None => match missed_events(&*app.events, last).await {
            Err(answer) => return *answer,
            // Its request finished: what it missed, and the stream ends.
            Ok(Some(events)) => Body::from_stream(missed(events)),
            Ok(None) => return *unknown_event(UNKNOWN_EVENT),
        },
    };
    sse_headers(Response::new(body))
}
