//! DPoP (RFC 9449): tokens bound to a key the client holds. Each request to the token
//! endpoint and to the server carries a fresh proof signed with that key (its method, URL,
//! time, a unique id, and for the server the token's hash); a server that wants a nonce in
//! its proofs says so once, and the nonce it gave is sent from then on.

use std::sync::Mutex;

use serde_json::json;

use super::encoding::{base64url, now_seconds, random_text};
use super::es256::Es256Key;
use crate::client::error::ClientError;
use crate::util::lock;

/// Whose nonce a proof carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Nonce {
    /// The authorization server's (proofs to its token endpoint).
    Server,
    /// The MCP server's (proofs with each request).
    Resource,
}

/// The client's DPoP key and the nonces it was given.
#[derive(Debug)]
pub(crate) struct Dpop {
    key: Es256Key,
    server_nonce: Mutex<Option<String>>,
    resource_nonce: Mutex<Option<String>>,
}

impl Dpop {
    /// A fresh key.
    pub(crate) fn new() -> Result<Dpop, ClientError> {
        Ok(Dpop { key: Es256Key::generate()?, server_nonce: Mutex::default(), resource_nonce: Mutex::default() })
    }

    fn nonce(&self, which: Nonce) -> &Mutex<Option<String>> {
        match which {
            Nonce::Server => &self.server_nonce,
            Nonce::Resource => &self.resource_nonce,
        }
    }

    /// Keeps the nonce `which` asked to be sent.
    pub(crate) fn remember(&self, which: Nonce, nonce: String) {
        *lock(self.nonce(which)) = Some(nonce);
    }

    /// A proof for a request of `method` to `url` (without its query and fragment), bound to
    /// `access_token` when one is sent with it.
    pub(crate) fn proof(&self, method: &str, url: &str, access_token: Option<&str>, which: Nonce) -> String {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let mut claims = json!({"jti": random_text(16), "htm": method, "htu": htu, "iat": now_seconds()});
        if let Some(token) = access_token {
            claims["ath"] = json!(base64url(&hmac_sha256::Hash::hash(token.as_bytes())));
        }
        if let Some(nonce) = lock(self.nonce(which)).clone() {
            claims["nonce"] = json!(nonce);
        }
        self.key.sign(json!({"typ": "dpop+jwt", "jwk": self.key.jwk()}), &claims)
    }
}
