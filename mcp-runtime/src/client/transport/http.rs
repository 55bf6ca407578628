//! Streamable HTTP as a client speaks it: each message its own POST, answered with JSON or
//! an SSE stream (followed, and resumed with `Last-Event-ID` after the server's `retry` when
//! it closes before the answer); `Mcp-Session-Id` kept from `initialize`; a GET stream for
//! what the server sends unasked; DELETE on close. In 2026-07-28 each request also carries
//! `Mcp-Method` (and `Mcp-Name`, `Mcp-Param-*` where the method has them).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::sse::SseReader;
use crate::client::auth::{Authorizer, OAuth};
use crate::client::connection::{Connection, Exchange, Link, Outcome, Wire};
use crate::client::error::ClientError;
use crate::protocol::excerpt;
use crate::util::{BoxFuture, lock};

/// How long to wait before resuming a stream when the server did not say (`retry`).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// How long the GET stream may take to open before the client goes on without it.
const LISTEN_PATIENCE: Duration = Duration::from_secs(5);

/// How many times in a row a stream is resumed without receiving anything before the
/// request fails.
const MAX_RESUMPTIONS: usize = 5;

/// The HTTP side of one connection.
#[derive(Debug)]
pub(crate) struct HttpLink {
    http: reqwest::Client,
    url: reqwest::Url,
    /// Headers the application asked for on every request.
    headers: HeaderMap,
    /// `Mcp-Session-Id`, once `initialize` was answered with one.
    session: Mutex<Option<HeaderValue>>,
    /// `MCP-Protocol-Version`, once negotiated.
    version: Mutex<Option<&'static str>>,
    /// 2026-07-28: cancellation by closing the stream.
    stateless: AtomicBool,
    /// `Authorization: Bearer ...`, given.
    bearer: Mutex<Option<String>>,
    /// Or obtained by the OAuth flow, on the server's 401.
    auth: Option<Arc<Authorizer>>,
    /// The GET stream's task, if one is open.
    listening: Mutex<Option<JoinHandle<()>>>,
}

/// Where an answer is read from.
enum Body {
    Json(Response),
    Stream(Response),
}

impl HttpLink {
    pub(crate) fn new(
        url: &str,
        headers: HeaderMap,
        bearer: Option<String>,
        oauth: Option<OAuth>,
    ) -> Result<HttpLink, ClientError> {
        let url = reqwest::Url::parse(url).map_err(|e| ClientError::Transport(format!("not a URL: {url}: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ClientError::Transport(format!("not an http:// or https:// URL: {url}")));
        }
        let auth = oauth.map(|oauth| Authorizer::new(oauth, url.clone()).map(Arc::new)).transpose()?;
        Ok(HttpLink {
            auth,
            http: crate::util::http_client::for_streams().map_err(ClientError::Transport)?,
            url,
            headers,
            session: Mutex::default(),
            version: Mutex::default(),
            stateless: AtomicBool::new(false),
            bearer: Mutex::new(bearer),
            listening: Mutex::default(),
        })
    }

    /// From now on, requests carry `MCP-Protocol-Version: revision` (and, in 2026-07-28,
    /// `Mcp-Method`).
    pub(crate) fn negotiated(&self, revision: crate::protocol::Revision) {
        *lock(&self.version) = Some(revision.as_str());
        self.stateless.store(revision.supports(crate::protocol::Feature::Stateless), Ordering::Relaxed);
    }

    /// Back to no revision (after a `server/discover` the server did not answer as one of
    /// 2026-07-28).
    pub(crate) fn forget_version(&self) {
        *lock(&self.version) = None;
        self.stateless.store(false, Ordering::Relaxed);
    }

    /// Whether a session id was given.
    pub(crate) fn has_session(&self) -> bool {
        lock(&self.session).is_some()
    }

    /// Sends request `id` and reads its answer from the POST's response (or, when that closes
    /// first, from the resumed stream).
    pub(crate) async fn exchange(
        &self,
        connection: &Arc<Connection>,
        request: Exchange<'_>,
        mut answered: oneshot::Receiver<Outcome>,
    ) -> Outcome {
        let Exchange { id, method, params, headers, line } = request;
        let response = match self.post(Some((method, params)), headers, line).await {
            Ok(response) => response,
            Err(e) => return Outcome::Failed(e),
        };
        if method == "initialize"
            && let Some(session) = response.headers().get("mcp-session-id")
        {
            *lock(&self.session) = Some(session.clone());
        }
        let body = match self.classify(connection, method, response).await {
            Ok(Some(body)) => body,
            // Accepted with no body: the answer comes on the GET stream.
            Ok(None) => return answered.await.unwrap_or_else(|_| closed(connection)),
            Err(outcome) => return outcome,
        };
        match body {
            Body::Json(response) => {
                let text = match response.text().await {
                    Ok(text) => text,
                    Err(e) => {
                        return Outcome::Failed(ClientError::Transport(format!("{method}: reading the answer: {e}")));
                    }
                };
                deliver(connection, &text);
                answered.try_recv().unwrap_or_else(|_| {
                    Outcome::Failed(ClientError::Protocol(format!(
                        "{method}: the server's JSON answer does not answer request {id}: {}",
                        excerpt(&text)
                    )))
                })
            }
            Body::Stream(response) => self.follow(connection, id, method, response, answered).await,
        }
    }

    /// Reads an SSE answer until the request's answer arrives, resuming the stream when the
    /// server closes it first (as long as it gave the events ids).
    async fn follow(
        &self,
        connection: &Arc<Connection>,
        id: u64,
        method: &str,
        mut response: Response,
        mut answered: oneshot::Receiver<Outcome>,
    ) -> Outcome {
        let mut reader = SseReader::default();
        let mut fruitless = 0;
        loop {
            tokio::select! {
                biased;
                outcome = &mut answered => return outcome.unwrap_or_else(|_| closed(connection)),
                chunk = response.chunk() => match chunk {
                    Ok(Some(bytes)) => {
                        fruitless = 0;
                        reader.feed(&bytes, |event| deliver(connection, &event.data));
                    }
                    Ok(None) | Err(_) => {
                        if !connection.is_waiting(id) {
                            continue;
                        }
                        let Some(last) = reader.last_id.clone() else {
                            return Outcome::Failed(ClientError::Protocol(format!(
                                "{method}: the server closed the response stream before answering, \
                                 and gave no event id to resume from"
                            )));
                        };
                        fruitless += 1;
                        if fruitless > MAX_RESUMPTIONS {
                            return Outcome::Failed(ClientError::Transport(format!(
                                "{method}: the response stream closed {MAX_RESUMPTIONS} times without the answer"
                            )));
                        }
                        tokio::time::sleep(reader.retry_ms.map_or(DEFAULT_RETRY, Duration::from_millis)).await;
                        response = match self.get(Some(&last)).await {
                            Ok(resumed) if resumed.status().is_success() => resumed,
                            Ok(refused) => {
                                return Outcome::Failed(ClientError::Transport(format!(
                                    "{method}: resuming the response stream was refused (HTTP {})",
                                    refused.status()
                                )));
                            }
                            Err(e) => return Outcome::Failed(e),
                        };
                    }
                },
            }
        }
    }

    /// What a POST's response holds: JSON, a stream, nothing (202), or the outcome it already
    /// is (an HTTP error, which may carry a JSON-RPC error for the request).
    async fn classify(
        &self,
        connection: &Arc<Connection>,
        method: &str,
        response: Response,
    ) -> Result<Option<Body>, Outcome> {
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or_default().trim().to_ascii_lowercase())
            .unwrap_or_default();
        if status == StatusCode::ACCEPTED {
            return Ok(None);
        }
        if status.is_success() {
            return match content_type.as_str() {
                "application/json" => Ok(Some(Body::Json(response))),
                "text/event-stream" => Ok(Some(Body::Stream(response))),
                other => Err(Outcome::Failed(ClientError::Protocol(format!(
                    "{method}: the server answered with `{other}`, neither JSON nor an event stream"
                )))),
            };
        }
        let challenge = response.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let had_session = self.has_session();
        let text = response.text().await.unwrap_or_default();
        // An HTTP error that carries the JSON-RPC error is that error.
        if content_type == "application/json"
            && serde_json::from_str::<Value>(&text).is_ok_and(|v| v.get("error").is_some())
        {
            return Err(Outcome::Failed(rpc_error_of(method, &text)));
        }
        let failure = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ClientError::Auth(format!(
                "{method}: HTTP {status}{}",
                challenge.map(|c| format!(" ({c})")).unwrap_or_default()
            )),
            StatusCode::NOT_FOUND if had_session => ClientError::Closed(end_session(connection)),
            _ => ClientError::Transport(format!("{method}: HTTP {status}: {}", excerpt(&text))),
        };
        Err(Outcome::Failed(failure))
    }

    /// POSTs a message that gets no answer (a notification, or a response to the server).
    pub(crate) async fn post_one_way(
        &self,
        connection: &Arc<Connection>,
        line: Vec<u8>,
        method: Option<&str>,
    ) -> Result<(), ClientError> {
        let response = self.post(method.map(|m| (m, &Value::Null)), &[], line).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        if status == StatusCode::NOT_FOUND && self.has_session() {
            end_session(connection);
        }
        let text = response.text().await.unwrap_or_default();
        Err(ClientError::Transport(format!("HTTP {status}: {}", excerpt(&text))))
    }

    /// One POST of `line`; `request` is the method and params of a request or notification
    /// (for the `Mcp-Method` and `Mcp-Name` headers, sent in every era: they cost an old
    /// server nothing and let a gateway route), `None` for a response.
    async fn post(
        &self,
        request: Option<(&str, &Value)>,
        extra: &[(String, String)],
        line: Vec<u8>,
    ) -> Result<Response, ClientError> {
        // Built anew for each send, with the token of the moment.
        let build = || {
            let mut post = self
                .request(Method::POST)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json, text/event-stream");
            if let Some((method, params)) = request {
                post = post.header("mcp-method", method);
                if let Some(name) = named(method, params) {
                    post = post.header("mcp-name", header_value(name));
                }
            }
            for (name, value) in extra {
                post = post.header(name.as_str(), value.as_str());
            }
            post
        };
        let Some(auth) = &self.auth else {
            return build().body(line).send().await.map_err(|e| transport_error(&self.url, e));
        };
        // The body is kept until the server takes it: it is sent again with each new token.
        let mut response = build().body(line.clone()).send().await.map_err(|e| transport_error(&self.url, e))?;
        while let Some((status, challenge, nonce)) = self.refusal(&response) {
            let sent = self.sent_authorization();
            auth.refused(status, challenge.as_deref(), sent.as_deref(), nonce.as_deref()).await?;
            response = build().body(line.clone()).send().await.map_err(|e| transport_error(&self.url, e))?;
        }
        if response.status().is_success() {
            auth.succeeded();
        }
        Ok(response)
    }

    /// The status and challenge of a response that asks for (another) token.
    /// The status, the challenge and any DPoP nonce of a response that asks for (another)
    /// token.
    fn refusal(&self, response: &Response) -> Option<(u16, Option<String>, Option<String>)> {
        let status = response.status();
        if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
            return None;
        }
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        Some((status.as_u16(), header("www-authenticate"), header("dpop-nonce")))
    }

    /// The `Authorization` this link sends now.
    fn sent_authorization(&self) -> Option<String> {
        match &self.auth {
            Some(auth) => auth.header(),
            None => lock(&self.bearer).as_ref().map(|token| format!("Bearer {token}")),
        }
    }

    /// `request` (of `method`) with the current `Authorization`, and its DPoP proof.
    fn authorized(&self, request: reqwest::RequestBuilder, method: &Method) -> reqwest::RequestBuilder {
        let Some(value) = self.sent_authorization() else { return request };
        let request = request.header(AUTHORIZATION, value);
        match self.auth.as_ref().and_then(|auth| auth.proof(method.as_str())) {
            Some(proof) => request.header("dpop", proof),
            None => request,
        }
    }

    /// A GET of the server's stream (resuming after `last_event_id`, when given).
    async fn get(&self, last_event_id: Option<&str>) -> Result<Response, ClientError> {
        let mut get = self.request(Method::GET).header(ACCEPT, "text/event-stream");
        if let Some(last) = last_event_id {
            get = get.header("last-event-id", last);
        }
        get.send().await.map_err(|e| transport_error(&self.url, e))
    }

    /// A request of `method` to the server with what every request carries.
    fn request(&self, method: Method) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method.clone(), self.url.clone()).headers(self.headers.clone());
        if let Some(version) = *lock(&self.version) {
            request = request.header("mcp-protocol-version", version);
        }
        if let Some(session) = &*lock(&self.session) {
            request = request.header("mcp-session-id", session.clone());
        }
        self.authorized(request, &method)
    }

    /// Closes the session: the GET stream stops, and a session the server gave is deleted.
    pub(crate) async fn close(&self) {
        if let Some(task) = lock(&self.listening).take() {
            task.abort();
        }
        if self.has_session() {
            let delete = self.request(Method::DELETE);
            // A server that does not let clients end sessions answers 405: nothing to do.
            let _ = delete.send().await;
        }
    }
}

/// Opens the GET stream for what the server sends unasked (handshake era), resumed when it
/// closes; a server without one (405) is left alone. The stream is open when this returns, so
/// that it is there before any request the server may answer on it.
pub(crate) async fn listen(connection: &Arc<Connection>) {
    let Some(link) = http_of(connection) else { return };
    // A server that never answers the GET has no stream to offer: connecting goes on.
    let first = match tokio::time::timeout(LISTEN_PATIENCE, link.get(None)).await {
        Ok(Ok(response)) if response.status().is_success() => response,
        _ => return,
    };
    let weak = Arc::downgrade(connection);
    let task = tokio::spawn(async move {
        let mut response = first;
        let mut last: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        for _ in 0..MAX_RESUMPTIONS {
            let mut events = SseReader::resuming(last.clone());
            while let Ok(Some(bytes)) = response.chunk().await {
                let Some(connection) = weak.upgrade() else { return };
                events.feed(&bytes, |event| deliver(&connection, &event.data));
            }
            if weak.upgrade().is_none_or(|c| c.ended().is_some()) {
                return;
            }
            last = events.last_id;
            retry = events.retry_ms.map_or(retry, Duration::from_millis);
            tokio::time::sleep(retry).await;
            let reopened = {
                let Some(connection) = weak.upgrade() else { return };
                let Some(link) = http_of(&connection) else { return };
                link.get(last.as_deref()).await
            };
            response = match reopened {
                Ok(response) if response.status().is_success() => response,
                _ => return,
            };
        }
    });
    *lock(&link.listening) = Some(task);
}

/// The HTTP link of a connection, if that is what carries it.
pub(crate) fn http_of(connection: &Connection) -> Option<&HttpLink> {
    match &connection.link {
        Link::Http(wire) => (wire.as_ref() as &dyn std::any::Any).downcast_ref::<HttpLink>(),
        Link::Messages(_) => None,
    }
}

impl Wire for HttpLink {
    fn exchange<'a>(
        &'a self,
        connection: &'a Arc<Connection>,
        request: Exchange<'a>,
        answered: oneshot::Receiver<Outcome>,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(HttpLink::exchange(self, connection, request, answered))
    }

    fn send_one_way<'a>(
        &'a self,
        connection: &'a Arc<Connection>,
        line: Vec<u8>,
        method: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(self.post_one_way(connection, line, method))
    }
}

/// The server answered 404 to a session it gave: the connection ends (every pending request
/// fails with this reason, which is returned).
fn end_session(connection: &Connection) -> String {
    let why = "the server no longer knows the session (HTTP 404): connect again".to_owned();
    connection.end(why.clone());
    why
}

/// What `Mcp-Name` repeats of a 2026-07-28 request's params: the tool's or prompt's name,
/// the resource's URI, the task's id.
fn named<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params.get(field).and_then(Value::as_str)
}

/// A header value as 2026-07-28 writes it: as it is when it is plain visible ASCII, else
/// `=?base64?<base64 of UTF-8>?=`.
pub(crate) fn header_value(text: &str) -> String {
    use base64::Engine as _;
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with("=?base64?");
    if plain {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text))
    }
}

/// Hands each message of a body (one message, or a batch) to the connection.
fn deliver(connection: &Arc<Connection>, text: &str) {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return;
    }
    if trimmed.starts_with('[')
        && let Ok(batch) = serde_json::from_str::<Vec<Box<serde_json::value::RawValue>>>(trimmed)
    {
        for message in batch {
            connection.receive(message.get());
        }
        return;
    }
    connection.receive(trimmed);
}

fn rpc_error_of(method: &str, text: &str) -> ClientError {
    let error = serde_json::from_str::<Value>(text).ok().and_then(|v| serde_json::from_value(v["error"].clone()).ok());
    match error {
        Some(error) => ClientError::Rpc { method: method.to_owned(), error },
        None => ClientError::Protocol(format!("{method}: an error answer that is not JSON-RPC: {}", excerpt(text))),
    }
}

fn closed(connection: &Connection) -> Outcome {
    Outcome::Failed(ClientError::Closed(connection.ended().unwrap_or_else(|| "the connection closed".into())))
}

fn transport_error(url: &reqwest::Url, e: reqwest::Error) -> ClientError {
    let detail = std::error::Error::source(&e).map_or_else(|| e.to_string(), |source| source.to_string());
    ClientError::Transport(format!("cannot reach {url}: {detail}"))
}
