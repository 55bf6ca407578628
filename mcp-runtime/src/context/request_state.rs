//! The sealed `requestState` of 2026-07-28 input-required results.
//!
//! The client echoes the state back on its retry, so it is attacker-controlled: it is sealed
//! with HMAC-SHA256 under a key (random per process unless configured, and shared by every
//! instance behind a load balancer), and binds the method, a SHA-256 digest of the params
//! (without `_meta`, `inputResponses` and `requestState`), the answers so far and an expiry;
//! and, when the handler was kept waiting for the retry, the ticket it waits under (see
//! [`parking`](super::parking)).
//! Format: `base64url(JSON payload) "." base64url(MAC)`.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac_sha256::{HMAC, Hash};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// How long a `requestState` stays valid unless configured.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

/// Seals and opens request states.
#[derive(Clone)]
pub(crate) struct Sealer {
    key: [u8; 32],
    ttl: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer").field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

/// What a state binds: the request it belongs to and the answers given so far.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct RequestState {
    /// The method.
    m: String,
    /// The digest of the params.
    d: String,
    /// The answers, by question key (a question's number unless its handler named it).
    a: Map<String, Value>,
    /// Expiry, in seconds since the Unix epoch (set when sealed).
    #[serde(default)]
    e: u64,
    /// The authenticated principal that asked, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    p: Option<String>,
    /// The ticket of the handler kept waiting for this state's retry, when one was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    r: Option<u64>,
}

/// What an opened state holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Opened {
    /// The answers so far, by question key.
    pub(crate) answers: Map<String, Value>,
    /// The ticket of the handler waiting for this retry, if one was kept.
    pub(crate) ticket: Option<u64>,
}

impl RequestState {
    /// The state of a request of `method` with these params, made by `principal` (the
    /// authenticated identity, when there is one), with no answers yet.
    pub(crate) fn for_request(method: &str, params: Option<&RawValue>, principal: Option<&str>) -> Self {
        RequestState {
            m: method.to_owned(),
            d: params_digest(params),
            a: Map::new(),
            e: 0,
            p: principal.map(str::to_owned),
            r: None,
        }
    }

    /// This state with `answers`.
    pub(crate) fn with_answers(&self, answers: Map<String, Value>) -> Self {
        RequestState { a: answers, ..self.clone() }
    }

    /// This state naming the handler kept waiting under `ticket`.
    pub(crate) fn with_ticket(self, ticket: Option<u64>) -> Self {
        RequestState { r: ticket, ..self }
    }

    /// Whether both states belong to the same request (method, params, principal).
    pub(crate) fn same_request(&self, other: &RequestState) -> bool {
        self.m == other.m && self.d == other.d && self.p == other.p
    }
}

/// The state a request will bind, made only when a state is opened or sealed: most requests
/// that may ask the client never do, and pay for neither the params' digest nor its parse.
#[derive(Debug)]
pub(crate) struct LazyState {
    method: &'static str,
    params: Option<Box<RawValue>>,
    principal: Option<String>,
    state: OnceLock<RequestState>,
}

impl LazyState {
    /// The state of a request of `method` with these params, made by `principal`.
    pub(crate) fn new(method: &'static str, params: Option<&RawValue>, principal: Option<&str>) -> Self {
        LazyState {
            method,
            params: params.map(ToOwned::to_owned),
            principal: principal.map(str::to_owned),
            state: OnceLock::new(),
        }
    }

    /// The state, with no answers yet.
    pub(crate) fn get(&self) -> &RequestState {
        self.state
            .get_or_init(|| RequestState::for_request(self.method, self.params.as_deref(), self.principal.as_deref()))
    }
}

/// The SHA-256 digest (hex) of a request's params without the keys a retry changes.
fn params_digest(params: Option<&RawValue>) -> String {
    let mut params: serde_json::Map<String, Value> =
        params.and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or_default();
    for key in ["_meta", "inputResponses", "requestState"] {
        params.remove(key);
    }
    let canonical = serde_json::to_vec(&params).unwrap_or_default();
    let mut hex = String::with_capacity(64);
    for byte in Hash::hash(&canonical) {
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    hex
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Sealer {
    /// A sealer with `key`.
    pub(crate) fn new(key: [u8; 32], ttl: Duration) -> Self {
        Sealer { key, ttl }
    }

    /// A sealer with a key from the operating system's random source (falling back to the
    /// time and the process id, logged, should that source fail).
    pub(crate) fn random(ttl: Duration) -> Self {
        let mut key = [0u8; 32];
        if let Err(e) = getrandom::fill(&mut key) {
            tracing::error!(error = %e, "no random key for request states; configure one");
            let seed = format!("{:?}{}", SystemTime::now(), std::process::id());
            key = Hash::hash(seed.as_bytes());
        }
        Sealer::new(key, ttl)
    }

    /// Seals `state`, valid for the sealer's time to live from now.
    pub(crate) fn seal(&self, state: &RequestState) -> String {
        let state = RequestState { e: now() + self.ttl.as_secs(), ..state.clone() };
        let payload = serde_json::to_vec(&state).unwrap_or_default();
        let tag = HMAC::mac(&payload, self.key);
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(tag))
    }

    /// Opens `token`, checking its seal, its expiry and that it belongs to `expected` (same
    /// method, same params): what it holds, or why it is refused.
    pub(crate) fn open(&self, token: &str, expected: &RequestState) -> Result<Opened, &'static str> {
        let (payload, tag) = token.split_once('.').ok_or("it is malformed")?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| "it is malformed")?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| "it is malformed")?;
        // A tag of another length cannot match; the comparison itself takes constant time.
        let sealed = <[u8; 32]>::try_from(tag.as_slice()).is_ok_and(|tag| HMAC::verify(&payload, self.key, &tag));
        if !sealed {
            return Err("its seal does not match (altered, or sealed by another key)");
        }
        let state: RequestState = serde_json::from_slice(&payload).map_err(|_| "it is malformed")?;
        if state.e < now() {
            return Err("it expired");
        }
        if state.m != expected.m || state.d != expected.d {
            return Err("it belongs to another request");
        }
        if state.p != expected.p {
            return Err("it belongs to another user");
        }
        Ok(Opened { answers: state.a, ticket: state.r })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_own_request() {
        let sealer = Sealer::random(DEFAULT_TTL);
        let params = raw(r#"{"name":"t","arguments":{"x":1},"_meta":{"a":1}}"#);
        let state = RequestState::for_request("tools/call", Some(&params), None)
            .with_answers(Map::from_iter([("0".to_owned(), json!({"action": "accept"}))]));
        let token = sealer.seal(&state);
        // The retry's `_meta`, answers and state do not change the digest.
        let retry = raw(r#"{"name":"t","arguments":{"x":1},"inputResponses":{},"requestState":"x"}"#);
        let expected = RequestState::for_request("tools/call", Some(&retry), None);
        let answers = Map::from_iter([("0".to_owned(), json!({"action": "accept"}))]);
        assert_eq!(sealer.open(&token, &expected), Ok(Opened { answers: answers.clone(), ticket: None }));
        // The ticket of a kept handler is sealed with the rest.
        let kept = sealer.seal(&state.clone().with_ticket(Some(7)));
        assert_eq!(sealer.open(&kept, &expected), Ok(Opened { answers, ticket: Some(7) }));
        let other = RequestState::for_request("tools/call", Some(&raw(r#"{"name":"t","arguments":{"x":2}}"#)), None);
        assert_eq!(sealer.open(&token, &other), Err("it belongs to another request"));
        let other_method = RequestState::for_request("prompts/get", Some(&retry), None);
        assert_eq!(sealer.open(&token, &other_method), Err("it belongs to another request"));
        let someone_else = RequestState::for_request("tools/call", Some(&retry), Some("mallory"));
        assert_eq!(sealer.open(&token, &someone_else), Err("it belongs to another user"));
    }

    #[test]
    fn altered_foreign_and_expired_states_are_refused() {
        let sealer = Sealer::random(DEFAULT_TTL);
        let state = RequestState::for_request("tools/call", None, None);
        let token = sealer.seal(&state.with_answers(Map::from_iter([("0".to_owned(), json!(1))])));
        let (payload, tag) = token.split_once('.').unwrap();
        let forged = URL_SAFE_NO_PAD.encode(br#"{"m":"tools/call","d":"x","a":[2],"e":99999999999}"#);
        assert!(sealer.open(&format!("{forged}.{tag}"), &state).unwrap_err().contains("seal"));
        assert!(Sealer::random(DEFAULT_TTL).open(&token, &state).unwrap_err().contains("seal"));
        assert_eq!(sealer.open(payload, &state), Err("it is malformed"));
        // A tag cut short (30 bytes, still well-formed base64) is refused, not compared in part.
        assert!(sealer.open(&format!("{payload}.{}", &tag[..40]), &state).unwrap_err().contains("seal"));
        let expired = Sealer::new([7; 32], Duration::ZERO);
        let mut old = state.clone();
        old.e = 1;
        let payload = serde_json::to_vec(&old).unwrap();
        let tag = HMAC::mac(&payload, [7; 32]);
        let token = format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(tag));
        assert_eq!(expired.open(&token, &state), Err("it expired"));
    }
}
