//! A POSTed request's answer on its way to the client: what its handler sends before its
//! answer, then its answer, as plain JSON (a status from what it says, `Cache-Control` from its
//! caching hints) or as an SSE stream.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::Poll;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::options::ResponseMode;
use super::sessions::App;
use super::sse::{sse_event, sse_headers};
use crate::context::outlet::{Outgoing, StreamOnUse};
use crate::protocol::{CachePolicy, RequestId, code};
use crate::transport::connection::Frame;
use crate::util::BoxFuture;
use crate::util::queue::QueueSender;

/// Whether `first` goes out as plain JSON: it answers the request, and the mode is JSON or a
/// layer gave it an HTTP status of its own (a refusal).
pub(super) fn is_json(app: &App, first: &Outgoing) -> bool {
    first.answer.as_ref().is_some_and(|answer| app.mode == ResponseMode::Json || answer.http.is_some())
}

/// The response to a request whose first message is `first`: plain JSON when that answers it
/// (see [`is_json`]), else an SSE stream of everything up to the answer. `stateless`: a
/// 2026-07-28 answer's status and caching come from what it says.
pub(super) fn http_response(
    app: &App,
    first: Outgoing,
    mut answering: Answering,
    stateless: bool,
    is_batch: bool,
) -> Response {
    if !is_json(app, &first) {
        answering.first = Some(first);
        return sse_response(answering);
    }
    answering.done = true;
    let Outgoing { line: mut body, answer } = first;
    let answer = answer.unwrap_or_default();
    let status = match (stateless, is_batch, answer.error) {
        _ if let Some(http) = &answer.http => StatusCode::from_u16(http.status).unwrap_or(StatusCode::OK),
        (true, _, error) => status_of(error),
        // A batch is answered with an array; an error alone refuses the whole batch.
        (false, true, Some(_)) => StatusCode::BAD_REQUEST,
        (false, ..) => StatusCode::OK,
    };
    body.pop();
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    if let Some(caching) = answer.cache.filter(|_| stateless).and_then(cache_control) {
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

/// What a POSTed request produces, on its way to the client: what its handler sends before its
/// answer, then its answer, from its stream (a loop's request) or from its work running here.
/// Dropped before the answer went out (the client went away), it cancels the request: the work
/// here is dropped with it, and a loop is told.
pub(super) struct Answering {
    first: Option<Outgoing>,
    /// What the request sends before its answer (`None` until a stream made on use exists).
    rest: Option<mpsc::Receiver<Outgoing>>,
    /// The request's stream, made when it first sends something (served here).
    on_use: Option<Arc<StreamOnUse>>,
    /// The request's work, served here (2026-07-28), until it answers.
    work: Option<BoxFuture<'static, Option<Outgoing>>>,
    /// Its answer, once its work gave it, sent after what it sent before.
    answer: Option<Outgoing>,
    id: Option<RequestId>,
    next_event: u64,
    done: bool,
    /// The loop to tell when it is dropped early (a listen stream on the listen loop).
    cancel: Option<QueueSender<Frame>>,
    /// Its share of the server-wide request limit, held until the answer is out.
    _slot: Option<OwnedSemaphorePermit>,
}

impl Answering {
    /// A request a loop serves: what it sends comes from `rest`.
    pub(super) fn new(
        rest: mpsc::Receiver<Outgoing>,
        id: Option<RequestId>,
        cancel: Option<QueueSender<Frame>>,
        slot: Option<OwnedSemaphorePermit>,
    ) -> Self {
        Answering {
            first: None,
            rest: Some(rest),
            on_use: None,
            work: None,
            answer: None,
            id,
            next_event: 1,
            done: false,
            cancel,
            _slot: slot,
        }
    }

    /// A request served here: what it sends before its answer goes to `stream`.
    pub(super) fn here(stream: Arc<StreamOnUse>, id: RequestId) -> Self {
        Answering {
            first: None,
            rest: None,
            on_use: Some(stream),
            work: None,
            answer: None,
            id: Some(id),
            next_event: 1,
            done: false,
            cancel: None,
            _slot: None,
        }
    }

    pub(super) fn with_answer(mut self, answer: Outgoing) -> Self {
        self.answer = Some(answer);
        self
    }

    pub(super) fn with_work(mut self, work: BoxFuture<'static, Option<Outgoing>>) -> Self {
        self.work = Some(work);
        self
    }

    /// The next message, in the order it was sent: what the handler sent before its answer
    /// comes out of its stream first. `None`: there is nothing more (no answer came).
    pub(super) async fn next(&mut self) -> Option<Outgoing> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }

    fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> Poll<Option<Outgoing>> {
        loop {
            if self.rest.is_none() {
                self.rest = self.on_use.as_ref().and_then(|stream| stream.take_receiver());
            }
            let stream_open = match self.rest.as_mut().map(|rest| rest.poll_recv(cx)) {
                Some(Poll::Ready(Some(message))) => return Poll::Ready(Some(message)),
                Some(Poll::Ready(None)) => false,
                Some(Poll::Pending) => true,
                None => false,
            };
            if let Some(answer) = self.answer.take() {
                return Poll::Ready(Some(answer));
            }
            let Some(work) = self.work.as_mut() else {
                // A loop's request waits on its stream until it closes; a request served here
                // has nothing more once its work ended.
                return match stream_open && self.on_use.is_none() {
                    true => Poll::Pending,
                    false => Poll::Ready(None),
                };
            };
            let made_before = self.rest.is_some();
            match work.as_mut().poll(cx) {
                Poll::Ready(answer) => {
                    self.work = None;
                    match answer {
                        Some(answer) => self.answer = Some(answer),
                        None => return Poll::Ready(None),
                    }
                }
                // A stream made while the work ran may hold its first message already: look.
                Poll::Pending if !made_before && self.on_use.as_ref().is_some_and(|s| s.is_made()) => {}
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Its stream and its slot, for a resumable stream to carry on (handshake era).
    pub(super) fn into_parts(mut self) -> (mpsc::Receiver<Outgoing>, Option<OwnedSemaphorePermit>) {
        self.done = true;
        let rest = self.rest.take().unwrap_or_else(|| mpsc::channel(1).1);
        (rest, self._slot.take())
    }
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

/// A request's SSE stream (not resumable): what it produced, up to and including its answer.
pub(super) fn sse_response(state: Answering) -> Response {
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        let message = state.next().await?;
        state.done = message.is_answer();
        let event = sse_event(Some(state.next_event), &message.line);
        state.next_event += 1;
        Some((Ok::<_, Infallible>(event), state))
    });
    sse_headers(Response::new(Body::from_stream(stream)))
}
