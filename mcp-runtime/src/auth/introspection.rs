//! The introspection verifier: opaque tokens, asked about at the authorization server's
//! introspection endpoint (RFC 7662), the answers cached for a short while.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::TokenError;
use super::cache::{TokenCache, key};
use super::keys::{discover, endpoint, fetchable};
use crate::context::Identity;
use crate::util::form::form_body;
use crate::util::http_client;

/// How long an answer is reused, unless configured (never past the token's expiry).
pub const DEFAULT_INTROSPECTION_CACHE: Duration = Duration::from_secs(30);

/// The most an introspection answer may weigh.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Verifies opaque tokens by asking their issuer (RFC 7662), as the client `client_id`.
///
/// The endpoint is the issuer metadata's `introspection_endpoint` unless given. An active
/// token must name this server in `aud` (RFC 8707) and, when it says, the issuer in `iss`;
/// answers are reused for [`cache_for`](Self::cache_for), never past the token's `exp`.
///
/// ```
/// use mcp_runtime::http::{Authorization, IntrospectionVerifier};
/// # fn build() -> mcp_runtime::Result<()> {
/// let verifier = IntrospectionVerifier::new("https://auth.example.com", "mcp-server", "s3cret")?;
/// let auth = Authorization::introspection(verifier).resource("https://mcp.example.com/mcp");
/// # drop(auth);
/// # Ok(())
/// # }
/// ```
pub struct IntrospectionVerifier {
    issuer: String,
    endpoint: tokio::sync::OnceCell<String>,
    client_id: String,
    client_secret: String,
    audience: Option<String>,
    cache_for: Duration,
    cache: TokenCache,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("issuer", &self.issuer)
            .field("endpoint", &self.endpoint.get())
            .field("client_id", &self.client_id)
            .field("cache_for", &self.cache_for)
            .finish_non_exhaustive()
    }
}

impl IntrospectionVerifier {
    /// A verifier asking `issuer` (`https://`, or `http://` on a loopback host) as the client
    /// `client_id` with `client_secret` (HTTP Basic authentication).
    pub fn new(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> crate::error::Result<Self> {
        let issuer = issuer.into();
        if !fetchable(&issuer) {
            return Err(crate::error::Error::Usage(format!(
                "the issuer `{issuer}` must be an https:// URL (http:// only on a loopback host)"
            )));
        }
        Ok(IntrospectionVerifier {
            issuer,
            endpoint: tokio::sync::OnceCell::new(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audience: None,
            cache_for: DEFAULT_INTROSPECTION_CACHE,
            cache: TokenCache::default(),
        })
    }

    /// Asks `url` instead of the endpoint the issuer's metadata names.
    pub fn endpoint(self, url: impl Into<String>) -> crate::error::Result<Self> {
        let url = url.into();
        if !fetchable(&url) {
            return Err(crate::error::Error::Usage(format!(
                "the introspection endpoint `{url}` must be https:// (http:// only on a loopback host)"
            )));
        }
        let _ = self.endpoint.set(url);
        Ok(self)
    }

    /// The audience active tokens must name, when it is not the server's resource URI.
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// How long an answer is reused (default [`DEFAULT_INTROSPECTION_CACHE`]; zero asks for
    /// every request).
    #[must_use]
    pub fn cache_for(mut self, duration: Duration) -> Self {
        self.cache_for = duration;
        self
    }

    /// The issuer.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Who `token` was issued to, if it is active and for `resource`.
    pub(crate) async fn verify(&self, token: &str, resource: &str) -> Result<Identity, TokenError> {
        let digest = key(token, resource);
        if let Some(identity) = self.cache.get(&digest) {
            return Ok(identity);
        }
        let endpoint = self
            .endpoint
            .get_or_try_init(|| async { endpoint(&discover(&self.issuer).await?, "introspection_endpoint") })
            .await
            .map_err(|e| TokenError::Unavailable(e.0))?;
        let client = http_client::shared().map_err(TokenError::Unavailable)?;
        let request = client
            .post(endpoint)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form_body(&[("token", token.to_owned()), ("token_type_hint", "access_token".to_owned())]));
        let answer = http_client::json_object(request, MAX_ANSWER_BYTES)
            .await
            .map_err(|e| TokenError::Unavailable(format!("introspection at {endpoint}: {e}")))?;
        let invalid = |why: &str| Err(TokenError::Invalid(why.to_owned()));
        if answer.get("active") != Some(&Value::Bool(true)) {
            return invalid("the token is not active");
        }
        let audience = self.audience.as_deref().unwrap_or(resource);
        let for_us = match answer.get("aud") {
            Some(Value::String(one)) => one == audience,
            Some(Value::Array(many)) => many.iter().any(|a| a.as_str() == Some(audience)),
            _ => false,
        };
        if !for_us {
            return invalid("the token was issued for another resource");
        }
        if answer.get("iss").and_then(Value::as_str).is_some_and(|iss| iss != self.issuer) {
            return invalid("the token was issued by another authorization server");
        }
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_secs();
        if answer.get("exp").and_then(Value::as_u64).is_some_and(|exp| exp <= now) {
            return invalid("the token has expired");
        }
        if answer.get("nbf").and_then(Value::as_u64).is_some_and(|nbf| nbf > now) {
            return invalid("the token is not valid yet");
        }
        let Some(identity) = Identity::from_claims(answer) else { return invalid("the token names no subject") };
        self.cache.keep(digest, &identity, self.cache_for);
        Ok(identity)
    }
}
