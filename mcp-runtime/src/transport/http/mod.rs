//! Streamable HTTP: one endpoint (`/mcp`) for both eras, on axum.
//!
//! Every connection-like thing runs the same loop as stdio ([`connection::run`]): a
//! handshake-era session is one such loop, fed by its POSTs; 2026-07-28 requests share one
//! stateless loop. Each POSTed request carries a stream of its own, which receives the
//! handler's notifications and the server's questions about it, then its response: the POST
//! answers `application/json` when the response comes first, and switches to an SSE stream
//! when anything comes before it (or always, in [`ResponseMode::Sse`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::{broadcast, mpsc, watch};

pub(crate) mod event_store;
pub(crate) mod session_store;

pub use event_store::{EventStore, MemoryEventStore, StoredEvents};
pub use session_store::{MemorySessionStore, SessionRecord, SessionStore, StoreError};

use crate::context::{Identity, RequestExtras};
use crate::protocol::{ErrorObject, Feature, RequestId, Revision, code, error_line};
use crate::serve::session::SessionState;
use crate::server::builder::ServerCore;
use crate::server::changes::ChangeEvent;
use crate::transport::connection::{self, Frame, Inbox, RoutedMessage};

/// The session header of the handshake revisions.
const SESSION_HEADER: &str = "mcp-session-id";
/// The revision header.
const VERSION_HEADER: &str = "mcp-protocol-version";

/// How a POSTed request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResponseMode {
    /// `application/json` when the response is the first thing the request produces; an SSE
    /// stream when a notification or a question to the client comes before it (the default).
    #[default]
    Json,
    /// Always an SSE stream.
    Sse,
}

/// Which `Host` and `Origin` values the server accepts: the defence against DNS rebinding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// Any value (behind a proxy that checks, or on purpose).
    Any,
    /// These values only: host names with or without a port (`localhost`, `example.com:443`)
    /// for `Host`; full origins (`https://app.example.com`) for `Origin`.
    Only(Vec<String>),
}

/// How the HTTP transport serves.
///
/// ```
/// use mcp_runtime::{Allowed, HttpOptions, ResponseMode};
/// let options = HttpOptions::default()
///     .response_mode(ResponseMode::Sse)
///     .allowed_hosts(Allowed::Only(vec!["mcp.example.com".into()]))
///     .allowed_origins(Allowed::Only(vec!["https://app.example.com".into()]));
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    mode: ResponseMode,
    hosts: Option<Allowed>,
    origins: Option<Allowed>,
    auth: Option<AuthHook>,
    resource_metadata: Option<serde_json::Value>,
    cors: Option<Allowed>,
    max_sessions: usize,
    max_requests: usize,
    idle_timeout: Duration,
    max_listen_streams: usize,
    events: Option<Arc<dyn EventStore>>,
    sessions: Option<Arc<dyn SessionStore>>,
    instance_tag: Option<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            mode: ResponseMode::default(),
            hosts: None,
            origins: None,
            auth: None,
            resource_metadata: None,
            cors: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_requests: DEFAULT_MAX_REQUESTS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
            events: None,
            sessions: None,
            instance_tag: None,
        }
    }
}

/// Handshake-era sessions open at once, unless configured: past it `initialize` gets 503.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// Requests served at once across the server, unless configured: past it a POST gets 503.
pub const DEFAULT_MAX_REQUESTS: usize = 4_096;
/// Open 2026-07-28 `subscriptions/listen` streams across all clients, unless configured.
pub const DEFAULT_MAX_LISTEN_STREAMS: usize = 1_024;
/// How long a session may stay unused before it ends, unless configured.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("mode", &self.mode)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("auth", &self.auth.is_some())
            .field("resource_metadata", &self.resource_metadata)
            .field("cors", &self.cors)
            .field("max_sessions", &self.max_sessions)
            .field("instance_tag", &self.instance_tag)
            .field("max_requests", &self.max_requests)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_listen_streams", &self.max_listen_streams)
            .finish()
    }
}

/// The authentication hook: the request's headers in, who made it (or why not) out.
type AuthHook = Arc<dyn Fn(HeaderMap) -> crate::util::BoxFuture<'static, Result<Identity, Reject>> + Send + Sync>;

/// Why the authentication hook refused a request: answered with 401 and a
/// `WWW-Authenticate: Bearer` challenge (pointing at the protected-resource metadata when
/// configured).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    message: String,
}

impl Reject {
    /// A refusal saying `message` (sent to the client: say nothing secret).
    pub fn new(message: impl Into<String>) -> Self {
        Reject { message: message.into() }
    }
}

impl HttpOptions {
    /// How requests are answered (default: [`ResponseMode::Json`]).
    #[must_use]
    pub fn response_mode(mut self, mode: ResponseMode) -> Self {
        self.mode = mode;
        self
    }

    /// The `Host` values accepted. Bound to a loopback address, the loopback names are the
    /// default; bound elsewhere, or mounted as a router, the server refuses to start without
    /// this.
    #[must_use]
    pub fn allowed_hosts(mut self, hosts: Allowed) -> Self {
        self.hosts = Some(hosts);
        self
    }

    /// Authenticates every request: `hook` gets its headers and returns who made it (which
    /// handlers see as [`Context::identity`](crate::Context::identity), and which owns the
    /// sessions it opens) or a [`Reject`] (answered 401 with a `WWW-Authenticate` challenge).
    ///
    /// ```
    /// use mcp_runtime::{HttpOptions, Identity, Reject};
    /// let options = HttpOptions::default().bearer_auth(|headers| async move {
    ///     match headers.get("authorization").and_then(|v| v.to_str().ok()) {
    ///         Some("Bearer let-me-in") => Ok(Identity::new("alice")),
    ///         _ => Err(Reject::new("a valid bearer token is required")),
    ///     }
    /// });
    /// # drop(options);
    /// ```
    #[must_use]
    pub fn bearer_auth<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Identity, Reject>> + Send + 'static,
    {
        self.auth = Some(Arc::new(move |headers| Box::pin(hook(headers))));
        self
    }

    /// Serves this OAuth protected-resource metadata (RFC 9728) at
    /// `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource/mcp`,
    /// and points 401 challenges at it.
    #[must_use]
    pub fn protected_resource_metadata(mut self, metadata: serde_json::Value) -> Self {
        self.resource_metadata = Some(metadata);
        self
    }

    /// Answers browsers' CORS preflights and adds the CORS headers for these origins (off by
    /// default: no browser page may call the server).
    #[must_use]
    pub fn cors(mut self, origins: Allowed) -> Self {
        self.cors = Some(origins);
        self
    }

    /// How many handshake-era sessions may be open at once (default
    /// [`DEFAULT_MAX_SESSIONS`]); past it `initialize` is answered 503 with `Retry-After`
    /// rather than exhausting memory.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How many requests the server serves at once, all sessions together (default
    /// [`DEFAULT_MAX_REQUESTS`]); past it a POST is answered 503 with `Retry-After`.
    #[must_use]
    pub fn max_requests(mut self, requests: usize) -> Self {
        self.max_requests = requests.max(1);
        self
    }

    /// How many 2026-07-28 `subscriptions/listen` streams may be open at once, all clients
    /// together (default [`DEFAULT_MAX_LISTEN_STREAMS`]); they do not count against
    /// [`max_requests`](Self::max_requests). (A handshake-era session has 32 of its own.)
    #[must_use]
    pub fn max_listen_streams(mut self, streams: usize) -> Self {
        self.max_listen_streams = streams.max(1);
        self
    }

    /// Where the events of resumable SSE streams are kept (handshake revisions; default: in
    /// the process, [`MemoryEventStore`]). Instances behind a load balancer share one so that
    /// a client resumes on any of them.
    #[must_use]
    pub fn event_store(mut self, store: impl EventStore) -> Self {
        self.events = Some(Arc::new(store));
        self
    }

    /// Where the sessions of the handshake revisions are kept (default: in the process,
    /// [`MemorySessionStore`]). Instances behind a load balancer that share one serve each
    /// other's sessions: a session's state is saved there when it changes and loaded by an
    /// instance that does not serve it yet.
    #[must_use]
    pub fn session_store(mut self, store: impl SessionStore) -> Self {
        self.sessions = Some(Arc::new(store));
        self
    }

    /// Starts every session id this instance mints with `tag` and a dot (`a.3f9c…`), so that
    /// a load balancer can send each session's requests to the instance that opened it
    /// (session affinity; the repository's `deploy/nginx-affinity.conf` routes on it).
    /// `initialize`, which has no session yet, may go to any instance. The tag is 1 to 32
    /// letters, digits and `-`; serving refuses to start with another.
    ///
    /// ```
    /// let options = mcp_runtime::HttpOptions::default().instance_tag("b");
    /// # drop(options);
    /// ```
    #[must_use]
    pub fn instance_tag(mut self, tag: impl Into<String>) -> Self {
        self.instance_tag = Some(tag.into());
        self
    }

    /// How long a session may stay unused before it ends (default
    /// [`DEFAULT_IDLE_TIMEOUT`]); its client then gets 404 and initializes again.
    #[must_use]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// The `Origin` values accepted (a request without `Origin` is accepted). The default is
    /// the loopback origins when bound to loopback; elsewhere the server refuses to start
    /// without this.
    #[must_use]
    pub fn allowed_origins(mut self, origins: Allowed) -> Self {
        self.origins = Some(origins);
        self
    }
}

/// Where the protected-resource metadata is served (RFC 9728).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The loopback names a local server answers to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// What every handler of the endpoint shares.
struct App {
    core: Arc<ServerCore>,
    mode: ResponseMode,
    hosts: Allowed,
    origins: Allowed,
    /// Handshake-era sessions by id.
    sessions: Mutex<HashMap<String, Arc<SessionHandle>>>,
    auth: Option<AuthHook>,
    /// Whether 401 challenges point at protected-resource metadata.
    has_metadata: bool,
    max_sessions: usize,
    /// What starts the session ids this instance mints (`tag.`), if anything.
    session_prefix: String,
    /// Where resumable streams' events are kept.
    events: Arc<dyn EventStore>,
    /// Where sessions are kept, for any instance sharing it to serve.
    store: Arc<dyn SessionStore>,
    /// How long a session may stay unused.
    idle: Duration,
    /// Requests being served, all sessions together.
    requests: Arc<tokio::sync::Semaphore>,
    /// The loop serving 2026-07-28 requests.
    stateless: Arc<SessionHandle>,
    stopping: watch::Receiver<bool>,
    /// Kept here so that sessions of a mounted router run as long as the router.
    _stop: Arc<watch::Sender<bool>>,
}

/// One loop's inbox, and where its connection-level messages go.
struct SessionHandle {
    /// Its id (empty for the stateless loop).
    id: String,
    inbound: mpsc::Sender<Frame>,
    /// When a request last used it.
    used: Mutex<Instant>,
    /// When the session store was last told it is in use.
    touched: Mutex<Instant>,
    /// The principal that opened it: only it may use it.
    owner: Option<String>,
    /// Its standalone stream: list changes, resource updates.
    standalone: Arc<tokio::sync::Mutex<Standalone>>,
    /// The resumable streams of its requests still running, by stream id.
    streams: Mutex<HashMap<String, Arc<LiveStream>>>,
    /// The session's state as its loop last told it, and whether the store has it yet.
    states: tokio::sync::Mutex<watch::Receiver<Option<SessionState>>>,
}

/// A session's standalone stream (GET). Every event goes to the event store under the
/// session's one stream id before it goes to the connection reading it, so a client that
/// reconnects with `Last-Event-ID` misses nothing.
struct Standalone {
    id: String,
    /// The body of the GET response reading it now.
    reader: Option<mpsc::Sender<Bytes>>,
    /// The latest events sent while no GET stream was open, for the next one that opens
    /// without `Last-Event-ID` (a client opens its stream just after it subscribes).
    waiting: std::collections::VecDeque<Bytes>,
}

/// A handshake-era request's resumable SSE stream while its request runs: every event goes
/// to the event store and to the connection reading it now, if any.
struct LiveStream {
    id: String,
    /// The body of the HTTP response reading it now.
    reader: tokio::sync::Mutex<Option<mpsc::Sender<Bytes>>>,
    /// `Context::close_sse_stream`: end the current connection; the client reconnects.
    close: Arc<tokio::sync::Notify>,
}

/// Connection-level messages kept while a session has no GET stream open.
const UNSENT_KEPT: usize = 64;

/// How long a client waits before reconnecting to a stream the server closed (SSE `retry`).
const RETRY_MS: u64 = 500;

/// The prefix of a session's standalone stream id.
const STANDALONE: &str = "get-";

/// What a new loop is: a session (its id, who opened it, and its state when it was started
/// elsewhere), or the stateless one (an empty id).
struct LoopSeed {
    id: String,
    owner: Option<String>,
    restore: Option<SessionState>,
    listen_limit: usize,
}

/// Starts a loop (a session, or the stateless one) and returns its handle.
fn start_loop(
    core: &Arc<ServerCore>,
    events: &Arc<dyn EventStore>,
    stopping: &watch::Receiver<bool>,
    seed: LoopSeed,
) -> Arc<SessionHandle> {
    let (inbound, inbox) = mpsc::channel(crate::serve::executor::LOOK_AHEAD);
    let (out, mut outbox) = mpsc::channel::<Vec<u8>>(connection::OUTGOING_CAPACITY);
    let standalone = Arc::new(tokio::sync::Mutex::new(Standalone {
        // Named by the session, so that an instance that takes the session over (sharing the
        // event store) resumes its stream; the stateless loop has no such stream.
        id: match seed.id.as_str() {
            "" => format!("{STANDALONE}{}", crate::util::random::random_id()),
            session => format!("{STANDALONE}{session}"),
        },
        reader: None,
        waiting: std::collections::VecDeque::new(),
    }));
    let forward = Arc::clone(&standalone);
    let store = Arc::clone(events);
    tokio::spawn(async move {
        while let Some(line) = outbox.recv().await {
            // Kept and sent under one lock, so a reconnection replays up to exactly here.
            let mut standalone = forward.lock().await;
            let event_id = keep_event(&*store, &standalone.id, &line).await;
            let event = sse_event(event_id.as_deref(), &line);
            send_event(&mut standalone.reader, event.clone()).await;
            if standalone.reader.is_none() {
                standalone.waiting.push_back(event);
                if standalone.waiting.len() > UNSENT_KEPT {
                    standalone.waiting.pop_front();
                }
            }
        }
    });
    let mut stopping = stopping.clone();
    let shutdown = async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    let (states_tx, states) = watch::channel(None);
    let options =
        connection::LoopOptions { listen_limit: seed.listen_limit, restore: seed.restore, states: Some(states_tx) };
    tokio::spawn(connection::run(Arc::clone(core), Inbox(inbox), out, shutdown, options));
    Arc::new(SessionHandle {
        id: seed.id,
        inbound,
        used: Mutex::new(Instant::now()),
        touched: Mutex::new(Instant::now()),
        owner: seed.owner,
        standalone,
        streams: Mutex::default(),
        states: tokio::sync::Mutex::new(states),
    })
}

impl App {
    /// A new session's loop, counted against the session limit (`None` past it).
    fn open_session(
        &self,
        id: &str,
        owner: Option<String>,
        restore: Option<SessionState>,
    ) -> Option<Arc<SessionHandle>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        // Two requests may revive the same session at once: the first one's loop serves both.
        if let Some(running) = sessions.get(id) {
            return Some(Arc::clone(running));
        }
        if sessions.len() >= self.max_sessions {
            return None;
        }
        let seed = LoopSeed {
            id: id.to_owned(),
            owner,
            restore,
            listen_limit: crate::serve::subscriptions::MAX_LISTEN_STREAMS,
        };
        let handle = start_loop(&self.core, &self.events, &self.stopping, seed);
        sessions.insert(id.to_owned(), Arc::clone(&handle));
        Some(handle)
    }

    /// Saves `session`'s state in the session store if its loop changed it since the last
    /// save: before the reply that changed it leaves, so that any instance sharing the store
    /// serves the client's next request as this one would.
    async fn keep(&self, session: &SessionHandle) -> Result<(), StoreError> {
        let mut states = session.states.lock().await;
        if !states.has_changed().unwrap_or(false) {
            return Ok(());
        }
        let Some(state) = states.borrow_and_update().clone() else { return Ok(()) };
        let record = SessionRecord::new(&state, session.owner.as_deref());
        self.store.save(&session.id, &record, self.idle).await
    }
}

/// What the endpoint reads of a message before handing it over.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The `_meta` revision of a 2026-07-28 request, and its `name` or `uri`.
#[derive(Deserialize, Default)]
struct ParamsHead {
    #[serde(rename = "_meta", default)]
    meta: Option<MetaHead>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize, Default)]
struct MetaHead {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    protocol_version: Option<serde_json::Value>,
}

/// An error answered before any loop saw the message.
fn reject(status: StatusCode, id: Option<&RequestId>, error: ErrorObject) -> Response {
    let mut body = error_line(id, &error);
    body.pop();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The `Host` and `Origin` checks.
fn check_headers(app: &App, headers: &HeaderMap) -> Result<(), Box<Response>> {
    let allowed = |list: &Allowed, value: &str, host: bool| match list {
        Allowed::Any => true,
        Allowed::Only(values) => values.iter().any(|v| {
            v.eq_ignore_ascii_case(value)
                || (host
                    && value.rsplit_once(':').is_some_and(|(name, port)| {
                        port.bytes().all(|b| b.is_ascii_digit()) && v.eq_ignore_ascii_case(name)
                    }))
        }),
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !allowed(&app.hosts, host, true) {
        let error =
            ErrorObject::invalid_request(format!("Host `{}` is not served here", crate::protocol::excerpt(host)));
        return Err(Box::new(reject(StatusCode::MISDIRECTED_REQUEST, None, error)));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !allowed(&app.origins, origin, false) {
            let error = ErrorObject::invalid_request("Forbidden: this origin may not call this server");
            return Err(Box::new(reject(StatusCode::FORBIDDEN, None, error)));
        }
    }
    Ok(())
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Runs the authentication hook: who made the request (`None` without a hook), or the 401.
async fn authenticate(app: &App, headers: &HeaderMap) -> Result<Option<Identity>, Box<Response>> {
    let Some(hook) = &app.auth else { return Ok(None) };
    match hook(headers.clone()).await {
        Ok(identity) => Ok(Some(identity)),
        Err(reject) => {
            let mut response =
                self::reject(StatusCode::UNAUTHORIZED, None, ErrorObject::invalid_request(reject.message));
            let challenge = match (app.has_metadata, header_str(headers, "host")) {
                (true, Some(host)) => {
                    format!("Bearer error=\"invalid_token\", resource_metadata=\"http://{host}{METADATA_PATH}/mcp\"")
                }
                _ => "Bearer error=\"invalid_token\"".to_owned(),
            };
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            }
            Err(Box::new(response))
        }
    }
}

/// The checks every method of the endpoint runs first: `Host`, `Origin`, authentication.
async fn admit(app: &App, headers: &HeaderMap) -> Result<Option<Identity>, Box<Response>> {
    check_headers(app, headers)?;
    authenticate(app, headers).await
}

/// The session `id` names, if `identity` may use it: served here, or kept in the session
/// store (started by another instance, or before this endpoint's loop for it ended) and served
/// here from now on. `Err` is the answer to give instead.
async fn find_session(
    app: &App,
    id: &str,
    identity: Option<&Identity>,
    request: Option<&RequestId>,
) -> Result<Arc<SessionHandle>, Box<Response>> {
    let subject = identity.map(Identity::subject);
    let not_found = || {
        let error = ErrorObject::invalid_request("Session not found: it ended or never existed; initialize again");
        Box::new(reject(StatusCode::NOT_FOUND, request, error))
    };
    let running = app.sessions.lock().unwrap_or_else(|e| e.into_inner()).get(id).cloned();
    let found = match running {
        Some(found) => found,
        None => {
            let record = app.store.load(id).await.map_err(|e| {
                tracing::error!(error = %e, "the session store failed to load a session");
                Box::new(busy(request, "The session store is unavailable: retry later"))
            })?;
            let Some(record) = record else { return Err(not_found()) };
            // Another principal's session is, to this one, a session that does not exist.
            if record.owner() != subject {
                return Err(not_found());
            }
            let Some(state) = record.state() else {
                tracing::warn!(revision = record.protocol_version(), "a kept session names a revision not served here");
                return Err(not_found());
            };
            let owner = record.owner().map(str::to_owned);
            app.open_session(id, owner, Some(state))
                .ok_or_else(|| Box::new(busy(request, "Too many open sessions: retry later")))?
        }
    };
    if found.owner.as_deref() != subject {
        return Err(not_found());
    }
    let now = Instant::now();
    *found.used.lock().unwrap_or_else(|e| e.into_inner()) = now;
    // The store hears of use now and then, not on every request.
    let due = {
        let mut touched = found.touched.lock().unwrap_or_else(|e| e.into_inner());
        let due = now.duration_since(*touched) >= app.idle / 4;
        if due {
            *touched = now;
        }
        due
    };
    if due {
        let store = Arc::clone(&app.store);
        let (id, idle) = (id.to_owned(), app.idle);
        tokio::spawn(async move {
            if let Err(e) = store.touch(&id, idle).await {
                tracing::warn!(error = %e, "the session store failed to keep a session alive");
            }
        });
    }
    Ok(found)
}

/// POST: one message.
async fn on_post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let identity = match admit(&app, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return reject(StatusCode::BAD_REQUEST, None, ErrorObject::parse_error("the body is not UTF-8"));
    };
    let is_batch = crate::protocol::shape_of(text) == crate::protocol::Shape::Array;
    let head: Option<Head<'_>> = if is_batch { None } else { serde_json::from_str(text).ok() };
    let params: ParamsHead =
        head.as_ref().and_then(|h| h.params).and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or_default();
    let modern_version = params.meta.as_ref().and_then(|m| m.protocol_version.as_ref()).and_then(|v| v.as_str());
    let method = head.as_ref().and_then(|h| h.method.as_deref());
    let id = head.as_ref().and_then(|h| h.id).and_then(|raw| serde_json::from_str::<RequestId>(raw.get()).ok());
    let is_request = method.is_some() && head.as_ref().is_some_and(|h| h.id.is_some());

    let session_id = header_str(&headers, SESSION_HEADER);
    // A 2026-07-28 request names its revision; a client without a session may also probe
    // with `server/discover` and send notifications (which no era answers).
    let stateless = modern_version.is_some()
        || (session_id.is_none() && (method == Some("server/discover") || (!is_request && !is_batch)));
    let (target, minted) = if stateless {
        // The header rules bind messages that name 2026-07-28 in their `_meta`; a sessionless
        // probe or notification without it has nothing to match.
        if modern_version.is_some()
            && let Err(rejected) = check_modern_headers(&headers, modern_version, method, &params, id.as_ref())
        {
            return *rejected;
        }
        if method == Some("tools/call")
            && let Err(rejected) = check_param_headers(&app, &headers, &params, id.as_ref())
        {
            return *rejected;
        }
        (Arc::clone(&app.stateless), None)
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
        // A notification or a response: never answered.
        let _ = target.inbound.send(Frame::Message(body.to_vec())).await;
        return StatusCode::ACCEPTED.into_response();
    }
    let (stream, answers) = mpsc::channel::<Vec<u8>>(16);
    // A handshake-era request's SSE stream is resumable, and its handler may close it.
    let close = (!stateless).then(|| Arc::new(tokio::sync::Notify::new()));
    let extras = RequestExtras {
        headers: headers
            .iter()
            .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
            .collect(),
        identity,
        stream_close: close.clone(),
    };
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
    let json_answer = match first {
        Some(first) if app.mode == ResponseMode::Json && (is_batch || is_final(&first, id.as_ref())) => Ok(first),
        other => Err(other),
    };
    let mut response = match (json_answer, close) {
        (Ok(mut body), _) => {
            answering.done = true;
            let status = if stateless { modern_status(&body) } else { StatusCode::OK };
            body.pop();
            if let (Some(session), true) = (&minted, status == StatusCode::OK && !is_success(&body)) {
                // A failed `initialize` leaves no session behind.
                app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
            }
            let caching = if stateless && method.is_some_and(crate::serve::routes::is_cacheable) {
                cache_control(&body)
            } else {
                None
            };
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
            tokio::spawn(pump(Arc::clone(&app.events), Arc::clone(&target), live, first, rest, id.clone(), slot));
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
fn check_modern_headers(
    headers: &HeaderMap,
    version: Option<&str>,
    method: Option<&str>,
    params: &ParamsHead,
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
    if header_str(headers, "mcp-method") != Some(method) {
        return Err(mismatch("Mcp-Method"));
    }
    let named = match method {
        "tools/call" | "prompts/get" => params.name.as_deref(),
        "resources/read" => params.uri.as_deref(),
        _ => return Ok(()),
    };
    if header_str(headers, "mcp-name").map(decode_header_value).as_deref() != named {
        return Err(mismatch("Mcp-Name"));
    }
    Ok(())
}

/// The `Mcp-Param-*` headers of a tool's mirrored arguments must be sent and match the body.
fn check_param_headers(
    app: &App,
    headers: &HeaderMap,
    params: &ParamsHead,
    id: Option<&RequestId>,
) -> Result<(), Box<Response>> {
    let Some(name) = &params.name else { return Ok(()) };
    let registry = app.core.registry();
    let Some(tool) = registry.tools.get(name) else { return Ok(()) };
    for (argument, header) in &tool.header_params {
        let sent = header_str(headers, &format!("mcp-param-{header}")).map(decode_header_value);
        let value = params.arguments.as_ref().and_then(|arguments| arguments.get(argument));
        let expected = value.map(|v| match v {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
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
fn decode_header_value(value: &str) -> String {
    use base64::Engine as _;
    value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| value.to_owned())
}

/// The status of a 2026-07-28 answer: errors the protocol names get theirs.
fn modern_status(line: &[u8]) -> StatusCode {
    #[derive(Deserialize)]
    struct Answer {
        #[serde(default)]
        error: Option<ErrorCode>,
    }
    #[derive(Deserialize)]
    struct ErrorCode {
        code: i32,
    }
    match serde_json::from_slice::<Answer>(line).ok().and_then(|a| a.error).map(|e| e.code) {
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
/// `no-cache`). `None` for an error, or a result without those fields.
fn cache_control(line: &[u8]) -> Option<HeaderValue> {
    #[derive(Deserialize)]
    struct Response {
        result: Option<Caching>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Caching {
        ttl_ms: Option<u64>,
        cache_scope: Option<String>,
    }
    let caching = serde_json::from_slice::<Response>(line).ok()?.result?;
    let scope = caching.cache_scope.filter(|scope| scope == "public" || scope == "private")?;
    let value = match caching.ttl_ms? {
        0 => format!("{scope}, no-cache"),
        ttl => format!("{scope}, max-age={}", ttl / 1_000),
    };
    HeaderValue::from_str(&value).ok()
}

fn is_success(line: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line).is_ok_and(|m| m.contains_key("result"))
}

/// Whether `line` is the response to the request `id` (not a notification or a question).
fn is_final(line: &[u8], id: Option<&RequestId>) -> bool {
    match serde_json::from_slice::<Head<'_>>(line) {
        Ok(head) => {
            head.method.is_none()
                && head.id.and_then(|raw| serde_json::from_str::<RequestId>(raw.get()).ok()).as_ref() == id
        }
        Err(_) => false,
    }
}

/// One SSE event, written in one piece.
fn sse_event(event_id: Option<impl std::fmt::Display>, line: &[u8]) -> Bytes {
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
fn priming_event(event_id: Option<&str>) -> Bytes {
    match event_id {
        Some(event_id) => Bytes::from(format!("id: {event_id}\nretry: {RETRY_MS}\ndata: \n\n")),
        None => Bytes::from(format!("retry: {RETRY_MS}\ndata: \n\n")),
    }
}

/// Keeps `data` as the next event of `stream`: its id, or `None` (logged) when the store
/// fails, in which case the event goes out without an id and only resumability is lost.
async fn keep_event(events: &dyn EventStore, stream: &str, data: &[u8]) -> Option<String> {
    match events.append(stream, data).await {
        Ok(event_id) => Some(event_id),
        Err(e) => {
            tracing::warn!(error = %e, stream, "the event store failed to keep an event: it is sent without an id");
            None
        }
    }
}

/// What an event store answers for `last`; a failure is a 503 the client may retry.
async fn missed_events(events: &dyn EventStore, last: &str) -> Result<Option<StoredEvents>, Box<Response>> {
    events.after(last).await.map_err(|e| {
        tracing::warn!(error = %e, "the event store failed to replay a stream");
        Box::new(busy(None, "The event store is unavailable"))
    })
}

/// An HTTP body of the events sent into `reading`.
fn body_stream(reading: mpsc::Receiver<Bytes>) -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> {
    futures_util::stream::unfold(reading, |mut reading| async move {
        reading.recv().await.map(|event| (Ok(event), reading))
    })
}

/// Carries a handshake-era request's messages into its resumable stream: each is kept in the
/// event store, then sent to the connection reading the stream, if any. A connection that
/// breaks (or that the handler closes) loses nothing: the client resumes with
/// `Last-Event-ID`.
async fn pump(
    events: Arc<dyn EventStore>,
    session: Arc<SessionHandle>,
    live: Arc<LiveStream>,
    first: Option<Vec<u8>>,
    mut rest: mpsc::Receiver<Vec<u8>>,
    id: Option<RequestId>,
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
        let line = match next.take() {
            Some(line) => line,
            None => tokio::select! {
                line = rest.recv() => match line {
                    Some(line) => line,
                    None => break,
                },
                () = live.close.notified() => {
                    // The handler closed the stream: the client reconnects after `retry`.
                    live.reader.lock().await.take();
                    continue;
                }
            },
        };
        let last = is_final(&line, id.as_ref());
        // Kept and sent under one lock, so a reconnection replays up to exactly here.
        let mut reader = live.reader.lock().await;
        let event_id = keep_event(&*events, &live.id, &line).await;
        send_event(&mut reader, sse_event(event_id.as_deref(), &line)).await;
        if last {
            reader.take();
            break;
        }
    }
    session.streams.lock().unwrap_or_else(|e| e.into_inner()).remove(&live.id);
}

/// Sends an event to the connection reading a stream; a connection gone is forgotten.
async fn send_event(reader: &mut Option<mpsc::Sender<Bytes>>, event: Bytes) {
    if let Some(connection) = reader.as_ref()
        && connection.send(event).await.is_err()
    {
        *reader = None;
    }
}

/// What a POSTed request produces, on its way to the client. Dropped before the response
/// went out (the client went away), it cancels a 2026-07-28 request: there, closing the
/// response stream is the cancellation.
struct Answering {
    first: Option<Vec<u8>>,
    rest: mpsc::Receiver<Vec<u8>>,
    id: Option<RequestId>,
    next_event: u64,
    done: bool,
    /// The loop to tell, for a 2026-07-28 request.
    cancel: Option<mpsc::Sender<Frame>>,
    /// Its share of the server-wide request limit, held until the answer is out.
    _slot: Option<tokio::sync::OwnedSemaphorePermit>,
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
fn sse_response(state: Answering) -> Response {
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        let line = match state.first.take() {
            Some(line) => line,
            None => state.rest.recv().await?,
        };
        state.done = is_final(&line, state.id.as_ref());
        let event = sse_event(Some(state.next_event), &line);
        state.next_event += 1;
        Some((Ok::<_, Infallible>(event), state))
    });
    sse_headers(Response::new(Body::from_stream(stream)))
}

fn sse_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// GET: a session's stream of list changes and resource updates (handshake revisions); with
/// `Last-Event-ID`, what a stream missed (this one, or a request's), then what follows.
async fn on_get(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    use futures_util::StreamExt as _;
    let identity = match admit(&app, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        return method_not_allowed("GET opens a session's stream: send Mcp-Session-Id (2026-07-28 has no GET)");
    };
    let handle = match find_session(&app, session, identity.as_ref(), None).await {
        Ok(handle) => handle,
        Err(answer) => return *answer,
    };
    let last = header_str(&headers, "last-event-id");
    if let Some(last) = last.filter(|last| !last.starts_with(STANDALONE)) {
        return resume(&app, &handle, last).await;
    }
    // Replayed (or primed) and attached under the stream's lock: nothing missed, nothing twice.
    let mut standalone = handle.standalone.lock().await;
    let missed = match last {
        Some(last) if app.events.stream_of(last) == Some(standalone.id.as_str()) => {
            match missed_events(&*app.events, last).await {
                Ok(missed) => missed,
                Err(answer) => return *answer,
            }
        }
        _ => None,
    };
    let opening: Vec<Bytes> = match missed {
        Some(missed) => {
            // What waited is among what is replayed.
            standalone.waiting.clear();
            missed
                .into_iter()
                .filter(|(_, data)| !data.is_empty())
                .map(|(id, data)| sse_event(Some(id), &data))
                .collect()
        }
        None => {
            let priming = keep_event(&*app.events, &standalone.id, b"").await;
            std::iter::once(priming_event(priming.as_deref())).chain(standalone.waiting.drain(..)).collect()
        }
    };
    let (reader, reading) = mpsc::channel::<Bytes>(connection::OUTGOING_CAPACITY);
    standalone.reader = Some(reader);
    drop(standalone);
    let mut stopping = app.stopping.clone();
    let live = body_stream(reading).take_until(async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    });
    let opening = futures_util::stream::iter(opening.into_iter().map(Ok::<_, Infallible>));
    sse_headers(Response::new(Body::from_stream(opening.chain(live))))
}

/// GET with `Last-Event-ID`: what the stream missed, then (if its request still runs) what
/// follows.
async fn resume(app: &App, session: &SessionHandle, last: &str) -> Response {
    use futures_util::StreamExt as _;
    let live = app
        .events
        .stream_of(last)
        .and_then(|stream| session.streams.lock().unwrap_or_else(|e| e.into_inner()).get(stream).cloned());
    let missed = |events: StoredEvents| {
        let replay: Vec<Result<Bytes, Infallible>> = events
            .into_iter()
            .filter(|(_, data)| !data.is_empty())
            .map(|(id, data)| Ok(sse_event(Some(id), &data)))
            .collect();
        futures_util::stream::iter(replay)
    };
    let body = match live {
        Some(live) => {
            // Replayed and attached under the stream's lock: nothing missed, nothing twice.
            let mut reader = live.reader.lock().await;
            let found = match missed_events(&*app.events, last).await {
                Ok(found) => found,
                Err(answer) => return *answer,
            };
            let Some(events) = found else {
                return reject(StatusCode::NOT_FOUND, None, ErrorObject::invalid_request("Unknown Last-Event-ID"));
            };
            let (connection, reading) = mpsc::channel::<Bytes>(16);
            *reader = Some(connection);
            Body::from_stream(missed(events).chain(body_stream(reading)))
        }
        None => match missed_events(&*app.events, last).await {
            Err(answer) => return *answer,
            // Its request finished: what it missed, and the stream ends.
            Ok(Some(events)) => Body::from_stream(missed(events)),
            Ok(None) => {
                return reject(StatusCode::NOT_FOUND, None, ErrorObject::invalid_request("Unknown Last-Event-ID"));
            }
        },
    };
    sse_headers(Response::new(body))
}

/// DELETE: ends a session.
async fn on_delete(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let identity = match admit(&app, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        return method_not_allowed("DELETE ends a session: send Mcp-Session-Id (2026-07-28 has no sessions)");
    };
    if let Err(answer) = find_session(&app, session, identity.as_ref(), None).await {
        return *answer;
    }
    // Dropping the handle ends the session's input: it finishes what runs, then stops.
    app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
    if let Err(e) = app.store.remove(session).await {
        tracing::warn!(error = %e, "the session store failed to forget an ended session");
    }
    // Every other server sharing the session store stops serving it too.
    app.core.publish(ChangeEvent::SessionEnded { session: session.to_owned() });
    StatusCode::NO_CONTENT.into_response()
}

/// 503 with `Retry-After`: a limit is reached.
fn busy(id: Option<&RequestId>, why: &str) -> Response {
    let mut response = reject(StatusCode::SERVICE_UNAVAILABLE, id, ErrorObject::internal(why));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn method_not_allowed(why: &str) -> Response {
    let mut response = reject(StatusCode::METHOD_NOT_ALLOWED, None, ErrorObject::invalid_request(why));
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// Ends sessions unused for `idle`, checking every so often while the endpoint exists.
/// Stops serving the sessions ended on another server of the change bus (or on this one: it
/// already forgot them).
fn forget_ended_sessions(app: std::sync::Weak<App>, mut ended: broadcast::Receiver<Arc<str>>) {
    tokio::spawn(async move {
        loop {
            let session = match ended.recv().await {
                Ok(session) => session,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let Some(app) = app.upgrade() else { return };
            app.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(&*session);
        }
    });
}

fn expire_idle_sessions(app: std::sync::Weak<App>, idle: Duration) {
    let every = (idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(60));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(app) = app.upgrade() else { return };
            let now = Instant::now();
            app.sessions.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, session| {
                now.duration_since(*session.used.lock().unwrap_or_else(|e| e.into_inner())) < idle
            });
        }
    });
}

/// OPTIONS: a CORS preflight (answered with the CORS headers when enabled, else plainly).
async fn on_preflight() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// The headers browsers may send and read.
const CORS_ALLOW_HEADERS: &str =
    "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id";
const CORS_EXPOSE_HEADERS: &str = "mcp-session-id, www-authenticate";

/// Adds the CORS headers to the answers of allowed origins.
async fn with_cors(origins: Arc<Allowed>, request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let origin = request.headers().get(header::ORIGIN).cloned();
    let mut response = next.run(request).await;
    let allowed = origin.as_ref().and_then(|o| o.to_str().ok()).is_some_and(|o| match &*origins {
        Allowed::Any => true,
        Allowed::Only(list) => list.iter().any(|v| v.eq_ignore_ascii_case(o)),
    });
    if let (true, Some(origin)) = (allowed, origin) {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST, GET, DELETE, OPTIONS"));
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(CORS_ALLOW_HEADERS));
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(CORS_EXPOSE_HEADERS));
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

/// Whether `tag` may start session ids: what a proxy can match without escaping, and no `_`
/// (event ids end in `_` and a sequence number).
fn valid_instance_tag(tag: &str) -> bool {
    (1..=32).contains(&tag.len()) && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The endpoint as a router serving `/mcp`, and what stops its sessions (send `true`).
pub(crate) fn router(
    core: Arc<ServerCore>,
    options: HttpOptions,
    bound: Option<SocketAddr>,
) -> crate::Result<(axum::Router, Arc<watch::Sender<bool>>)> {
    let loopback = bound.is_some_and(|addr| addr.ip().is_loopback());
    let hosts = match (options.hosts, loopback) {
        (Some(hosts), _) => hosts,
        (None, true) => Allowed::Only(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect()),
        (None, false) => {
            return Err(crate::Error::Usage(
                "serving HTTP on a non-loopback address (or as a router) needs an explicit host allow-list: \
             `HttpOptions::allowed_hosts` (`Allowed::Any` to accept any, behind a proxy that checks)"
                    .into(),
            ));
        }
    };
    let origins = match (options.origins, bound) {
        (Some(origins), _) => origins,
        (None, Some(addr)) if loopback => Allowed::Only(
            LOOPBACK_HOSTS
                .iter()
                .flat_map(|h| [format!("http://{h}"), format!("http://{h}:{}", addr.port()), format!("https://{h}")])
                .collect(),
        ),
        (None, _) => {
            return Err(crate::Error::Usage(
                "serving HTTP on a non-loopback address (or as a router) needs an explicit origin allow-list: \
             `HttpOptions::allowed_origins` (`Allowed::Any` to accept any)"
                    .into(),
            ));
        }
    };
    let session_prefix = match options.instance_tag {
        None => String::new(),
        Some(tag) if valid_instance_tag(&tag) => format!("{tag}."),
        Some(tag) => {
            return Err(crate::Error::Usage(format!(
                "instance tag `{tag}` is invalid: use 1 to 32 letters, digits and `-`"
            )));
        }
    };
    let (stop, stopping) = watch::channel(false);
    let stop = Arc::new(stop);
    // Every 2026-07-28 client shares this loop: its listen streams get a limit of their own.
    let events = options.events.unwrap_or_else(|| Arc::new(MemoryEventStore::default()));
    let seed = LoopSeed { id: String::new(), owner: None, restore: None, listen_limit: options.max_listen_streams };
    let stateless = start_loop(&core, &events, &stopping, seed);
    let max = core.config.max_message_size;
    let idle = options.idle_timeout;
    let app = Arc::new(App {
        core,
        mode: options.mode,
        hosts,
        origins,
        sessions: Mutex::default(),
        auth: options.auth,
        has_metadata: options.resource_metadata.is_some(),
        max_sessions: options.max_sessions,
        session_prefix,
        events,
        store: options.sessions.unwrap_or_else(|| Arc::new(MemorySessionStore::default())),
        idle,
        requests: Arc::new(tokio::sync::Semaphore::new(options.max_requests)),
        stateless,
        stopping,
        _stop: Arc::clone(&stop),
    });
    expire_idle_sessions(Arc::downgrade(&app), idle);
    forget_ended_sessions(Arc::downgrade(&app), app.core.ended_sessions.subscribe());
    let cors = options.cors.map(Arc::new);
    let mut router = axum::Router::new()
        .route("/mcp", post(on_post).get(on_get).delete(on_delete).options(on_preflight))
        .layer(DefaultBodyLimit::max(max))
        .with_state(app);
    if let Some(cors) = cors {
        router =
            router.layer(axum::middleware::from_fn(move |request, next| with_cors(Arc::clone(&cors), request, next)));
    }
    if let Some(metadata) = options.resource_metadata {
        let body = metadata.to_string();
        let serve = move || {
            let body = body.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], body) }
        };
        router = router
            .route(METADATA_PATH, axum::routing::get(serve.clone()))
            .route(&format!("{METADATA_PATH}/mcp"), axum::routing::get(serve));
    }
    Ok((router, stop))
}
