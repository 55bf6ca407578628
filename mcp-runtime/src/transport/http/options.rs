//! How the HTTP transport serves: [`HttpOptions`], its limits and its hooks.

use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;

use super::event_store::EventStore;
use super::session_store::SessionStore;
use crate::auth::{Authorization, Reject};
use crate::context::Identity;

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
/// use mcp_runtime::http::{Allowed, HttpOptions, ResponseMode};
/// let options = HttpOptions::default()
///     .response_mode(ResponseMode::Sse)
///     .allowed_hosts(Allowed::Only(vec!["mcp.example.com".into()]))
///     .allowed_origins(Allowed::Only(vec!["https://app.example.com".into()]));
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(super) mode: ResponseMode,
    pub(super) hosts: Option<Allowed>,
    pub(super) origins: Option<Allowed>,
    pub(super) authorization: Option<Authorization>,
    /// The URL clients reach the server at, when it is not `http://ADDR/mcp`.
    pub(super) public_url: Option<String>,
    pub(super) cors: Option<Allowed>,
    pub(super) max_sessions: usize,
    pub(super) max_requests: usize,
    pub(super) idle_timeout: Duration,
    pub(super) max_listen_streams: usize,
    pub(super) events: Option<Arc<dyn EventStore>>,
    pub(super) sessions: Option<Arc<dyn SessionStore>>,
    pub(super) instance_tag: Option<String>,
    pub(super) head_timeout: Duration,
    pub(super) body_timeout: Duration,
    pub(super) keep_alive_timeout: Duration,
    pub(super) max_connections: Option<usize>,
    /// Where `/healthz` and `/readyz` are served; `None`: not at all.
    pub(super) health: Option<(String, String)>,
    /// Where the metrics are served as Prometheus text (feature `telemetry`).
    #[cfg(feature = "telemetry")]
    pub(super) metrics: Option<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            mode: ResponseMode::default(),
            hosts: None,
            origins: None,
            authorization: None,
            public_url: None,
            cors: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_requests: DEFAULT_MAX_REQUESTS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_listen_streams: DEFAULT_MAX_LISTEN_STREAMS,
            events: None,
            sessions: None,
            instance_tag: None,
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            max_connections: None,
            health: Some(("/healthz".to_owned(), "/readyz".to_owned())),
            #[cfg(feature = "telemetry")]
            metrics: None,
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

/// How long a client has to send a request's head (its request line and headers) once it
/// sent the first byte of it, unless configured ([`Server::serve_http`](crate::Server::serve_http)).
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client has to send a POST's body once its head arrived, unless configured.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a keep-alive connection may stay idle (no request in flight, nothing sent)
/// before it is closed, unless configured ([`Server::serve_http`](crate::Server::serve_http)).
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// File descriptors kept free below the process's limit when the connection limit is
/// derived from it: for the session store, logs, and the listener itself.
pub const RESERVED_FILES: usize = 64;

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("mode", &self.mode)
            .field("hosts", &self.hosts)
            .field("origins", &self.origins)
            .field("authorization", &self.authorization)
            .field("public_url", &self.public_url)
            .field("cors", &self.cors)
            .field("max_sessions", &self.max_sessions)
            .field("instance_tag", &self.instance_tag)
            .field("max_requests", &self.max_requests)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_listen_streams", &self.max_listen_streams)
            .field("head_timeout", &self.head_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("keep_alive_timeout", &self.keep_alive_timeout)
            .field("max_connections", &self.max_connections)
            .finish()
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
    /// default; with a [public URL](Self::public_url), its host (and the loopback names, bound
    /// to loopback); bound elsewhere, or mounted as a router, the server refuses to start
    /// without this.
    #[must_use]
    pub fn allowed_hosts(mut self, hosts: Allowed) -> Self {
        self.hosts = Some(hosts);
        self
    }

    /// The URL clients reach the server at, behind a proxy (`https://mcp.example.com/mcp`;
    /// `--public-url`): the resource its tokens are issued for and its metadata names (RFC
    /// 8707, 9728; [`Authorization::resource`] may not differ), and, unless the allow-lists
    /// say otherwise, its host the `Host` accepted, its origin the `Origin`. By default
    /// `http://ADDR/mcp`.
    ///
    /// ```
    /// let options = mcp_runtime::http::HttpOptions::default().public_url("https://mcp.example.com/mcp");
    /// # drop(options);
    /// ```
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// The public URL given, if any (the command line checks its own against it).
    pub(crate) fn given_public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// Whether an authorization is given (the command line's `--oauth-issuer` would replace it).
    #[cfg(feature = "oauth")]
    pub(crate) fn has_authorization(&self) -> bool {
        self.authorization.is_some()
    }

    /// Authorizes every request as `authorization` says: a verifier (JWT, introspection, or
    /// a hook), the server's canonical URI, the scopes every request needs. Each request is
    /// verified on its own; the identity it yields reaches handlers as
    /// [`Context::identity`](crate::Context::identity) and owns the sessions it opens.
    #[must_use]
    pub fn authorization(mut self, authorization: Authorization) -> Self {
        self.authorization = Some(authorization);
        self
    }

    /// Authenticates every request with `hook`: [`Authorization::hook`] with the rest left
    /// as it is by default.
    ///
    /// ```
    /// use mcp_runtime::Identity;
    /// use mcp_runtime::http::{HttpOptions, Reject};
    /// let options = HttpOptions::default().bearer_auth(|headers| async move {
    ///     match headers.get("authorization").and_then(|v| v.to_str().ok()) {
    ///         Some("Bearer let-me-in") => Ok(Identity::new("alice")),
    ///         _ => Err(Reject::new("a valid bearer token is required")),
    ///     }
    /// });
    /// # drop(options);
    /// ```
    #[must_use]
    pub fn bearer_auth<F, Fut>(self, hook: F) -> Self
    where
        F: Fn(HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Identity, Reject>> + Send + 'static,
    {
        self.authorization(Authorization::hook(hook))
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
    /// the process, [`MemoryEventStore`](super::MemoryEventStore)). Instances behind a load
    /// balancer share one so that a client resumes on any of them.
    #[must_use]
    pub fn event_store(mut self, store: impl EventStore) -> Self {
        self.events = Some(Arc::new(store));
        self
    }

    /// Where the sessions of the handshake revisions are kept (default: in the process,
    /// [`MemorySessionStore`](super::MemorySessionStore)). Instances behind a load balancer
    /// that share one serve each other's sessions: a session's state is saved there when it
    /// changes and loaded by an instance that does not serve it yet.
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
    /// let options = mcp_runtime::http::HttpOptions::default().instance_tag("b");
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

    /// How long a client has to send a request's head once it started it (default
    /// [`DEFAULT_HEAD_TIMEOUT`]); past it the connection is closed. Applies where the server
    /// owns the connections ([`Server::serve_http`](crate::Server::serve_http)); a router
    /// mounted in an application of your own is served by that application's server.
    #[must_use]
    pub fn head_timeout(mut self, timeout: Duration) -> Self {
        self.head_timeout = timeout;
        self
    }

    /// How long a client has to send a POST's body once its head arrived (default
    /// [`DEFAULT_BODY_TIMEOUT`]); past it the POST is answered 408 and the connection closed.
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may stay idle, no request in flight, before it is
    /// closed (default [`DEFAULT_KEEP_ALIVE_TIMEOUT`]). A connection carrying an SSE stream is
    /// never idle. Applies where the server owns the connections, as
    /// [`head_timeout`](Self::head_timeout) does.
    #[must_use]
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.keep_alive_timeout = timeout;
        self
    }

    /// How many connections may be open at once (default: the process's file limit less
    /// [`RESERVED_FILES`], read when serving starts). At the limit, the connection idle or
    /// stalled the longest is closed to make room for a new one; when every connection is
    /// serving a request, the new one is answered 503 with `Retry-After`. Applies where the
    /// server owns the connections, as [`head_timeout`](Self::head_timeout) does.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = Some(connections.max(1));
        self
    }

    /// Serves the liveness and readiness probes at `live` and `ready` instead of `/healthz`
    /// and `/readyz`. They answer whatever the `Host` and need no credentials: `/healthz` 200
    /// while the server serves, `/readyz` 200 when it can take requests, 503 while it drains
    /// on shutdown or while its session or event store cannot be reached.
    #[must_use]
    pub fn health_paths(mut self, live: impl Into<String>, ready: impl Into<String>) -> Self {
        self.health = Some((live.into(), ready.into()));
        self
    }

    /// Serves no probes (see [`health_paths`](Self::health_paths)).
    #[must_use]
    pub fn without_health_checks(mut self) -> Self {
        self.health = None;
        self
    }

    /// Serves the server's metrics as Prometheus text at `path` (feature `telemetry`, with
    /// [`Server::telemetry`](crate::Server::telemetry); `run()` serves them at `/metrics` when
    /// it listens on loopback, and at `http://ADDR/metrics` apart with `--metrics ADDR`).
    /// The `Host` and `Origin` allow-lists apply, as for the endpoint.
    #[cfg(feature = "telemetry")]
    #[cfg_attr(docsrs, doc(cfg(feature = "telemetry")))]
    #[must_use]
    pub fn metrics_path(mut self, path: impl Into<String>) -> Self {
        self.metrics = Some(path.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are the documented constants (the README's table is checked against the
    /// constants by `tests/tests/readme.rs`).
    #[test]
    fn the_defaults_are_the_documented_constants() {
        let options = HttpOptions::default();
        assert_eq!(options.head_timeout, DEFAULT_HEAD_TIMEOUT);
        assert_eq!(options.body_timeout, DEFAULT_BODY_TIMEOUT);
        assert_eq!(options.keep_alive_timeout, DEFAULT_KEEP_ALIVE_TIMEOUT);
        assert_eq!(options.idle_timeout, DEFAULT_IDLE_TIMEOUT);
        assert_eq!(options.max_requests, DEFAULT_MAX_REQUESTS);
        assert_eq!(options.max_sessions, DEFAULT_MAX_SESSIONS);
        assert_eq!(options.max_listen_streams, DEFAULT_MAX_LISTEN_STREAMS);
        assert_eq!(options.max_connections, None, "the file limit less RESERVED_FILES, read at start");
        assert!(options.events.is_none() && options.sessions.is_none(), "the in-memory stores");
    }
}
