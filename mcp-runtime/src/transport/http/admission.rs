//! What every request passes first: the framing checks (one `Host`, one `Mcp-Session-Id`), the
//! `Host` and `Origin` checks (the defence against DNS rebinding), authentication, and CORS.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::options::Allowed;
use super::sessions::App;
use super::{SESSION_HEADER, VERSION_HEADER, reject};
use crate::auth::challenge::Refusal;
use crate::context::Identity;
use crate::protocol::{ErrorObject, Feature, Revision};

/// The loopback names a local server answers to.
pub(super) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The framing checks: a header that names one thing sent twice is a request two readers
/// may read differently (a proxy the first, this server the last), so it is refused (400).
fn check_framing(headers: &HeaderMap) -> Result<(), Box<Response>> {
    for (name, shown) in [(header::HOST, "Host"), (SESSION_HEADER, "Mcp-Session-Id")] {
        if headers.get_all(&name).iter().nth(1).is_some() {
            let error = ErrorObject::invalid_request(format!("Bad request: `{shown}` is sent more than once"));
            return Err(Box::new(reject(StatusCode::BAD_REQUEST, None, error)));
        }
    }
    Ok(())
}

/// The `Host` and `Origin` checks. The host is the target's authority when the request line
/// has one (absolute form: RFC 9112 §3.2.2 says `Host` is then ignored), else `Host`.
pub(super) fn check_headers(app: &App, uri: &Uri, headers: &HeaderMap) -> Result<(), Box<Response>> {
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
    let host = match uri.authority() {
        Some(authority) => authority.as_str(),
        None => headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or(""),
    };
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

/// A header's value, when it is visible ASCII.
pub(super) fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Authorizes the request: who made it (`None` without authorization), or the refusal with
/// its challenge.
pub(super) async fn authenticate(app: &App, uri: &Uri, headers: &HeaderMap) -> Result<Option<Identity>, Box<Response>> {
    let Some(edge) = &app.edge else { return Ok(None) };
    let stateless = header_str(headers, VERSION_HEADER)
        .and_then(Revision::parse)
        .is_some_and(|revision| revision.supports(Feature::Stateless));
    match edge.admit(uri.query(), headers, stateless).await {
        Ok(identity) => Ok(Some(identity)),
        Err(refusal) => {
            let mut response = reject(refusal.status(), None, refusal.error());
            if let Some(value) = refusal.challenge(&edge.info).and_then(|c| HeaderValue::from_str(&c).ok()) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            }
            if refusal == Refusal::Unavailable {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            }
            Err(Box::new(response))
        }
    }
}

/// The checks every method of the endpoint runs first: framing, `Host`, `Origin`,
/// authentication.
pub(super) async fn admit(app: &App, uri: &Uri, headers: &HeaderMap) -> Result<Option<Identity>, Box<Response>> {
    check_framing(headers)?;
    check_headers(app, uri, headers)?;
    authenticate(app, uri, headers).await
}

/// OPTIONS: a CORS preflight (answered with the CORS headers when enabled, else plainly).
pub(super) async fn on_preflight() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// The headers browsers may send and read.
pub(super) const CORS_ALLOW_HEADERS: &str =
    "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id";

pub(super) const CORS_EXPOSE_HEADERS: &str = "mcp-session-id, www-authenticate";

/// Adds the CORS headers to the answers of allowed origins.
pub(super) async fn with_cors(
    origins: Arc<Allowed>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
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

/// The client's address: known when the server's own listener accepted the connection, or
/// when a router mounted elsewhere is served with axum's connect info.
pub(super) fn client_address(extensions: &axum::http::Extensions) -> Option<std::net::SocketAddr> {
    let connected = extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
    connected.map(|info| info.0)
}
