//! The JWT verifier: access tokens signed by the authorization server (RFC 9068), checked
//! with its published keys: signature, issuer, expiry and not-before, and the audience, which
//! must be this server (RFC 8707).

use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::TokenError;
use super::cache::{TokenCache, key};
use super::keys::{KeyError, KeySet, fetchable};
use crate::context::Identity;

/// The clock skew allowed on `exp` and `nbf`, unless configured.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// How long a verified token is remembered (never past its `exp`), unless configured.
pub const DEFAULT_VERIFIED_CACHE: Duration = Duration::from_secs(60);

/// The least time between two fetches of the key set prompted by a token naming an unknown
/// key, unless configured.
pub const DEFAULT_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

/// The signature algorithms accepted: public-key ones only. A shared-secret algorithm (`HS256`
/// …) would let anyone holding the public key sign (algorithm confusion), and `none` signs
/// nothing.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The `alg` a token's header names, when it is a JSON object naming one.
fn named_algorithm(token: &str) -> Option<String> {
    use base64::Engine as _;
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token.split('.').next()?).ok()?;
    let header: Value = serde_json::from_slice(&header).ok()?;
    header.get("alg")?.as_str().map(str::to_owned)
}

/// Verifies JWT access tokens from one issuer.
///
/// It reads the issuer's metadata (RFC 8414, else OpenID discovery) on first use, fetches
/// and caches its key set (`jwks_uri`), and fetches the set again when a token names a key it
/// has not seen (a rotation): each key id at most once per
/// [refetch interval](Self::refetch_interval), and ten fetches a minute in all, so that tokens
/// naming made-up keys neither hammer the issuer nor keep out a key it has just published.
/// While the key set cannot be fetched, tokens signed with keys already known are still
/// checked; others are answered 503, never taken as valid. A token verified once is
/// remembered for a minute ([`remember_verified`](Self::remember_verified)): the same token
/// again costs a hash, not a signature check; its expiry is checked every time.
///
/// ```
/// use mcp_runtime::http::{Authorization, HttpOptions, JwtVerifier};
/// # fn build() -> mcp_runtime::Result<()> {
/// let verifier = JwtVerifier::new("https://auth.example.com")?.leeway(std::time::Duration::from_secs(10));
/// let options = HttpOptions::default()
///     .authorization(Authorization::jwt(verifier).resource("https://mcp.example.com/mcp"));
/// # drop(options);
/// # Ok(())
/// # }
/// ```
pub struct JwtVerifier {
    issuer: String,
    audience: Option<String>,
    leeway: Duration,
    keys: KeySet,
    remember_for: Duration,
    verified: TokenCache,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .finish()
    }
}

impl JwtVerifier {
    /// A verifier of tokens issued by `issuer` (its identifier, as tokens' `iss` says:
    /// `https://`, or `http://` on a loopback host).
    pub fn new(issuer: impl Into<String>) -> crate::error::Result<Self> {
        let issuer = issuer.into();
        if !fetchable(&issuer) {
            return Err(crate::error::Error::Usage(format!(
                "the issuer `{issuer}` must be an https:// URL (http:// only on a loopback host)"
            )));
        }
        let keys = KeySet::new(issuer.clone(), None, DEFAULT_REFETCH_INTERVAL);
        Ok(JwtVerifier {
            issuer,
            audience: None,
            leeway: DEFAULT_LEEWAY,
            keys,
            remember_for: DEFAULT_VERIFIED_CACHE,
            verified: TokenCache::default(),
        })
    }

    /// Takes the keys from `url` instead of the `jwks_uri` the issuer's metadata names.
    pub fn jwks_uri(mut self, url: impl Into<String>) -> crate::error::Result<Self> {
        let url = url.into();
        if !fetchable(&url) {
            return Err(crate::error::Error::Usage(format!(
                "the key set URL `{url}` must be https:// (http:// only on a loopback host)"
            )));
        }
        self.keys = KeySet::new(self.issuer.clone(), Some(url), self.keys.refetch_interval);
        Ok(self)
    }

    /// The audience tokens must name, when it is not the server's resource URI (the default,
    /// and what RFC 8707 asks for).
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The clock skew allowed on `exp` and `nbf` (default [`DEFAULT_LEEWAY`]).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the key set prompted by one unknown key id
    /// (default [`DEFAULT_REFETCH_INTERVAL`]); whatever the key ids, unknown keys prompt ten
    /// fetches a minute at most, so tokens naming made-up keys cannot make the server hammer
    /// the issuer.
    #[must_use]
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.keys.refetch_interval = interval;
        self
    }

    /// How long a verified token is remembered, so that the same token on later requests is
    /// not checked again (default [`DEFAULT_VERIFIED_CACHE`]; never past its `exp`, which is
    /// checked on every request; zero checks every request in full).
    #[must_use]
    pub fn remember_verified(mut self, time: Duration) -> Self {
        self.remember_for = time;
        self
    }

    /// The issuer.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Who `token` was issued to, if it is valid for `resource`.
    pub(crate) async fn verify(&self, token: &str, resource: &str) -> Result<Identity, TokenError> {
        let remembered = key(token, resource);
        if let Some(identity) = self.verified.get(&remembered) {
            return Ok(identity);
        }
        let identity = self.check(token, resource).await?;
        self.verified.keep(remembered, &identity, self.remember_for);
        Ok(identity)
    }

    /// [`verify`](Self::verify), in full.
    async fn check(&self, token: &str, resource: &str) -> Result<Identity, TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.to_owned());
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            // `none` and names this build does not know are no algorithm of its own.
            return Err(invalid(match named_algorithm(token) {
                Some(_) => "the token's signature algorithm is not accepted",
                None => "the token is not a well-formed JWT",
            }));
        };
        if !ACCEPTED.contains(&header.alg) {
            return Err(invalid("the token's signature algorithm is not accepted"));
        }
        // RFC 9068 §2.1 names `at+jwt`; many issuers still say `JWT` or nothing.
        let typ = header.typ.as_deref().map(str::to_ascii_lowercase);
        if !matches!(typ.as_deref(), None | Some("jwt" | "at+jwt" | "application/at+jwt")) {
            return Err(invalid("the token is not an access token"));
        }
        let key = match self.keys.find(header.kid.as_deref(), header.alg).await {
            Ok(key) => key,
            Err(KeyError::Unknown) => {
                return Err(invalid("the token is signed with a key the issuer does not publish"));
            }
            Err(KeyError::Unreachable(why)) => return Err(TokenError::Unavailable(why)),
        };
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[self.audience.as_deref().unwrap_or(resource)]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let claims = match jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation) {
            Ok(data) => data.claims,
            Err(e) => {
                return Err(invalid(match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired",
                    ErrorKind::ImmatureSignature => "the token is not valid yet",
                    ErrorKind::InvalidAudience => "the token was issued for another resource",
                    ErrorKind::InvalidIssuer => "the token was issued by another authorization server",
                    ErrorKind::InvalidSignature => "the token's signature does not verify",
                    ErrorKind::MissingRequiredClaim(_) => "the token lacks a claim (exp, iss or aud)",
                    _ => "the token is invalid",
                }));
            }
        };
        Identity::from_claims(claims).ok_or_else(|| invalid("the token names no subject"))
    }
}
