//! Streamable HTTP: one endpoint (`/mcp`) for both eras, on axum.
//!
//! A handshake-era session runs the same loop as stdio ([`connection::run`]), fed by its
//! POSTs, for what needs a connection's order (its lifecycle, the server's questions, its
//! notifications). A 2026-07-28 request needs none: it is served where it arrives, in the task
//! of the HTTP connection that read it (`serve::stateless`), and a client that goes away
//! cancels it by dropping it; only its `subscriptions/listen` streams live on a loop, which
//! feeds them the change notices. Each POSTed request has a stream of its own, which receives
//! the handler's notifications and the server's questions about it, then its response (marked
//! as such, so nothing here reads it back): the POST answers `application/json` when the
//! response comes first, and switches to an SSE stream when anything comes before it (or
//! always, in [`ResponseMode::Sse`]).
//!
//! One concern a file: [`options`] (what a server configures), [`admission`] (framing,
//! `Host`, `Origin`, authentication, CORS), [`media`] (`Content-Type` and `Accept`),
//! [`sessions`] (the session table and its loops), [`session_expiry`], [`post`] (a message
//! in, served), [`answering`] (its answer out, JSON or SSE), [`body`] (a POST's body read and checked), [`stateless_headers`]
//! (2026-07-28's headers against the body), [`sse`] (events as written, and kept), [`streams`]
//! (a session's resumable streams and the GET stream), the two stores a deployment may share
//! ([`session_store`], [`event_store`]), [`connections`] (the accept loop, its limit and
//! timeouts), [`file_limit`], and here the router and DELETE.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use tokio::sync::watch;

mod admission;
mod answering;
mod body;
pub(crate) mod connections;
pub(crate) mod event_store;
pub(crate) mod file_limit;
pub(crate) mod health;
mod media;
mod memory_event_store;
mod options;
mod post;
mod server_card;
mod session_expiry;
pub(crate) mod session_store;
mod sessions;
mod sse;
mod standalone;
mod stateless_headers;
mod streams;

pub use options::{
    Allowed, DEFAULT_BODY_TIMEOUT, DEFAULT_HEAD_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_REQUESTS, DEFAULT_MAX_SESSIONS, HttpOptions, RESERVED_FILES, ResponseMode,
};

pub use event_store::{EventStore, StoredEvents};
pub use memory_event_store::{DEFAULT_MAX_EVENT_BYTES, MemoryEventStore};
pub use session_store::{MemorySessionStore, SessionRecord, SessionStore};

use crate::auth::edge::Edge;
use crate::protocol::{ErrorObject, RequestId, error_line};
use crate::server::changes::ChangeEvent;
use crate::server::core::ServerCore;
use admission::{LOOPBACK_HOSTS, admit, header_str, on_preflight, with_cors};
use post::on_post;
use session_expiry::{expire_idle_sessions, forget_ended_sessions, take_forwarded_messages};
use sessions::{App, LoopSeed, find_session, start_loop};
use streams::on_get;

// The MCP headers, as names made once: a lookup by a `&str` parses the name on every request.
/// The session header of the handshake revisions.
const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
/// The revision header.
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// The method a 2026-07-28 request names.
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// The tool, prompt or resource a 2026-07-28 request names.
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// What the connections [`Server::serve_http`](crate::Server::serve_http) owns may take, as
/// `options` say.
pub(crate) fn connection_rules(options: &HttpOptions) -> connections::ConnectionRules {
    connections::ConnectionRules {
        head_timeout: options.head_timeout,
        keep_alive_timeout: options.keep_alive_timeout,
        max_connections: options.max_connections.unwrap_or_else(|| file_limit::default_max_connections(RESERVED_FILES)),
    }
}

/// An error answered before any loop saw the message.
fn reject(status: StatusCode, id: Option<&RequestId>, error: ErrorObject) -> Response {
    let mut body = error_line(id, &error);
    body.pop();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// DELETE: ends a session.
async fn on_delete(State(app): State<Arc<App>>, uri: Uri, headers: HeaderMap) -> Response {
    let identity = match admit(&app, &uri, &headers).await {
        Ok(identity) => identity,
        Err(rejected) => return *rejected,
    };
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        return method_not_allowed("DELETE ends a session: send Mcp-Session-Id (2026-07-28 has no sessions)");
    };
    if let Err(answer) = find_session(&app, session, identity.as_ref(), None).await {
        return *answer;
    }
    app.end_session(session);
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

/// Whether `tag` may start session ids: what a proxy can match without escaping, and no `_`
/// (event ids end in `_` and a sequence number).
fn valid_instance_tag(tag: &str) -> bool {
    (1..=32).contains(&tag.len()) && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// What serving HTTP is made of: the endpoint's router (`/mcp`, the probes, the metrics), the
/// protected-resource metadata's (served at the origin's root), and what stops the sessions
/// (send `true`).
pub(crate) struct Routers {
    pub(crate) endpoint: axum::Router,
    pub(crate) metadata: axum::Router,
    pub(crate) stop: Arc<watch::Sender<bool>>,
}

/// The endpoint's routers.
pub(crate) fn router(
    core: Arc<ServerCore>,
    options: HttpOptions,
    bound: Option<SocketAddr>,
) -> crate::error::Result<Routers> {
    let loopback = bound.is_some_and(|addr| addr.ip().is_loopback());
    let public = match &options.public_url {
        Some(url) => Some(PublicUrl::parse(url).map_err(crate::error::Error::Usage)?),
        None => None,
    };
    let loopback_hosts = || LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned());
    let hosts = match (options.hosts, &public, loopback) {
        (Some(hosts), ..) => hosts,
        (None, Some(public), loopback) => {
            Allowed::Only(std::iter::once(public.host.clone()).chain(loopback_hosts().filter(|_| loopback)).collect())
        }
        (None, None, true) => Allowed::Only(loopback_hosts().collect()),
        (None, None, false) => {
            return Err(crate::error::Error::Usage(
                "serving HTTP on a non-loopback address (or as a router) needs an explicit host allow-list: \
             `HttpOptions::allowed_hosts` (`Allowed::Any` to accept any, behind a proxy that checks)"
                    .into(),
            ));
        }
    };
    let loopback_origins = |port: u16| {
        LOOPBACK_HOSTS
            .iter()
            .flat_map(move |h| [format!("http://{h}"), format!("http://{h}:{port}"), format!("https://{h}")])
    };
    let origins = match (options.origins, &public, bound) {
        (Some(origins), ..) => origins,
        (None, Some(public), bound) => Allowed::Only(
            std::iter::once(public.origin.clone())
                .chain(bound.filter(|_| loopback).into_iter().flat_map(|addr| loopback_origins(addr.port())))
                .collect(),
        ),
        (None, None, Some(addr)) if loopback => Allowed::Only(loopback_origins(addr.port()).collect()),
        (None, None, _) => {
            return Err(crate::error::Error::Usage(
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
            return Err(crate::error::Error::Usage(format!(
                "instance tag `{tag}` is invalid: use 1 to 32 letters, digits and `-`"
            )));
        }
    };
    let declared = core.registry().declared_scopes();
    let edge = match options.authorization {
        Some(authorization) => Some(Edge::new(authorization, bound, options.public_url.as_deref(), &declared)?),
        None => {
            if !declared.is_empty() {
                tracing::warn!(
                    scopes = %declared.join(" "),
                    "items declare scopes but HTTP is served without authorization: the scopes are not checked \
                     (configure `HttpOptions::authorization`)"
                );
            }
            None
        }
    };
    let metadata = edge.as_ref().and_then(|edge| edge.metadata.clone());
    let (stop, stopping) = watch::channel(false);
    let stop = Arc::new(stop);
    let events = options.events.unwrap_or_else(|| Arc::new(MemoryEventStore::default()));
    let seed = LoopSeed { id: String::new(), owner: None, restore: None, listen_limit: options.max_listen_streams };
    let listening = start_loop(&core, &events, &stopping, seed);
    let max = core.config.max_message_size;
    let idle = options.idle_timeout;
    let app = Arc::new(App {
        core,
        mode: options.mode,
        hosts,
        origins,
        sessions: Mutex::default(),
        edge,
        max_sessions: options.max_sessions,
        session_prefix,
        events,
        store: options.sessions.unwrap_or_else(|| Arc::new(MemorySessionStore::default())),
        idle,
        body_timeout: options.body_timeout,
        requests: Arc::new(tokio::sync::Semaphore::new(options.max_requests)),
        listening,
        stopping,
        _stop: Arc::clone(&stop),
    });
    expire_idle_sessions(Arc::downgrade(&app), idle);
    forget_ended_sessions(Arc::downgrade(&app), app.core.ended_sessions.subscribe());
    take_forwarded_messages(Arc::downgrade(&app), app.core.client_messages.subscribe());
    let cors = options.cors.map(Arc::new);
    let mut router = axum::Router::new()
        .route("/mcp", post(on_post).get(on_get).delete(on_delete).options(on_preflight))
        .layer(DefaultBodyLimit::max(max))
        .with_state(Arc::clone(&app));
    if let Some(cors) = cors {
        router =
            router.layer(axum::middleware::from_fn(move |request, next| with_cors(Arc::clone(&cors), request, next)));
    }
    if let Some((live, ready)) = &options.health {
        router = router.merge(
            axum::Router::new()
                .route(live, axum::routing::get(health::on_live))
                .route(ready, axum::routing::get(health::on_ready))
                .with_state(Arc::clone(&app)),
        );
    }
    if let Some(name) = &app.core.card_name {
        // Where clients reach the endpoint: the public URL, else the address bound (none when
        // mounted as a router: the card then names no remote).
        let endpoint = options.public_url.clone().or_else(|| bound.map(|addr| format!("http://{addr}/mcp")));
        let card = crate::server::card::card(&app.core.info, name, endpoint.as_deref(), app.edge.is_some())?;
        router = router.merge(server_card::router(server_card::Card::new(&card)));
    }
    #[cfg(feature = "telemetry")]
    if let Some(path) = &options.metrics {
        let metrics = axum::Router::new().route(path, axum::routing::get(health::on_metrics));
        router = router.merge(metrics.with_state(Arc::clone(&app)));
    }
    let mut metadata_router = axum::Router::new();
    if let Some((path, document)) = metadata {
        // Public, and read by browser clients: any origin may fetch it.
        let serve = move || {
            let document = document.clone();
            async move {
                let headers = [(header::CONTENT_TYPE, "application/json"), (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")];
                (headers, document)
            }
        };
        metadata_router = metadata_router.route(&path, axum::routing::get(serve).options(on_preflight));
    }
    Ok(Routers { endpoint: router, metadata: metadata_router, stop })
}

/// A public URL's parts the defaults take: its host (without a port: a `Host` with any port
/// matches it) and its origin.
#[derive(Debug, PartialEq, Eq)]
struct PublicUrl {
    host: String,
    origin: String,
}

impl PublicUrl {
    fn parse(url: &str) -> Result<PublicUrl, String> {
        let resource = crate::auth::metadata::parse_resource(url).map_err(|e| format!("the public URL: {e}"))?;
        let authority = resource.origin.split_once("://").map_or("", |(_, authority)| authority);
        let host = match authority.strip_prefix('[') {
            Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or("")),
            None => authority.split(':').next().unwrap_or("").to_owned(),
        };
        Ok(PublicUrl { host, origin: resource.origin.to_owned() })
    }
}

#[cfg(test)]
mod public_url_tests {
    use super::PublicUrl;

    #[test]
    fn a_public_url_gives_its_host_and_origin() {
        let parsed = PublicUrl::parse("https://mcp.example.com:8443/mcp").unwrap();
        assert_eq!(parsed, PublicUrl { host: "mcp.example.com".into(), origin: "https://mcp.example.com:8443".into() });
        assert_eq!(PublicUrl::parse("http://[::1]:80/mcp").unwrap().host, "[::1]");
        assert!(PublicUrl::parse("mcp.example.com/mcp").unwrap_err().contains("the public URL"));
    }
}
