//! The JWT verifier: access tokens signed by the authorization server (RFC 9068), checked
//! with its published keys: signature, issuer, expiry and not-before, and the audience, which
//! must be this server (RFC 8707).

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};

use super::TokenError;
use super::cache::{TokenCache, key};
use super::jws::{Algorithm, Compact};
use super::keys::{KeyError, KeySet, fetchable};
use crate::context::Identity;

/// The clock skew allowed on `exp` and `nbf`, unless configured.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// How long a verified token is remembered (never past its `exp`), unless configured.
pub const DEFAULT_VERIFIED_CACHE: Duration = Duration::from_secs(60);

/// The least time between two fetches of the key set prompted by a token naming an unknown
/// key, unless configured.
pub const DEFAULT_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

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

    /// [`verify`](Self::verify), in full: the form, the algorithm (public-key ones only: see
    /// [`jws`](super::jws)), the type, the key, the signature, then the claims.
    async fn check(&self, token: &str, resource: &str) -> Result<Identity, TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.to_owned());
        let Some(token) = Compact::parse(token) else {
            return Err(invalid("the token is not a well-formed JWT"));
        };
        // `none`, and shared-secret algorithms, are no algorithm here.
        let Some(algorithm) = Algorithm::named(&token.header.alg) else {
            return Err(invalid("the token's signature algorithm is not accepted"));
        };
        // RFC 9068 §2.1 names `at+jwt`; many issuers still say `JWT` or nothing.
        let typ = token.header.typ.as_deref().map(str::to_ascii_lowercase);
        if !matches!(typ.as_deref(), None | Some("jwt" | "at+jwt" | "application/at+jwt")) {
            return Err(invalid("the token is not an access token"));
        }
        let key = match self.keys.find(token.header.kid.as_deref(), algorithm).await {
            Ok(key) => key,
            Err(KeyError::Unknown) => {
                return Err(invalid("the token is signed with a key the issuer does not publish"));
            }
            Err(KeyError::Unreachable(why)) => return Err(TokenError::Unavailable(why)),
        };
        if !key.verifies(algorithm, token.signed.as_bytes(), &token.signature) {
            return Err(invalid("the token's signature does not verify"));
        }
        let Ok(claims) = serde_json::from_slice::<Map<String, Value>>(&token.payload) else {
            return Err(invalid("the token is invalid"));
        };
        let audience = self.audience.as_deref().unwrap_or(resource);
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        claims_hold(&claims, &self.issuer, audience, self.leeway.as_secs_f64(), now).map_err(invalid)?;
        Identity::from_claims(claims).ok_or_else(|| invalid("the token names no subject"))
    }
}

/// Whether a signed token's claims make it valid now (seconds since the epoch) for
/// `audience`, from `issuer`: `exp`, `iss` and `aud` present, `exp` and `nbf` within
/// `leeway`, `iss` the issuer, `aud` (a string or an array) naming the audience. Else why not.
fn claims_hold(
    claims: &Map<String, Value>,
    issuer: &str,
    audience: &str,
    leeway: f64,
    now: f64,
) -> Result<(), &'static str> {
    let (Some(expiry), Some(iss), Some(aud)) = (claims.get("exp"), claims.get("iss"), claims.get("aud")) else {
        return Err("the token lacks a claim (exp, iss or aud)");
    };
    let Some(expiry) = expiry.as_f64() else { return Err("the token is invalid") };
    if expiry + leeway < now {
        return Err("the token has expired");
    }
    match claims.get("nbf").map(Value::as_f64) {
        None => {}
        Some(Some(not_before)) if not_before <= now + leeway => {}
        Some(Some(_)) => return Err("the token is not valid yet"),
        Some(None) => return Err("the token is invalid"),
    }
    if iss.as_str() != Some(issuer) {
        return Err("the token was issued by another authorization server");
    }
    let named = match aud {
        Value::String(one) => one == audience,
        Value::Array(several) => several.iter().any(|one| one.as_str() == Some(audience)),
        _ => false,
    };
    if !named {
        return Err("the token was issued for another resource");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn held(claims: Value) -> Result<(), &'static str> {
        claims_hold(claims.as_object().unwrap(), "https://as.example", "https://mcp.example/mcp", 30.0, 1000.0)
    }

    #[test]
    fn claims_are_checked_as_rfc_9068_says_within_the_leeway() {
        let good = json!({"iss": "https://as.example", "aud": "https://mcp.example/mcp", "exp": 1000});
        let with = |change: Value| {
            let mut claims = good.clone();
            claims.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
            held(claims)
        };
        assert_eq!(held(good.clone()), Ok(()));
        assert_eq!(with(json!({"exp": 971})), Ok(()), "expired 29 s ago: within the leeway");
        assert_eq!(with(json!({"exp": 969})), Err("the token has expired"));
        assert_eq!(with(json!({"exp": "tomorrow"})), Err("the token is invalid"));
        assert_eq!(with(json!({"nbf": 1029})), Ok(()));
        assert_eq!(with(json!({"nbf": 1031})), Err("the token is not valid yet"));
        assert_eq!(
            with(json!({"iss": "https://as.example/"})),
            Err("the token was issued by another authorization server")
        );
        assert_eq!(with(json!({"aud": ["https://other.example", "https://mcp.example/mcp"]})), Ok(()));
        assert_eq!(with(json!({"aud": ["https://other.example"]})), Err("the token was issued for another resource"));
        assert_eq!(with(json!({"aud": 7})), Err("the token was issued for another resource"));
        for missing in ["exp", "iss", "aud"] {
            let mut claims = good.clone();
            claims.as_object_mut().unwrap().remove(missing);
            assert_eq!(held(claims), Err("the token lacks a claim (exp, iss or aud)"), "{missing}");
        }
    }
}
