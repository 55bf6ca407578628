//! ES256 (ECDSA on P-256 with SHA-256) as OAuth clients use it: a key given as PKCS#8 PEM
//! (a `private_key_jwt` client assertion) or drawn fresh (DPoP proofs), its public JWK and
//! thumbprint (RFC 7638), and compact JWS signatures; on `ring`, the crypto the runtime's TLS
//! and token verifiers use.

use std::sync::Arc;

use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};

use super::encoding::base64url;
use crate::client::error::ClientError;

/// A P-256 signing key.
#[derive(Clone)]
pub(crate) struct Es256Key(Arc<EcdsaKeyPair>);

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private part.
        f.debug_tuple("Es256Key").field(&self.thumbprint()).finish()
    }
}

impl Es256Key {
    /// A fresh key from the operating system's random source.
    pub(crate) fn generate() -> Result<Es256Key, ClientError> {
        let random = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
            .map_err(|_| ClientError::Auth("could not draw a P-256 key (no random source?)".into()))?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    /// The key in a PKCS#8 PEM document (`-----BEGIN PRIVATE KEY-----`), its public key
    /// included (as OpenSSL, Node and Python's `cryptography` write one).
    pub(crate) fn from_pkcs8_pem(pem: &str) -> Result<Es256Key, ClientError> {
        let not_pem = || ClientError::Auth("the private key is not a PEM `PRIVATE KEY` document".into());
        let body = pem
            .split("-----BEGIN PRIVATE KEY-----")
            .nth(1)
            .and_then(|rest| rest.split("-----END PRIVATE KEY-----").next())
            .ok_or_else(not_pem)?;
        let body: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD.decode(body).map_err(|_| not_pem())?;
        Self::from_pkcs8(&der)
    }

    fn from_pkcs8(der: &[u8]) -> Result<Es256Key, ClientError> {
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &SystemRandom::new())
            .map(|pair| Es256Key(Arc::new(pair)))
            .map_err(|e| {
                ClientError::Auth(format!("the private key is not a PKCS#8 P-256 key with its public key: {e}"))
            })
    }

    /// The public key as a JWK.
    pub(crate) fn jwk(&self) -> Value {
        // The uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = self.0.public_key().as_ref();
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": base64url(&point[1..33]),
            "y": base64url(&point[33..65]),
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
        match self.0.sign(&SystemRandom::new(), input.as_bytes()) {
            Ok(signature) => format!("{input}.{}", base64url(signature.as_ref())),
            Err(_) => {
                // The random source failed after it drew the key: an unsigned JWS, which
                // the receiver refuses, and the reason here.
                tracing::error!("could not sign a JWS: the random source failed");
                format!("{input}.")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    #[test]
    fn a_signature_verifies_with_the_public_jwk() {
        let key = Es256Key::generate().unwrap();
        let jws = key.sign(json!({"typ": "dpop+jwt"}), &json!({"htm": "POST"}));
        let parts: Vec<&str> = jws.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |part: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap();
        let jwk = key.jwk();
        let point = [vec![4], decode(jwk["x"].as_str().unwrap()), decode(jwk["y"].as_str().unwrap())].concat();
        let input = format!("{}.{}", parts[0], parts[1]);
        let public = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point);
        assert!(public.verify(input.as_bytes(), &decode(parts[2])).is_ok());
        assert!(public.verify(b"another input", &decode(parts[2])).is_err());
        // The thumbprint is the canonical JWK's: 43 base64url characters, stable.
        assert_eq!(key.thumbprint().len(), 43);
        assert_eq!(key.thumbprint(), key.clone().thumbprint());
    }

    #[test]
    fn a_pem_key_is_read_and_anything_else_refused_with_why() {
        let random = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).unwrap();
        let body = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
        let lines: Vec<&str> = body.as_bytes().chunks(64).map(|line| std::str::from_utf8(line).unwrap()).collect();
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", lines.join("\n"));
        let key = Es256Key::from_pkcs8_pem(&pem).unwrap();
        assert_eq!(key.thumbprint(), Es256Key::from_pkcs8(der.as_ref()).unwrap().thumbprint());
        let said = |pem: &str| Es256Key::from_pkcs8_pem(pem).unwrap_err().to_string();
        assert!(said("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----").contains("not a PEM"));
        assert!(said("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----").contains("not a PKCS#8 P-256"));
    }
}
