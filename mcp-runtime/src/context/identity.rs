//! What the transport knows of a request beyond its message: who made it and its headers.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::Notify;

/// Who made a request, as the server's authentication hook established it (HTTP).
///
/// ```
/// use mcp_runtime::Identity;
/// let who = Identity::new("user-42").claim("scope", "notes:write");
/// assert_eq!(who.subject(), "user-42");
/// assert_eq!(who.claims()["scope"], "notes:write");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    subject: String,
    claims: Map<String, Value>,
}

impl Identity {
    /// An identity named `subject` (a stable principal id: a user id, a client id).
    pub fn new(subject: impl Into<String>) -> Self {
        Identity { subject: subject.into(), claims: Map::new() }
    }

    /// Adds a claim (a scope, a tenant, …).
    #[must_use]
    pub fn claim(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.claims.insert(name.into(), value.into());
        self
    }

    /// The principal id.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The claims.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// What a transport knows of a request besides its message: its HTTP headers and who made it.
#[derive(Debug, Default)]
pub(crate) struct RequestExtras {
    /// The request's headers, as the HTTP transport received them (moved here, not copied:
    /// most requests never read them).
    #[cfg(feature = "http")]
    pub(crate) headers: axum::http::HeaderMap,
    pub(crate) identity: Option<Identity>,
    /// The client's address, when the server's own listener accepted its connection.
    pub(crate) peer: Option<std::net::SocketAddr>,
    /// Closes the request's resumable SSE stream (HTTP, handshake revisions).
    pub(crate) stream_close: Option<Arc<Notify>>,
}

impl RequestExtras {
    /// The value of header `name` (case-insensitive), when it was sent as visible ASCII.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        #[cfg(feature = "http")]
        return self.headers.get(name).and_then(|value| value.to_str().ok());
        #[cfg(not(feature = "http"))]
        {
            let _ = name;
            None
        }
    }
}
