//! What requests to an authorization server are made of: base64url, random text (PKCE
//! verifiers, `state`, `jti`) and the time (form encoding is `util::form`'s).

use base64::Engine as _;

/// Base64url without padding.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// `bytes` random bytes as base64url.
pub(crate) fn random_text(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    if getrandom::fill(&mut buffer).is_err() {
        // The runtime's own ids, which log the failure where they are drawn.
        return format!("{}{}", crate::util::random::random_id(), crate::util::random::random_id());
    }
    base64url(&buffer)
}

/// Seconds since the Unix epoch.
pub(crate) fn now_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pkce_challenge_is_the_base64url_sha256_of_its_verifier() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(
            base64url(&hmac_sha256::Hash::hash(verifier.as_bytes())),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(random_text(48).len() >= 43);
    }
}
