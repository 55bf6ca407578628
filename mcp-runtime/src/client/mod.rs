//! A client of MCP servers (feature `client`): one [`Client`] over a spawned command's stdio,
//! Streamable HTTP, or a [`Server`](crate::Server) in memory, in either era, with typed calls.
//!
//! ```
//! use mcp_runtime::client::Client;
//! use mcp_runtime::{Json, Server, mcp_tool};
//!
//! /// Adds two integers.
//! #[mcp_tool]
//! fn add(a: i64, b: i64) -> Json<i64> {
//!     Json(a + b)
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_runtime::client::ClientError> {
//! let client = Client::builder().memory(Server::builder("calc", "1").tool(add)).await?;
//! println!("speaking {}", client.negotiation().revision);
//! let tools = client.list_tools().await?;
//! assert_eq!(tools[0].name, "add");
//! let sum: i64 = client.call_tool_as("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! assert_eq!(sum, 5);
//! client.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! [`ClientBuilder::spawn`] runs a server and talks to it over stdio, [`ClientBuilder::http`]
//! reaches a URL. [`Era::Auto`] (the default) asks `server/discover` first and falls back to
//! `initialize`; what was agreed is [`Client::negotiation`], and a method whose capability the
//! server did not declare is refused before it is sent ([`ClientError::NotDeclared`]).
//!
//! The server's questions (elicitation, sampling, roots) go to the handlers given to the
//! builder, in both eras: a request the server sends (handshake revisions), or the
//! input-required result of 2026-07-28, which the client answers and retries, bounded in
//! rounds. Notifications arrive on [`Client::notifications`].

mod auth;
pub(crate) mod builder;
mod calls;
mod connection;
mod error;
mod handlers;
mod negotiate;
mod notices;
mod proxy;
#[cfg(feature = "testing")]
pub(crate) mod schema_check;
mod skills;
mod tasks;
mod transport;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

pub use auth::{MAX_AUTHORIZATIONS, OAuth, UserAgent};
pub use builder::{ClientBuilder, DEFAULT_MAX_ROUNDS};
pub use calls::{CallOptions, ProgressReports};
pub use error::ClientError;
pub use handlers::{Answer, schema_defaults};
pub use negotiate::{Era, Negotiation, Step};
pub use notices::{NOTIFICATION_BUFFER, Notification, Notifications, Progress};
pub use skills::{SkillEntry, SkillFile};
pub use transport::sse::{Event as SseEvent, SseReader};
pub use transport::stdio::Stderr;

use crate::util::lock;
use connection::{Connection, Link, Sending};
use transport::http::http_of;
use transport::stdio::Process;

use crate::protocol::{Feature, Revision};

/// The HTTP client the client's connections use (HTTPS with feature `tls`, no redirect
/// followed, no overall timeout), for tools that send a server raw requests of their own, as
/// the `mcp doctor` does.
pub fn http_client() -> Result<reqwest::Client, ClientError> {
    crate::util::http_client::for_streams().map_err(ClientError::Transport)
}

/// A connection to one MCP server.
///
/// Cheap to clone (clones share the connection); every method may run concurrently with the
/// others. Dropping a call's future cancels the request (the server is sent
/// `notifications/cancelled`, or, over 2026-07-28 HTTP, the response stream closes).
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    connection: Arc<Connection>,
    negotiation: Negotiation,
    /// The `_meta` every 2026-07-28 request carries (but the log level), made once: who the
    /// client is and what it offers do not change once connected. Empty before 2026-07-28.
    meta: serde_json::Map<String, Value>,
    timeout: Option<Duration>,
    max_rounds: usize,
    /// The level asked with `set_log_level` (sent in each request's `_meta` in 2026-07-28).
    log_level: Mutex<Option<crate::protocol::LogLevel>>,
    /// What closing waits for; taken by the first close.
    ending: tokio::sync::Mutex<Option<Ending>>,
}

/// What is left to stop when the client closes.
#[derive(Debug)]
enum Ending {
    /// A server in memory: its task, whose result closing returns.
    Memory(tokio::task::JoinHandle<crate::Result<()>>),
    /// A child process: its exit.
    Process(Process),
    /// An HTTP session: deleted.
    Http,
}

impl Client {
    /// A builder: who the client is, its era, its handlers, then where it connects.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Connects to `server` in memory with the defaults.
    pub async fn memory(server: crate::Server) -> Result<Client, ClientError> {
        Client::builder().memory(server).await
    }

    /// Runs `program` with `args` and connects over stdio with the defaults.
    pub async fn spawn<I, S>(program: &str, args: I) -> Result<Client, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        Client::builder().spawn(program, args).await
    }

    /// Connects to the Streamable HTTP endpoint at `url` with the defaults.
    pub async fn http(url: &str) -> Result<Client, ClientError> {
        Client::builder().http(url).await
    }

    /// What was agreed connecting: the revision, the server's info, capabilities and
    /// instructions.
    pub fn negotiation(&self) -> &Negotiation {
        &self.inner.negotiation
    }

    /// The revision in use.
    pub fn revision(&self) -> Revision {
        self.inner.negotiation.revision
    }

    /// A reader of the server's notifications from now on (see [`Notifications`]).
    pub fn notifications(&self) -> Notifications {
        self.inner.connection.notifications()
    }

    /// Why the connection ended (the server exited, the session expired), if it has.
    pub fn ended(&self) -> Option<String> {
        self.inner.connection.ended()
    }

    /// Sends request `method` with `params` (an object, or `null` for none) and returns its
    /// result, raw: for methods the typed calls do not cover, and for proxies. Nothing is
    /// checked against the server's capabilities; in 2026-07-28 the request carries its
    /// `_meta`, and an input-required result is answered by the client's handlers and
    /// retried (or returned as it is when a question has no handler).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.typed(method, params).await
    }

    /// Like [`request`](Self::request), failing after `timeout` (and cancelling the request).
    pub async fn request_within(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, ClientError> {
        self.typed_with(method, params, Sending { timeout: Some(timeout), ..Sending::default() }).await
    }

    /// Sends the notification `method` with `params`, as they are.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        self.inner.connection.notify(method, params).await
    }

    /// The id the next request will carry (ids count up from 1): taken just before
    /// [`request`](Self::request), what a `notifications/cancelled` names.
    pub fn next_request_id(&self) -> u64 {
        self.inner.connection.next_id()
    }

    /// Closes the connection: a spawned server's stdin is closed and its exit awaited (killed
    /// after a grace period), an HTTP session deleted, a server in memory stopped. Its error
    /// if a server in memory stopped with one. Other clones of this client fail from then on.
    pub async fn close(&self) -> Result<(), ClientError> {
        let ending = self.inner.ending.lock().await.take();
        match ending {
            Some(Ending::Memory(serving)) => {
                close_link(&self.inner.connection);
                let served = serving.await.map_err(|e| ClientError::Closed(format!("the server task failed: {e}")))?;
                self.inner.connection.end("the client closed the connection".into());
                served.map_err(|e| ClientError::Closed(format!("the server stopped with an error: {e}")))
            }
            Some(ending) => {
                Client::end(&self.inner.connection, ending, "the client closed the connection").await;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Stops what `ending` names and ends the connection with `why`.
    async fn end(connection: &Arc<Connection>, ending: Ending, why: &str) {
        close_link(connection);
        match ending {
            Ending::Memory(serving) => {
                let _ = serving.await;
            }
            Ending::Process(mut process) => {
                let _ = process.wait().await;
            }
            Ending::Http => {
                if let Some(http) = http_of(connection) {
                    http.close().await;
                }
            }
        }
        connection.end(why.to_owned());
    }

    /// Sends `method` as this client's revision has it (2026-07-28's `_meta`, the client's
    /// timeout), answering input-required results, until the result is final.
    async fn send(&self, method: &str, params: Value, mut sending: Sending) -> Result<Box<RawValue>, ClientError> {
        let stateless = self.revision().supports(Feature::Stateless);
        if sending.timeout.is_none() {
            sending.timeout = self.inner.timeout;
        }
        sending.cancel_by_closing = stateless && http_of(&self.inner.connection).is_some();
        if !stateless {
            return self.inner.connection.request(method, params, sending).await;
        }
        let mut retry = params.clone();
        for _ in 0..self.inner.max_rounds {
            let raw = self.inner.connection.request(method, self.with_meta(retry), sending.clone()).await?;
            // Read only when it may be one: most results are final.
            if !raw.get().contains("\"input_required\"") || !self.inner.connection.handlers.any() {
                return Ok(raw);
            }
            let result: Value = serde_json::from_str(raw.get()).map_err(|e| ClientError::shape(method, e))?;
            if result["resultType"] != "input_required" {
                return Ok(raw);
            }
            let Some(responses) = self.answer_all(&result["inputRequests"]).await? else { return Ok(raw) };
            retry = params.clone();
            if let Some(object) = retry.as_object_mut() {
                object.insert("inputResponses".into(), Value::Object(responses));
                if let Some(state) = result.get("requestState") {
                    object.insert("requestState".into(), state.clone());
                }
            }
        }
        Err(ClientError::Protocol(format!("{method} still asked for input after {} rounds", self.inner.max_rounds)))
    }

    /// The answers to every question of an input-required result, by key; `None` when one has
    /// no handler (the result is then returned as it is).
    async fn answer_all(&self, requests: &Value) -> Result<Option<serde_json::Map<String, Value>>, ClientError> {
        let requests = requests.as_object().ok_or_else(|| {
            ClientError::Protocol(format!("an input-required result without inputRequests: {requests}"))
        })?;
        let mut responses = serde_json::Map::new();
        for (key, question) in requests {
            let asked = question["method"].as_str().unwrap_or_default();
            let Some(handler) = self.inner.connection.handlers.for_method(asked) else { return Ok(None) };
            let params = question.get("params").cloned().unwrap_or(Value::Object(serde_json::Map::new()));
            let answer = handler(params).await.map_err(|error| ClientError::Rpc { method: asked.to_owned(), error })?;
            responses.insert(key.clone(), answer);
        }
        Ok(Some(responses))
    }

    /// `params` with the per-request `_meta` of 2026-07-28.
    fn with_meta(&self, mut params: Value) -> Value {
        if params.is_null() {
            params = Value::Object(serde_json::Map::new());
        }
        let level = *lock(&self.inner.log_level);
        if let Some(object) = params.as_object_mut() {
            let own = object.entry("_meta").or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Some(own) = own.as_object_mut() {
                own.extend(self.inner.meta.iter().map(|(k, v)| (k.clone(), v.clone())));
                if let Some(level) = level {
                    own.insert(negotiate::LOG_LEVEL.into(), Value::from(level.as_str()));
                }
            }
        }
        params
    }
}

/// Closes what carries messages to the server, whoever else holds the connection.
fn close_link(connection: &Connection) {
    if let Link::Messages(outbox) = &connection.link {
        outbox.close();
    }
}
