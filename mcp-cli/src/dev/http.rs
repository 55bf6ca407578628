//! `mcp dev --http ADDR`: Streamable HTTP in front of the proxies. A handshake session gets a
//! proxy (and a run of the server) of its own; 2026-07-28's requests share one. Answers go
//! back as the POST's JSON; what the server says besides goes on the session's GET stream
//! (kept for it until the stream opens), or on the `subscriptions/listen` stream it is tagged
//! for. Request ids are made unique across clients on the way in and restored on the way out.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::builds::Builds;
use super::proxy::{Outlet, Proxy};
use super::{Event, Launch};
use crate::connect::Failure;

/// How long a request may wait for its answer.
const PATIENCE: Duration = Duration::from_secs(600);

/// How many messages wait for a session's GET stream to open.
const BACKLOG: usize = 1000;

/// Where the subscription id of a 2026-07-28 listen stream's messages is.
const SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

/// Serves the proxies over Streamable HTTP at `addr` until the process is stopped.
pub(crate) async fn serve(addr: &str, launch: Launch, builds: Builds) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::Usage(format!("`--http {addr}`: cannot listen there: {e}")))?;
    let local = listener.local_addr().map_err(Failure::failed)?;
    eprintln!("mcp dev: serving Streamable HTTP at http://{local}/mcp");
    let front = Arc::new(Front {
        launch,
        builds,
        sessions: Mutex::default(),
        stateless: Mutex::default(),
        ids: AtomicU64::new(0),
    });
    let router = Router::new().route("/mcp", post(on_post).get(on_get).delete(on_delete)).with_state(front);
    axum::serve(listener, router).await.map_err(Failure::failed)
}

#[derive(Debug)]
struct Front {
    launch: Launch,
    builds: Builds,
    sessions: Mutex<HashMap<String, Arc<Client>>>,
    /// The proxy of 2026-07-28's requests, made on the first.
    stateless: Mutex<Option<Arc<Client>>>,
    ids: AtomicU64,
}

/// One proxy as the front sees it: where its events go, and who waits for what it says.
#[derive(Debug)]
struct Client {
    events: mpsc::UnboundedSender<Event>,
    /// Requests waiting for their answer, by the id the proxy saw (as JSON text).
    waiting: Mutex<HashMap<String, (Value, oneshot::Sender<Value>)>>,
    /// Open listen streams, by the id the proxy saw: the client's own id, and the stream.
    listens: Mutex<HashMap<String, (Value, mpsc::UnboundedSender<Value>)>>,
    /// The client's ids of requests in flight (as JSON text) → the ids the proxy saw.
    renamed: Mutex<HashMap<String, Value>>,
    /// The session's GET stream, and what waits for it.
    stream: Mutex<Option<mpsc::UnboundedSender<Value>>>,
    backlog: Mutex<VecDeque<Value>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Front {
    /// A new proxy with a run of its own, and the task that hands out what it says.
    fn client(&self) -> Arc<Client> {
        let (outgoing, mut said) = mpsc::unbounded_channel();
        let (mut proxy, events) = Proxy::new(self.launch.clone(), Outlet::Channel(outgoing));
        self.builds.subscribe(events.clone());
        if self.launch.binary.exists() {
            proxy.start_first();
        }
        tokio::spawn(async move { proxy.serve().await });
        let client = Arc::new(Client {
            events,
            waiting: Mutex::default(),
            listens: Mutex::default(),
            renamed: Mutex::default(),
            stream: Mutex::default(),
            backlog: Mutex::default(),
        });
        let weak = Arc::downgrade(&client);
        tokio::spawn(async move {
            while let Some(message) = said.recv().await {
                let Some(client) = weak.upgrade() else { return };
                client.hand_out(message);
            }
        });
        client
    }
}

impl Client {
    /// Gives a message of the proxy to whoever waits for it.
    fn hand_out(&self, mut message: Value) {
        let id = message.get("id").map(Value::to_string);
        if message.get("method").is_none()
            && let Some(id) = &id
        {
            if let Some((original, waiter)) = lock(&self.waiting).remove(id) {
                lock(&self.renamed).remove(&original.to_string());
                message["id"] = original;
                let _ = waiter.send(message);
            } else if let Some((original, stream)) = lock(&self.listens).remove(id) {
                message["id"] = original;
                let _ = stream.send(message);
            }
            return;
        }
        let subscription = message["params"]["_meta"][SUBSCRIPTION].to_string();
        if let Some((original, stream)) = lock(&self.listens).get(&subscription) {
            message["params"]["_meta"][SUBSCRIPTION] = original.clone();
            let _ = stream.send(message);
            return;
        }
        let mut stream = lock(&self.stream);
        if let Some(open) = stream.as_ref() {
            match open.send(message) {
                Ok(()) => return,
                Err(unsent) => {
                    *stream = None;
                    message = unsent.0;
                }
            }
        }
        let mut backlog = lock(&self.backlog);
        if backlog.len() == BACKLOG {
            backlog.pop_front();
        }
        backlog.push_back(message);
    }
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn refuse(status: StatusCode, message: &str) -> Response {
    json_response(status, &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}}))
}

/// An event stream of `messages`, open until the sender goes.
fn event_stream(messages: mpsc::UnboundedReceiver<Value>) -> Response {
    let events = futures_util::stream::unfold(messages, |mut messages| async move {
        let message = messages.recv().await?;
        Some((Ok::<_, Infallible>(format!("event: message\ndata: {message}\n\n")), messages))
    });
    let mut response = Body::from_stream(events).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A browser page elsewhere must not reach the server (DNS rebinding): loopback origins only.
fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else { return false };
    let host = origin.strip_prefix("http://").or(origin.strip_prefix("https://")).unwrap_or(origin);
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    !matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

fn session_of(headers: &HeaderMap) -> Option<String> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned)
}

async fn on_post(State(front): State<Arc<Front>>, headers: HeaderMap, body: Bytes) -> Response {
    if foreign_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Forbidden: the Origin is not a loopback one");
    }
    let Ok(mut message) = serde_json::from_slice::<Value>(&body) else {
        let error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
        return json_response(StatusCode::BAD_REQUEST, &error);
    };
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    let stateless = message["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some();
    let mut minted = None;
    let client = if method == "initialize" {
        let id = format!("{:032x}", rand_id());
        let client = front.client();
        lock(&front.sessions).insert(id.clone(), client.clone());
        minted = Some(id);
        client
    } else if let Some(id) = session_of(&headers) {
        match lock(&front.sessions).get(&id) {
            Some(client) => client.clone(),
            None => return refuse(StatusCode::NOT_FOUND, "Session not found"),
        }
    } else if stateless {
        lock(&front.stateless).get_or_insert_with(|| front.client()).clone()
    } else {
        return refuse(StatusCode::BAD_REQUEST, "Bad Request: no session (send initialize first)");
    };
    let Some(original) = message.get("id").cloned().filter(|_| !method.is_empty()) else {
        // A notification, or the client's answer to the server: passed on as it is, but a
        // cancellation names the request by the id the proxy saw.
        if method == "notifications/cancelled"
            && let Some(renamed) = lock(&client.renamed).get(&message["params"]["requestId"].to_string())
        {
            message["params"]["requestId"] = renamed.clone();
        }
        let _ = client.events.send(Event::Client(message.to_string()));
        return StatusCode::ACCEPTED.into_response();
    };
    let renamed = json!(format!("h{}", front.ids.fetch_add(1, Ordering::Relaxed)));
    message["id"] = renamed.clone();
    lock(&client.renamed).insert(original.to_string(), renamed.clone());
    if method == "subscriptions/listen" {
        let (stream, messages) = mpsc::unbounded_channel();
        lock(&client.listens).insert(renamed.to_string(), (original, stream));
        let _ = client.events.send(Event::Client(message.to_string()));
        return event_stream(messages);
    }
    let (waiter, answer) = oneshot::channel();
    lock(&client.waiting).insert(renamed.to_string(), (original, waiter));
    let _ = client.events.send(Event::Client(message.to_string()));
    match tokio::time::timeout(PATIENCE, answer).await {
        Ok(Ok(answer)) => {
            let mut response = json_response(StatusCode::OK, &answer);
            if let Some(id) = minted.and_then(|id| HeaderValue::from_str(&id).ok()) {
                response.headers_mut().insert("mcp-session-id", id);
            }
            response
        }
        _ => refuse(StatusCode::GATEWAY_TIMEOUT, "the server did not answer"),
    }
}

async fn on_get(State(front): State<Arc<Front>>, headers: HeaderMap) -> Response {
    if foreign_origin(&headers) {
        return refuse(StatusCode::FORBIDDEN, "Forbidden: the Origin is not a loopback one");
    }
    let Some(client) = session_of(&headers).and_then(|id| lock(&front.sessions).get(&id).cloned()) else {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    let (stream, messages) = mpsc::unbounded_channel();
    for waiting in lock(&client.backlog).drain(..) {
        let _ = stream.send(waiting);
    }
    *lock(&client.stream) = Some(stream);
    event_stream(messages)
}

async fn on_delete(State(front): State<Arc<Front>>, headers: HeaderMap) -> Response {
    match session_of(&headers).and_then(|id| lock(&front.sessions).remove(&id)) {
        Some(client) => {
            let _ = client.events.send(Event::ClientClosed);
            StatusCode::OK.into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A session id no one can guess from the ones before it.
fn rand_id() -> u128 {
    let mut bytes = [0u8; 16];
    // Linux's getrandom does not fail once the system is up; the id is then all zeroes.
    let _ = getrandom::fill(&mut bytes);
    u128::from_le_bytes(bytes)
}
