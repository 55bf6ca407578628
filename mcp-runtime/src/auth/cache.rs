//! Verified tokens, remembered for a short while: a token seen again within the time is not
//! checked again (an RSA signature costs far more than the request it comes with), but its
//! expiry still is. Keyed by a SHA-256 of the token and the resource it was checked for; the
//! tokens themselves are not kept.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use crate::context::Identity;

/// How many tokens are remembered at most.
const MAX_REMEMBERED: usize = 10_000;

/// The tokens a verifier checked, with who they name.
#[derive(Debug, Default)]
pub(crate) struct TokenCache(Mutex<HashMap<[u8; 32], (Instant, Identity)>>);

/// The key of `token` checked for `resource`.
pub(crate) fn key(token: &str, resource: &str) -> [u8; 32] {
    let mut hash = hmac_sha256::Hash::new();
    hash.update(token.as_bytes());
    hash.update([0]);
    hash.update(resource.as_bytes());
    hash.finalize()
}

impl TokenCache {
    /// Who the token of `key` names, if it was checked less than its time ago and has not
    /// expired since.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<Identity> {
        let cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (until, identity) = cache.get(key)?;
        (Instant::now() < *until && identity.expires_at().is_none_or(|at| at > SystemTime::now()))
            .then(|| identity.clone())
    }

    /// Remembers the token of `key` for `time` (nothing for zero).
    pub(crate) fn keep(&self, key: [u8; 32], identity: &Identity, time: Duration) {
        if time.is_zero() {
            return;
        }
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if cache.len() >= MAX_REMEMBERED {
            cache.retain(|_, (until, _)| *until > now);
            if cache.len() >= MAX_REMEMBERED {
                cache.clear();
            }
        }
        cache.insert(key, (now + time, identity.clone()));
    }
}
