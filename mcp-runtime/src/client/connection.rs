//! One connection to a server, whatever carries it: the request ids, the requests waiting for
//! their answers, and the one place every message from the server arrives
//! ([`Connection::receive`]): answers go to their requests, notifications to the readers and
//! the list cache, the server's questions to the client's handlers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::error::ClientError;
use super::handlers::Handlers;
use super::notices::{NOTIFICATION_BUFFER, Notification, Notifications, Progress, Raw};
use crate::protocol::{ErrorObject, Incoming, RequestId, classify, code, excerpt};
use crate::util::{BoxFuture, lock};

/// How a request's answer came back.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Its `result`, raw: each caller reads it as the type it expects.
    Result(Box<RawValue>),
    /// Its `error`.
    Error(ErrorObject),
    /// No answer will come: why.
    Failed(ClientError),
}

/// What carries the client's messages to the server.
#[derive(Debug)]
pub(crate) enum Link {
    /// One message per item, to a task that writes it to a process's stdin, or to a server in
    /// memory.
    Messages(Outbox),
    /// A transport whose every message is a request of its own: Streamable HTTP.
    Http(Box<dyn Wire>),
}

/// What the connection asks of a transport whose every message is a request of its own
/// (Streamable HTTP): the link reads the answer to what it sends, and hands every message
/// it reads to [`Connection::receive`].
pub(crate) trait Wire: std::any::Any + Send + Sync + std::fmt::Debug {
    /// Sends `request` and gives back its answer (which `answered` may bring instead, when the
    /// server sends it elsewhere).
    fn exchange<'a>(
        &'a self,
        connection: &'a Arc<Connection>,
        request: Exchange<'a>,
        answered: oneshot::Receiver<Outcome>,
    ) -> BoxFuture<'a, Outcome>;

    /// Sends a message that gets no answer: a notification (`method`), or a response.
    fn send_one_way<'a>(
        &'a self,
        connection: &'a Arc<Connection>,
        line: Vec<u8>,
        method: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), ClientError>>;
}

/// One request as it goes out over a [`Wire`].
pub(crate) struct Exchange<'a> {
    pub(crate) id: u64,
    pub(crate) method: &'a str,
    pub(crate) params: &'a Value,
    /// Its extra headers (2026-07-28's `Mcp-Param-*`).
    pub(crate) headers: &'a [(String, String)],
    /// The message.
    pub(crate) line: Vec<u8>,
}

/// The sending end of a message channel, which closing the client closes (whoever else still
/// holds the connection).
#[derive(Debug)]
pub(crate) struct Outbox(Mutex<Option<mpsc::Sender<Vec<u8>>>>);

impl Outbox {
    pub(crate) fn new(sender: mpsc::Sender<Vec<u8>>) -> Outbox {
        Outbox(Mutex::new(Some(sender)))
    }

    async fn send(&self, line: Vec<u8>) -> Result<(), ()> {
        let sender = lock(&self.0).clone().ok_or(())?;
        sender.send(line).await.map_err(|_| ())
    }

    fn try_send(&self, line: Vec<u8>) {
        if let Some(sender) = &*lock(&self.0) {
            let _ = sender.try_send(line);
        }
    }

    /// Closes the channel: the reader at the other end sees its end once the messages sent
    /// before are read.
    pub(crate) fn close(&self) {
        lock(&self.0).take();
    }
}

/// A request waiting for its answer.
struct Waiting {
    answer: oneshot::Sender<Outcome>,
    /// Where its `notifications/progress` go, when the caller asked for them.
    progress: Option<mpsc::Sender<Progress>>,
}

/// How one request is sent.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sending {
    /// Fail (and cancel) when no answer came within this.
    pub(crate) timeout: Option<Duration>,
    /// Ask for progress (a `progressToken`) and pass it here.
    pub(crate) progress: Option<mpsc::Sender<Progress>>,
    /// Extra HTTP headers (2026-07-28's `Mcp-Name` and `Mcp-Param-*`).
    pub(crate) headers: Vec<(String, String)>,
    /// The answer's cancellation is by closing its stream (2026-07-28 over HTTP), not by a
    /// notification.
    pub(crate) cancel_by_closing: bool,
}

/// The cached lists a `list_changed` notification drops.
#[derive(Debug, Default)]
pub(crate) struct Lists {
    pub(crate) tools: Option<Arc<Vec<crate::protocol::Tool>>>,
    /// The last tool list seen, whatever the era: where a tool's mirrored arguments are read.
    pub(crate) last_tools: Option<Arc<Vec<crate::protocol::Tool>>>,
}

/// One connection's shared state.
pub(crate) struct Connection {
    pub(crate) link: Link,
    pending: Mutex<HashMap<u64, Waiting>>,
    next_id: AtomicU64,
    /// Taken when the connection ends, so that readers see the end.
    notices: Mutex<Option<broadcast::Sender<Arc<Raw>>>>,
    pub(crate) handlers: Handlers,
    /// Why the connection ended, once it has.
    ended: Mutex<Option<String>>,
    pub(crate) lists: Mutex<Lists>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("link", &self.link)
            .field("pending", &lock(&self.pending).len())
            .field("ended", &*lock(&self.ended))
            .finish_non_exhaustive()
    }
}

/// A request on the wire.
#[derive(Serialize)]
struct RequestLine<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    params: &'a Value,
}

impl Connection {
    pub(crate) fn new(link: Link, handlers: Handlers) -> Arc<Connection> {
        let (notices, _) = broadcast::channel(NOTIFICATION_BUFFER);
        Arc::new(Connection {
            link,
            pending: Mutex::default(),
            next_id: AtomicU64::new(1),
            notices: Mutex::new(Some(notices)),
            handlers,
            ended: Mutex::default(),
            lists: Mutex::default(),
        })
    }

    /// A reader of the notifications from now on.
    pub(crate) fn notifications(&self) -> Notifications {
        match &*lock(&self.notices) {
            Some(notices) => Notifications::new(notices.subscribe()),
            // Ended: a reader that sees the end at once.
            None => Notifications::new(broadcast::channel(1).1),
        }
    }

    /// The id the next request will carry.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed)
    }

    /// Sends request `method` and waits for its answer. Dropping the future cancels the
    /// request: the server is told (`notifications/cancelled`, or the closed stream).
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &str,
        mut params: Value,
        sending: Sending,
    ) -> Result<Box<RawValue>, ClientError> {
        if let Some(why) = self.ended() {
            return Err(ClientError::Closed(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if sending.progress.is_some()
            && let Some(object) = params.as_object_mut()
        {
            let meta = object.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert("progressToken".into(), json!(id));
            }
        }
        let line = serde_json::to_vec(&RequestLine { jsonrpc: "2.0", id, method, params: &params })
            .map_err(|e| ClientError::Protocol(format!("{method}: the params cannot be written: {e}")))?;
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, Waiting { answer, progress: sending.progress.clone() });
        let mut unanswered = Unanswered { connection: self, id, armed: !sending.cancel_by_closing };
        let exchange = async {
            match &self.link {
                Link::Messages(outbox) => {
                    if outbox.send(line).await.is_err() {
                        return Outcome::Failed(ClientError::Closed(self.why_ended()));
                    }
                    answered.await.unwrap_or_else(|_| Outcome::Failed(ClientError::Closed(self.why_ended())))
                }
                Link::Http(wire) => {
                    let request = Exchange { id, method, params: &params, headers: &sending.headers, line };
                    wire.exchange(self, request, answered).await
                }
            }
        };
        let outcome = match sending.timeout {
            Some(after) => match tokio::time::timeout(after, exchange).await {
                Ok(outcome) => outcome,
                // `unanswered` tells the server as it drops.
                Err(_) => return Err(ClientError::Timeout { method: method.to_owned(), after }),
            },
            None => exchange.await,
        };
        unanswered.armed = false;
        lock(&self.pending).remove(&id);
        match outcome {
            Outcome::Result(result) => Ok(result),
            Outcome::Error(error) => Err(ClientError::Rpc { method: method.to_owned(), error }),
            Outcome::Failed(error) => Err(error),
        }
    }

    /// Sends notification `method`.
    pub(crate) async fn notify(self: &Arc<Self>, method: &str, params: Value) -> Result<(), ClientError> {
        let line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.send_line(line, Some(method)).await
    }

    /// Sends one message that gets no answer: a notification (`method`), or a response to
    /// the server (`None`).
    pub(crate) async fn send_line(self: &Arc<Self>, line: Vec<u8>, method: Option<&str>) -> Result<(), ClientError> {
        match &self.link {
            Link::Messages(outbox) => outbox.send(line).await.map_err(|_| ClientError::Closed(self.why_ended())),
            Link::Http(wire) => wire.send_one_way(self, line, method).await,
        }
    }

    /// Handles one message from the server.
    pub(crate) fn receive(self: &Arc<Self>, text: &str) {
        match classify(text) {
            Incoming::Response { id, result, error } => self.answer(id, result, error),
            Incoming::Notification(notification) => {
                let params =
                    notification.params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or(Value::Null);
                self.notified(&notification.method, params);
            }
            Incoming::Request(request) => {
                let params = request.params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or(json!({}));
                self.asked(request.id, &request.method, params);
            }
            Incoming::BadNotification(reason) => tracing::warn!("the server sent a malformed notification: {reason}"),
            Incoming::Invalid(_, error) => {
                tracing::warn!("the server sent what is not a JSON-RPC message ({}): {}", error.message, excerpt(text));
            }
        }
    }

    fn answer(&self, id: Option<RequestId>, result: Option<&RawValue>, error: Option<&RawValue>) {
        let number = match &id {
            Some(RequestId::Number(n)) => n.as_u64(),
            _ => None,
        };
        let Some(waiting) = number.and_then(|n| lock(&self.pending).remove(&n)) else {
            tracing::warn!("the server answered a request this client is not waiting for (id {id:?})");
            return;
        };
        let outcome = match (result, error) {
            (_, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
                Ok(error) => Outcome::Error(error),
                Err(e) => Outcome::Failed(ClientError::Protocol(format!(
                    "the server answered with an error object that is not one ({e}): {}",
                    excerpt(error.get())
                ))),
            },
            (Some(result), None) => Outcome::Result(result.to_owned()),
            (None, None) => Outcome::Failed(ClientError::Protocol("an answer with neither result nor error".into())),
        };
        let _ = waiting.answer.send(outcome);
    }

    fn notified(&self, method: &str, params: Value) {
        match method {
            "notifications/progress" => {
                let token = params["progressToken"].as_u64();
                let progress = token.and_then(|t| lock(&self.pending).get(&t).and_then(|w| w.progress.clone()));
                if let (Some(progress), Notification::Progress(report)) =
                    (progress, Notification::read(method, params.clone()))
                {
                    // A caller that does not read its progress loses the newest, not memory.
                    let _ = progress.try_send(report);
                }
            }
            "notifications/tools/list_changed" => {
                let mut lists = lock(&self.lists);
                lists.tools = None;
                lists.last_tools = None;
            }
            _ => {}
        }
        if let Some(notices) = &*lock(&self.notices) {
            let _ = notices.send(Arc::new(Raw { method: method.to_owned(), params }));
        }
    }

    /// Answers a request the server sent with the client's handler for it.
    fn asked(self: &Arc<Self>, id: RequestId, method: &str, params: Value) {
        let handler = if method == "ping" { None } else { self.handlers.for_method(method).cloned() };
        let connection = Arc::clone(self);
        let method = method.to_owned();
        tokio::spawn(async move {
            let answer = match handler {
                Some(handler) => handler(params).await,
                None if method == "ping" => Ok(json!({})),
                None => Err(ErrorObject::new(
                    code::METHOD_NOT_FOUND,
                    format!("this client does not answer `{}`", excerpt(&method)),
                )),
            };
            let line = match answer {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            if let Err(e) = connection.send_line(line.to_string().into_bytes(), None).await {
                tracing::debug!("the answer to the server's {method} was not delivered: {e}");
            }
        });
    }

    /// Ends the connection: every pending request fails with `why`, and readers of
    /// notifications see the end. Only the first reason counts.
    pub(crate) fn end(&self, why: String) {
        {
            let mut ended = lock(&self.ended);
            if ended.is_some() {
                return;
            }
            *ended = Some(why.clone());
        }
        lock(&self.notices).take();
        let waiting: Vec<Waiting> = lock(&self.pending).drain().map(|(_, w)| w).collect();
        for waiting in waiting {
            let _ = waiting.answer.send(Outcome::Failed(ClientError::Closed(why.clone())));
        }
    }

    /// Why the connection ended, if it has.
    pub(crate) fn ended(&self) -> Option<String> {
        lock(&self.ended).clone()
    }

    fn why_ended(&self) -> String {
        self.ended().unwrap_or_else(|| "the server stopped reading".to_owned())
    }

    /// Whether request `id` still waits for its answer.
    pub(crate) fn is_waiting(&self, id: u64) -> bool {
        lock(&self.pending).contains_key(&id)
    }
}

/// Cancels a request whose future is dropped (or timed out) before its answer came.
struct Unanswered<'a> {
    connection: &'a Arc<Connection>,
    id: u64,
    armed: bool,
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        let was_waiting = lock(&self.connection.pending).remove(&self.id).is_some();
        if !self.armed || !was_waiting || self.connection.ended().is_some() {
            return;
        }
        let notice = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client stopped waiting"},
        });
        let line = notice.to_string().into_bytes();
        match &self.connection.link {
            Link::Messages(outbox) => outbox.try_send(line),
            Link::Http(_) => {
                // A POST takes a task: dropped outside a runtime, the server is not told.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let connection = Arc::clone(self.connection);
                    runtime.spawn(async move {
                        let _ = connection.send_line(line, Some("notifications/cancelled")).await;
                    });
                }
            }
        }
    }
}
