//! Where a request's messages go, and what the transport is told of each without reading it
//! back: whether it is the request's response, its error code, its caching hints.

use tokio::sync::mpsc;

use crate::protocol::{CachePolicy, ErrorObject, RequestId, error_line};

/// A message for the client on its way out.
#[derive(Debug)]
pub(crate) struct Outgoing {
    /// The message, as written (ending in `\n`).
    pub(crate) line: Vec<u8>,
    /// `Some` when it answers its request: the last message of the request's own stream.
    // Read by the HTTP transport only.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) answer: Option<Answer>,
}

/// What a response says, for the transport (an HTTP status, `Cache-Control`) and the layers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Answer {
    /// The JSON-RPC error code, when it is an error response.
    pub(crate) error: Option<i32>,
    /// How long it may be cached, when its result says so (2026-07-28 lists, reads, discovery).
    pub(crate) cache: Option<CachePolicy>,
    /// A tool's result that reports a failure (`isError: true`).
    pub(crate) tool_error: bool,
    /// What a layer asked the HTTP transport to answer with.
    pub(crate) http: Option<Box<HttpReply>>,
}

/// What the HTTP transport answers a request with, besides its JSON-RPC message, when a
/// layer says so: a status such as 429 and headers such as `Retry-After`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpReply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
}

impl Outgoing {
    /// A message sent before the response (a notification, a question to the client).
    pub(crate) fn interim(line: Vec<u8>) -> Self {
        Outgoing { line, answer: None }
    }

    /// A success response, `cache` being what its result says of caching.
    pub(crate) fn success(line: Vec<u8>, cache: Option<CachePolicy>) -> Self {
        Outgoing { line, answer: Some(Answer { cache, ..Answer::default() }) }
    }

    /// The error response `error` to the request `id` (`None`: none could be read).
    pub(crate) fn error(id: Option<&RequestId>, error: &ErrorObject) -> Self {
        Outgoing { line: error_line(id, error), answer: Some(Answer { error: Some(error.code), ..Answer::default() }) }
    }

    /// The same error response, which HTTP answers with 503 and `Retry-After: 1`: what the
    /// request needs (a shared store) is unavailable for now, and the same request may succeed
    /// once it is back.
    pub(crate) fn retry_later(mut self) -> Self {
        if let Some(answer) = &mut self.answer {
            answer.http = Some(Box::new(HttpReply { status: 503, headers: vec![("Retry-After".into(), "1".into())] }));
        }
        self
    }

    /// Whether it answers its request.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_answer(&self) -> bool {
        self.answer.is_some()
    }
}

/// A stream of one request's own (an HTTP response): its notifications and the server's
/// questions about it, then its response.
pub(crate) type RequestStream = mpsc::Sender<Outgoing>;

/// A request's own stream, made when the request first sends something before its answer:
/// most never do, and a channel costs a few kilobytes (what a 2026-07-28 request served where
/// it arrives uses; the transport takes the receiver once it is made).
#[derive(Debug, Default)]
pub(crate) struct StreamOnUse {
    sender: std::sync::OnceLock<RequestStream>,
    receiver: std::sync::Mutex<Option<mpsc::Receiver<Outgoing>>>,
}

impl StreamOnUse {
    fn sender(&self) -> &RequestStream {
        self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(16);
            *self.receiver.lock().unwrap_or_else(|e| e.into_inner()) = Some(receiver);
            sender
        })
    }

    /// Whether the request sent anything before its answer (so the stream exists).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_made(&self) -> bool {
        self.sender.get().is_some()
    }

    /// The receiving end, once the stream was made (given once).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn take_receiver(&self) -> Option<mpsc::Receiver<Outgoing>> {
        match self.sender.get() {
            None => None,
            Some(_) => self.receiver.lock().unwrap_or_else(|e| e.into_inner()).take(),
        }
    }
}

/// Where a request's notifications go: the connection's output, or the request's own stream.
#[derive(Debug, Clone)]
pub(crate) enum Outlet {
    /// The connection's output queue (stdio, a channel of the user's).
    Connection(mpsc::Sender<Vec<u8>>),
    /// The request's own stream.
    Request(RequestStream),
    /// The request's own stream, made on first use.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    OnUse(std::sync::Arc<StreamOnUse>),
    /// Nowhere: a task's handler sends no notifications (its request was answered when the
    /// task was created).
    Nowhere,
}

impl Outlet {
    /// Sends `line`, waiting while the queue is full; `false` once the other end is gone.
    pub(crate) async fn send(&self, line: Vec<u8>) -> bool {
        match self {
            Outlet::Connection(out) => out.send(line).await.is_ok(),
            Outlet::Request(stream) => stream.send(Outgoing::interim(line)).await.is_ok(),
            Outlet::OnUse(stream) => stream.sender().send(Outgoing::interim(line)).await.is_ok(),
            Outlet::Nowhere => false,
        }
    }

    /// Sends `line` if the queue has room; `false` otherwise.
    pub(crate) fn try_send(&self, line: Vec<u8>) -> bool {
        match self {
            Outlet::Connection(out) => out.try_send(line).is_ok(),
            Outlet::Request(stream) => stream.try_send(Outgoing::interim(line)).is_ok(),
            Outlet::OnUse(stream) => stream.sender().try_send(Outgoing::interim(line)).is_ok(),
            Outlet::Nowhere => false,
        }
    }
}
