//! What the verifiers learn from the authorization server: its metadata (RFC 8414, or OpenID
//! discovery) and its signing keys (the JWKS), fetched when first needed, cached, and fetched
//! again when a token names a key not seen yet (rotation): each key id at most once per
//! interval, and a few fetches a minute in all.

use std::collections::{HashMap, VecDeque};
use std::sync::RwLock;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::jws::{Algorithm, PublicKey};
use crate::util::http_client::{self, FetchError};

/// The most a metadata document or a key set may weigh.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Whether `url` may be fetched: `https://`, or `http://` to a loopback host (tests, a local
/// authorization server).
pub(crate) fn fetchable(url: &str) -> bool {
    if url.starts_with("https://") && url.len() > "https://".len() {
        return true;
    }
    let Some(rest) = url.strip_prefix("http://") else { return false };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Where an issuer's metadata may be: RFC 8414 §3.1 (the well-known prefix before the
/// issuer's path), then OpenID discovery (after it), then the OpenID name the RFC 8414 way.
fn discovery_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let after_scheme = issuer.find("://").map_or(0, |i| i + 3);
    let split = issuer[after_scheme..].find('/').map_or(issuer.len(), |i| after_scheme + i);
    let (origin, path) = issuer.split_at(split);
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/openid-configuration{path}"));
    }
    urls
}

/// Fetches `issuer`'s metadata: the first of its well-known documents that answers, whose
/// `issuer` must be `issuer` itself (RFC 8414 §3.3).
pub(crate) async fn discover(issuer: &str) -> Result<Map<String, Value>, FetchError> {
    let client = http_client::shared().map_err(FetchError)?;
    let mut last = FetchError(format!("no metadata found for issuer {issuer}"));
    for url in discovery_urls(issuer) {
        match http_client::json_object(client.get(&url), MAX_DOCUMENT_BYTES).await {
            Ok(metadata) => {
                let named = metadata.get("issuer").and_then(Value::as_str);
                if named.map(|n| n.trim_end_matches('/')) != Some(issuer.trim_end_matches('/')) {
                    return Err(FetchError(format!("the metadata at {url} is for issuer {named:?}, not {issuer}")));
                }
                return Ok(metadata);
            }
            Err(e) => last = FetchError(format!("{url}: {e}")),
        }
    }
    Err(last)
}

/// A URL the issuer's metadata names, checked as fetchable.
pub(crate) fn endpoint(metadata: &Map<String, Value>, name: &str) -> Result<String, FetchError> {
    match metadata.get(name).and_then(Value::as_str) {
        Some(url) if fetchable(url) => Ok(url.to_owned()),
        Some(url) => Err(FetchError(format!("the issuer's {name} `{url}` is not https://"))),
        None => Err(FetchError(format!("the issuer's metadata names no {name}"))),
    }
}

/// One signing key of the set.
struct Key {
    id: Option<String>,
    /// The algorithm the key is for, when the set says.
    algorithm: Option<Algorithm>,
    key: PublicKey,
}

/// The most fetches of the key set a minute that unknown keys may prompt, whatever the keys.
const FETCHES_PER_MINUTE: usize = 10;

/// The keys known, and what prompted the fetches of the last minute.
#[derive(Default)]
struct Known {
    keys: Vec<Key>,
    /// Each key id a fetch was made for (`""` for a token naming none), and when: it is not
    /// fetched for again within the interval.
    looked_for: HashMap<String, Instant>,
    /// When each fetch of the last minute was made (or failed).
    fetches: VecDeque<Instant>,
}

impl Known {
    /// Whether a token naming `id`, a key not among those known, may prompt a fetch now: one
    /// whose key was not looked for within `interval`, within [`FETCHES_PER_MINUTE`]. So a
    /// caller who sends made-up key ids gets each looked for once, and the issuer at most a
    /// few fetches a minute; a key the issuer has just published still prompts its fetch.
    fn may_fetch(&mut self, id: &str, interval: Duration) -> bool {
        let now = Instant::now();
        self.looked_for.retain(|_, at| now.duration_since(*at) < interval);
        while self.fetches.front().is_some_and(|at| now.duration_since(*at) >= Duration::from_secs(60)) {
            self.fetches.pop_front();
        }
        !self.looked_for.contains_key(id) && self.fetches.len() < FETCHES_PER_MINUTE
    }

    /// Notes a fetch made for `id` now.
    fn fetched_for(&mut self, id: &str) {
        let now = Instant::now();
        self.looked_for.insert(id.to_owned(), now);
        self.fetches.push_back(now);
    }
}

/// An issuer's signing keys, cached.
pub(crate) struct KeySet {
    /// The JWKS URL, when configured; else found in the issuer's metadata on first use.
    configured: Option<String>,
    issuer: String,
    discovered: tokio::sync::OnceCell<String>,
    known: RwLock<Known>,
    /// One fetch at a time: requests that find a key missing wait for it, then look again.
    fetching: tokio::sync::Mutex<()>,
    /// The least time between two fetches prompted by one unknown key.
    pub(crate) refetch_interval: Duration,
}

/// Why a key was not found.
#[derive(Debug)]
pub(crate) enum KeyError {
    /// The set, fetched again, does not have it.
    Unknown,
    /// The set cannot be fetched (and the key is not among those already known).
    Unreachable(String),
}

impl KeySet {
    pub(crate) fn new(issuer: String, configured: Option<String>, refetch_interval: Duration) -> Self {
        KeySet {
            configured,
            issuer,
            discovered: tokio::sync::OnceCell::new(),
            known: RwLock::default(),
            fetching: tokio::sync::Mutex::new(()),
            refetch_interval,
        }
    }

    /// The key a token's header names (`kid`, and `alg`): from the cache, else from the set
    /// fetched again (unless that key was looked for within the interval, or the minute's
    /// fetches are spent: see [`Known::may_fetch`]).
    pub(crate) async fn find(&self, id: Option<&str>, algorithm: Algorithm) -> Result<PublicKey, KeyError> {
        if let Some(key) = self.cached(id, algorithm) {
            return Ok(key);
        }
        let _one = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = self.cached(id, algorithm) {
            return Ok(key);
        }
        let looked_for = id.unwrap_or("");
        if !self.known.write().unwrap_or_else(|e| e.into_inner()).may_fetch(looked_for, self.refetch_interval) {
            return Err(KeyError::Unknown);
        }
        let fetched = self.fetch().await;
        let mut known = self.known.write().unwrap_or_else(|e| e.into_inner());
        known.fetched_for(looked_for);
        match fetched {
            Ok(keys) => known.keys = keys,
            Err(e) => return Err(KeyError::Unreachable(e.0)),
        }
        drop(known);
        self.cached(id, algorithm).ok_or(KeyError::Unknown)
    }

    fn cached(&self, id: Option<&str>, algorithm: Algorithm) -> Option<PublicKey> {
        let known = self.known.read().unwrap_or_else(|e| e.into_inner());
        let fits = |key: &&Key| key.algorithm.is_none_or(|a| a == algorithm) && key.key.fits(algorithm);
        let mut candidates = known.keys.iter().filter(fits);
        match id {
            Some(id) => candidates.find(|key| key.id.as_deref() == Some(id)).map(|key| key.key.clone()),
            // A token naming no key is checked with the one key that fits, never with several.
            None => match (candidates.next(), candidates.next()) {
                (Some(only), None) => Some(only.key.clone()),
                _ => None,
            },
        }
    }

    /// The set, as fetched now: the public signing keys of kinds accepted here (others, and
    /// shared secrets, which are never keys of a set anyone may read, are skipped).
    async fn fetch(&self) -> Result<Vec<Key>, FetchError> {
        let url = match &self.configured {
            Some(url) => url.clone(),
            None => {
                let found = self
                    .discovered
                    .get_or_try_init(|| async { endpoint(&discover(&self.issuer).await?, "jwks_uri") })
                    .await?;
                found.clone()
            }
        };
        let client = http_client::shared().map_err(FetchError)?;
        let set = http_client::json_object(client.get(&url), MAX_DOCUMENT_BYTES)
            .await
            .map_err(|e| FetchError(format!("the key set at {url}: {e}")))?;
        let listed =
            set.get("keys").and_then(Value::as_array).ok_or_else(|| FetchError(format!("{url} lists no keys")))?;
        let keys: Vec<Key> = listed
            .iter()
            .filter_map(Value::as_object)
            .filter(|jwk| matches!(jwk.get("use").map(Value::as_str), None | Some(Some("sig"))))
            .filter_map(|jwk| {
                let key = PublicKey::from_jwk(jwk)?;
                // A key for an algorithm not accepted here is not used for another.
                let algorithm = match jwk.get("alg") {
                    None => None,
                    Some(named) => Some(Algorithm::named(named.as_str()?)?),
                };
                let id = jwk.get("kid").and_then(Value::as_str).map(str::to_owned);
                Some(Key { id, algorithm, key })
            })
            .collect();
        tracing::debug!(url, keys = keys.len(), "fetched the authorization server's signing keys");
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_and_openid_say() {
        assert_eq!(
            discovery_urls("https://as.example/tenant/"),
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant",
                "https://as.example/tenant/.well-known/openid-configuration",
                "https://as.example/.well-known/openid-configuration/tenant",
            ]
        );
        assert_eq!(discovery_urls("http://127.0.0.1:9/").len(), 2);
    }

    #[test]
    fn only_https_or_loopback_http_is_fetched() {
        assert!(fetchable("https://as.example/jwks"));
        assert!(fetchable("http://127.0.0.1:8080/jwks"));
        assert!(fetchable("http://localhost/x"));
        assert!(fetchable("http://[::1]:9/x"));
        assert!(!fetchable("http://as.example/jwks"));
        assert!(!fetchable("http://127.0.0.1.evil.example/"));
        assert!(!fetchable("file:///etc/passwd"));
        assert!(!fetchable("https://"));
    }
}
