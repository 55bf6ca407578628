//! Server-sent events as written on the wire, and the event store behind resumable streams.

use std::convert::Infallible;

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use tokio::sync::mpsc;

use super::busy;
use super::event_store::{EventStore, StoredEvents};
use crate::util::StoreError;

/// One SSE event, written in one piece.
pub(super) fn sse_event(event_id: Option<impl std::fmt::Display>, line: &[u8]) -> Bytes {
    let data = line.strip_suffix(b"\n").unwrap_or(line);
    let mut event = Vec::with_capacity(data.len() + 32);
    if let Some(event_id) = event_id {
        event.extend_from_slice(format!("id: {event_id}\n").as_bytes());
    }
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(data);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// The priming event that opens a resumable stream: an id to resume from, empty data, and how
/// long to wait before reconnecting.
pub(super) fn priming_event(event_id: Option<&str>) -> Bytes {
    match event_id {
        Some(event_id) => Bytes::from(format!("id: {event_id}\nretry: {RETRY_MS}\ndata: \n\n")),
        None => Bytes::from(format!("retry: {RETRY_MS}\ndata: \n\n")),
    }
}

/// How long a client waits before reconnecting to a stream the server closed (SSE `retry`).
pub(super) const RETRY_MS: u64 = 500;

/// Keeps `data` as the next event of `stream`: its id, or `None` (logged) when the store
/// fails, in which case the event goes out without an id and only resumability is lost.
pub(super) async fn keep_event(events: &dyn EventStore, stream: &str, data: &[u8]) -> Option<String> {
    kept_or_logged(events.append(stream, data).await, stream)
}

/// What a store answered to keeping an event of `stream`; a failure logged, as `None`.
pub(super) fn kept_or_logged<T>(kept: Result<T, StoreError>, stream: &str) -> Option<T> {
    kept.inspect_err(|e| {
        tracing::warn!(error = %e, stream, "the event store failed to keep an event: it is sent without an id");
    })
    .ok()
}

/// Kept events as SSE events, in order; priming events (empty data) left out.
pub(super) fn replayed(events: &StoredEvents) -> Vec<Bytes> {
    events.iter().filter(|(_, data)| !data.is_empty()).map(|(id, data)| sse_event(Some(id), data)).collect()
}

/// What an event store answers for `last`; a failure is a 503 the client may retry.
pub(super) async fn missed_events(events: &dyn EventStore, last: &str) -> Result<Option<StoredEvents>, Box<Response>> {
    events.after(last).await.map_err(|e| {
        tracing::warn!(error = %e, "the event store failed to replay a stream");
        Box::new(busy(None, "The event store is unavailable"))
    })
}

/// An HTTP body of the events sent into `reading`.
pub(super) fn body_stream(
    reading: mpsc::Receiver<Bytes>,
) -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> {
    futures_util::stream::unfold(reading, |mut reading| async move {
        reading.recv().await.map(|event| (Ok(event), reading))
    })
}

/// Sends an event to the connection reading a stream; a connection gone is forgotten.
pub(super) async fn send_event(reader: &mut Option<mpsc::Sender<Bytes>>, event: Bytes) {
    if let Some(connection) = reader.as_ref()
        && connection.send(event).await.is_err()
    {
        *reader = None;
    }
}

pub(super) fn sse_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
