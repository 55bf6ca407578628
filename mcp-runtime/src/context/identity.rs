//! What the transport knows of a request beyond its message: who made it and its headers.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value};
use tokio::sync::Notify;

/// Who made a request, as the server's authorization established it (HTTP): a verified
/// token's subject, scopes, client and expiry, and its claims.
///
/// The three ways of authenticating (the JWT verifier, token introspection, a hook of one's
/// own) all produce one. The token itself is not part of it: a handler that calls another
/// service gets a token of its own for it.
///
/// ```
/// use mcp_runtime::Identity;
/// let who = Identity::new("user-42").with_scopes(["notes:read", "notes:write"]).claim("tenant", "acme");
/// assert_eq!(who.subject(), "user-42");
/// assert!(who.has_scope("notes:write"));
/// assert_eq!(who.claims()["tenant"], "acme");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    subject: String,
    scopes: Vec<String>,
    client_id: Option<String>,
    expires_at: Option<SystemTime>,
    claims: Map<String, Value>,
}

impl Identity {
    /// An identity named `subject` (a stable principal id: a user id, a client id).
    pub fn new(subject: impl Into<String>) -> Self {
        Identity { subject: subject.into(), scopes: Vec::new(), client_id: None, expires_at: None, claims: Map::new() }
    }

    /// The identity a token's claims describe (a JWT access token's, RFC 9068, or an
    /// introspection answer's, RFC 7662): `sub` (else `client_id`), the scopes of `scope` and
    /// `scp` (a space-separated string or an array of strings), `client_id` (else `azp`),
    /// `exp`; every claim is kept. `None` without a subject.
    ///
    /// ```
    /// use mcp_runtime::Identity;
    /// let claims = serde_json::json!({"sub": "svc", "scope": "a b", "scp": ["c"], "azp": "cli", "exp": 2000000000});
    /// let who = Identity::from_claims(claims.as_object().unwrap().clone()).unwrap();
    /// assert_eq!(who.scopes(), ["a", "b", "c"]);
    /// assert_eq!(who.client_id(), Some("cli"));
    /// ```
    pub fn from_claims(claims: Map<String, Value>) -> Option<Self> {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let subject = text("sub").or_else(|| text("client_id"))?;
        let client_id = text("client_id").or_else(|| text("azp"));
        let expires_at = claims
            .get("exp")
            .and_then(Value::as_u64)
            .and_then(|secs| SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(secs)));
        let mut scopes: Vec<String> = Vec::new();
        for name in ["scope", "scp"] {
            let words: Vec<&str> = match claims.get(name) {
                Some(Value::String(list)) => list.split(' ').collect(),
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            for word in words {
                if !word.is_empty() && !scopes.iter().any(|s| s == word) {
                    scopes.push(word.to_owned());
                }
            }
        }
        Some(Identity { subject, scopes, client_id, expires_at, claims })
    }

    /// Adds a claim (a tenant, a role, …).
    #[must_use]
    pub fn claim(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.claims.insert(name.into(), value.into());
        self
    }

    /// Grants these scopes (what the scope checks compare items' declared scopes with).
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !scope.is_empty() && !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self
    }

    /// Names the OAuth client the token was issued to.
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Says when the credentials expire.
    #[must_use]
    pub fn with_expiry(mut self, at: SystemTime) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// The principal id.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes granted, each once.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` is granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The OAuth client the token was issued to, when known.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// When the credentials expire, when known.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at
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
    /// Set when the HTTP edge authorized the request: what the scope checks need.
    #[cfg(feature = "http")]
    pub(crate) authorized: Option<Arc<Authorized>>,
    /// The client's address, when the server's own listener accepted its connection.
    pub(crate) peer: Option<std::net::SocketAddr>,
    /// Closes the request's resumable SSE stream (HTTP, handshake revisions).
    pub(crate) stream_close: Option<Arc<Notify>>,
}

/// How the HTTP edge authorized a request: what the scope checks need to refuse one with a
/// challenge, and whether lists show items the caller cannot use.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct Authorized {
    /// Where the protected-resource metadata is, for the challenges to name.
    pub(crate) metadata_url: Option<String>,
    /// Lists show every item, whatever the caller's scopes.
    pub(crate) list_all: bool,
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
