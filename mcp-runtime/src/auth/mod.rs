//! Authorization: the server as an OAuth 2.1 resource server (HTTP).
//!
//! What is configured ([`Authorization`]: a verifier, the canonical resource URI, the
//! server-wide minimum scopes), and what it does with it: [`bearer`] reads a request's
//! credentials, a verifier turns a token into an [`Identity`](crate::Identity) ([`jwt`] with
//! the issuer's keys, [`introspection`] by asking the issuer, or a hook of the application's),
//! [`edge`] admits or refuses each request with the [`challenge`] the spec asks for,
//! [`metadata`] derives the protected-resource metadata (RFC 9728), and [`check`] is the layer
//! that refuses a call, read or get whose item's declared scopes the caller lacks, and leaves
//! such items out of lists.

pub(crate) mod bearer;
#[cfg(feature = "oauth")]
mod cache;
pub(crate) mod challenge;
pub(crate) mod check;
pub(crate) mod edge;
#[cfg(feature = "oauth")]
pub(crate) mod introspection;
#[cfg(feature = "oauth")]
mod jws;
#[cfg(feature = "oauth")]
pub(crate) mod jwt;
#[cfg(feature = "oauth")]
mod keys;
pub(crate) mod metadata;

use std::sync::Arc;

use crate::context::Identity;

#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use introspection::IntrospectionVerifier;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use jwt::JwtVerifier;

/// The application's own authentication: the request's headers in, who made it (or why
/// not) out.
pub(crate) type AuthHook =
    Arc<dyn Fn(axum::http::HeaderMap) -> crate::util::BoxFuture<'static, Result<Identity, Reject>> + Send + Sync>;

/// Why the authentication hook refused a request: answered with 401 and a
/// `WWW-Authenticate: Bearer error="invalid_token"` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    pub(crate) message: String,
}

impl Reject {
    /// A refusal saying `message` (sent to the client: say nothing secret).
    pub fn new(message: impl Into<String>) -> Self {
        Reject { message: message.into() }
    }
}

/// What turns a request's credentials into an [`Identity`].
#[derive(Clone)]
pub(crate) enum Verifier {
    /// The application's hook, given the headers.
    Hook(AuthHook),
    /// A JWT access token, checked with the issuer's published keys.
    #[cfg(feature = "oauth")]
    Jwt(Arc<JwtVerifier>),
    /// An opaque token, asked about at the issuer's introspection endpoint.
    #[cfg(feature = "oauth")]
    Introspection(Arc<IntrospectionVerifier>),
}

/// Why a token verifier did not produce an identity.
#[cfg(feature = "oauth")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenError {
    /// The token is not valid for this server (401 `invalid_token`); the reason is safe to
    /// send.
    Invalid(String),
    /// It cannot be checked now (the issuer's keys or introspection endpoint cannot be
    /// reached): 503, never "valid".
    Unavailable(String),
}

/// How the HTTP endpoint authorizes requests: who verifies tokens, the resource it is, and
/// what every request needs.
///
/// Every request is verified on its own (a session never stands in for a token); the
/// identity a verifier produces reaches handlers as [`Context::identity`](crate::Context::identity)
/// and owns the sessions it opens. Items declared with scopes (`#[mcp_tool(scopes("notes:write"))]`,
/// [`ToolDescriptor::scope`](crate::ToolDescriptor::scope)) are refused, with a 403 a client
/// can step up from, to callers without them, and left out of their lists.
///
/// ```
/// use mcp_runtime::http::{Authorization, HttpOptions, Reject};
/// use mcp_runtime::Identity;
/// let auth = Authorization::hook(|headers| async move {
///     match headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
///         Some("let-me-in") => Ok(Identity::new("alice").with_scopes(["notes:read"])),
///         _ => Err(Reject::new("an API key is required")),
///     }
/// })
/// .resource("https://mcp.example.com/mcp");
/// let options = HttpOptions::default().authorization(auth);
/// # drop(options);
/// ```
#[derive(Clone)]
pub struct Authorization {
    pub(crate) verifier: Verifier,
    pub(crate) resource: Option<String>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) required: Vec<String>,
    pub(crate) list_all: bool,
    pub(crate) resource_name: Option<String>,
    pub(crate) keep_token: bool,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verifier = match &self.verifier {
            Verifier::Hook(_) => "hook",
            #[cfg(feature = "oauth")]
            Verifier::Jwt(_) => "jwt",
            #[cfg(feature = "oauth")]
            Verifier::Introspection(_) => "introspection",
        };
        f.debug_struct("Authorization")
            .field("verifier", &verifier)
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required", &self.required)
            .field("list_all", &self.list_all)
            .finish()
    }
}

impl Authorization {
    fn with(verifier: Verifier, servers: Vec<String>) -> Self {
        Authorization {
            verifier,
            resource: None,
            authorization_servers: servers,
            required: Vec::new(),
            list_all: false,
            resource_name: None,
            keep_token: false,
        }
    }

    /// Authorizes with JWT access tokens from `verifier`'s issuer (which the
    /// protected-resource metadata names as the authorization server).
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn jwt(verifier: JwtVerifier) -> Self {
        let issuer = verifier.issuer().to_owned();
        Authorization::with(Verifier::Jwt(Arc::new(verifier)), vec![issuer])
    }

    /// Authorizes with opaque tokens, asking `verifier`'s issuer about each (RFC 7662).
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn introspection(verifier: IntrospectionVerifier) -> Self {
        let issuer = verifier.issuer().to_owned();
        Authorization::with(Verifier::Introspection(Arc::new(verifier)), vec![issuer])
    }

    /// Authorizes with the application's own `hook`: it gets every request's headers and
    /// returns who made it or a [`Reject`] (answered 401 with a `WWW-Authenticate`
    /// challenge). Name the authorization server with
    /// [`authorization_server`](Self::authorization_server) for the metadata to be served.
    pub fn hook<F, Fut>(hook: F) -> Self
    where
        F: Fn(axum::http::HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Identity, Reject>> + Send + 'static,
    {
        Authorization::with(Verifier::Hook(Arc::new(move |headers| Box::pin(hook(headers)))), Vec::new())
    }

    /// This server's canonical URI, as clients name it and tokens' audience says it
    /// (`https://mcp.example.com/mcp`; RFC 8707). By default `http://ADDR/mcp`, `ADDR` the
    /// address [`Server::serve_http`](crate::Server::serve_http) listens on; a router mounted
    /// in an application must be given it. It is never taken from a request's `Host`.
    #[must_use]
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into());
        self
    }

    /// Names one more authorization server in the protected-resource metadata.
    #[must_use]
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.authorization_servers.contains(&issuer) {
            self.authorization_servers.push(issuer);
        }
        self
    }

    /// Scopes every request needs, whatever it asks (a token without them is refused with
    /// 403 `insufficient_scope`); a first token should ask for them.
    #[must_use]
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !scope.is_empty() && !self.required.contains(&scope) {
                self.required.push(scope);
            }
        }
        self
    }

    /// Lists every item whatever the caller's scopes (by default a list shows only the items
    /// the caller may use); calling one without its scopes is still refused.
    #[must_use]
    pub fn list_all_items(mut self) -> Self {
        self.list_all = true;
        self
    }

    /// The human-readable name the metadata gives (`resource_name`).
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Leaves the `Authorization` header where handlers can read it
    /// ([`Context::header`](crate::Context::header)). By default it is removed once verified:
    /// the spec forbids passing a client's token on to other services.
    #[must_use]
    pub fn keep_token_header(mut self) -> Self {
        self.keep_token = true;
        self
    }
}
