//! ES256 (ECDSA on P-256 with SHA-256) as OAuth clients use it: a key given as PKCS#8 PEM
//! (a `private_key_jwt` client assertion) or drawn fresh (DPoP proofs), its public JWK and
//! thumbprint (RFC 7638), and compact JWS signatures.

use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};

use super::encoding::base64url;
use crate::client::error::ClientError;

/// A P-256 signing key.
#[derive(Clone)]
pub(crate) struct Es256Key(SigningKey);

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private part.
        f.debug_tuple("Es256Key").field(&self.thumbprint()).finish()
    }
}

impl Es256Key {
    /// A fresh key from the operating system's random source.
    pub(crate) fn generate() -> Result<Es256Key, ClientError> {
        // A random 32-byte string is a valid scalar but with negligible probability.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| ClientError::Auth(format!("no random source for a key: {e}")))?;
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Ok(Es256Key(key));
            }
        }
        Err(ClientError::Auth("could not draw a P-256 key".into()))
    }

    /// The key in a PKCS#8 PEM document (`-----BEGIN PRIVATE KEY-----`).
    pub(crate) fn from_pkcs8_pem(pem: &str) -> Result<Es256Key, ClientError> {
        use p256::pkcs8::DecodePrivateKey as _;
        SigningKey::from_pkcs8_pem(pem)
            .map(Es256Key)
            .map_err(|e| ClientError::Auth(format!("the private key is not a PKCS#8 P-256 key: {e}")))
    }

    /// The public key as a JWK.
    pub(crate) fn jwk(&self) -> Value {
        let point = self.0.verifying_key().to_sec1_point(false);
        let coordinate = |c: Option<&[u8]>| base64url(c.unwrap_or_default());
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coordinate(point.x().map(|x| x.as_slice())),
            "y": coordinate(point.y().map(|y| y.as_slice())),
        })
    }

    /// The JWK's SHA-256 thumbprint (RFC 7638), base64url.
    pub(crate) fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        // The required members in lexicographic order, no whitespace.
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap_or_default(),
            jwk["y"].as_str().unwrap_or_default()
        );
        base64url(&hmac_sha256::Hash::hash(canonical.as_bytes()))
    }

    /// A compact JWS of `claims` under `header` (whose `alg` is set to ES256).
    pub(crate) fn sign(&self, mut header: Value, claims: &Value) -> String {
        header["alg"] = json!("ES256");
        let input =
            format!("{}.{}", base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()));
        let signature: Signature = self.0.sign(input.as_bytes());
        format!("{input}.{}", base64url(&signature.to_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    #[test]
    fn a_signature_verifies_with_the_public_jwk() {
        use p256::ecdsa::signature::Verifier as _;
        let key = Es256Key::generate().unwrap();
        let jws = key.sign(json!({"typ": "dpop+jwt"}), &json!({"htm": "POST"}));
        let parts: Vec<&str> = jws.split('.').collect();
        assert_eq!(parts.len(), 3);
        let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let signature = Signature::from_slice(&signature).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        assert!(key.0.verifying_key().verify(input.as_bytes(), &signature).is_ok());
        // The thumbprint is the canonical JWK's: 43 base64url characters, stable.
        assert_eq!(key.thumbprint().len(), 43);
        assert_eq!(key.thumbprint(), key.clone().thumbprint());
    }
}
