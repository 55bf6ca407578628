//! JWS signatures (RFC 7515) as access tokens carry them, checked with `ring`, the crypto the
//! runtime's TLS already builds: the compact form taken apart, the public-key algorithms of
//! RFC 7518 (RSA, RSA-PSS, ECDSA on P-256 and P-384) and RFC 8037 (Ed25519), and keys read
//! from a JWK. Shared-secret algorithms are no algorithm here: a verifier that took `HS256`
//! keyed with a public key would let anyone sign.

use base64::Engine as _;
use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use serde_json::{Map, Value};

/// A signature algorithm accepted for access tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Algorithm {
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    /// The algorithm an `alg` names, when it is one accepted here.
    pub(crate) fn named(name: &str) -> Option<Algorithm> {
        Some(match name {
            "RS256" => Algorithm::Rs256,
            "RS384" => Algorithm::Rs384,
            "RS512" => Algorithm::Rs512,
            "PS256" => Algorithm::Ps256,
            "PS384" => Algorithm::Ps384,
            "PS512" => Algorithm::Ps512,
            "ES256" => Algorithm::Es256,
            "ES384" => Algorithm::Es384,
            "EdDSA" => Algorithm::EdDsa,
            _ => return None,
        })
    }
}

/// A public key of the issuer's set, as its JWK gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublicKey {
    /// `kty: RSA`: the modulus and exponent, big-endian, without leading zeros.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// `kty: EC` on P-256 or P-384: the uncompressed point (`0x04`, x, y).
    Ec { p384: bool, point: Vec<u8> },
    /// `kty: OKP`, `crv: Ed25519`: the 32-byte key.
    Ed25519(Vec<u8>),
}

impl PublicKey {
    /// The key a JWK describes, when it is a public key of a kind accepted here (a shared
    /// secret, `kty: oct`, never is).
    pub(crate) fn from_jwk(jwk: &Map<String, Value>) -> Option<PublicKey> {
        let member = |name: &str| jwk.get(name).and_then(Value::as_str).and_then(|v| decode(v).ok());
        match jwk.get("kty")?.as_str()? {
            "RSA" => {
                let strip = |bytes: Vec<u8>| bytes.iter().position(|b| *b != 0).map(|at| bytes[at..].to_vec());
                Some(PublicKey::Rsa { n: strip(member("n")?)?, e: strip(member("e")?)? })
            }
            "EC" => {
                let (p384, size) = match jwk.get("crv")?.as_str()? {
                    "P-256" => (false, 32),
                    "P-384" => (true, 48),
                    _ => return None,
                };
                let (x, y) = (member("x")?, member("y")?);
                if x.len() != size || y.len() != size {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * size);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Some(PublicKey::Ec { p384, point })
            }
            "OKP" if jwk.get("crv")?.as_str()? == "Ed25519" => {
                let x = member("x")?;
                (x.len() == 32).then_some(PublicKey::Ed25519(x))
            }
            _ => None,
        }
    }

    /// Whether this key can check signatures of `algorithm`.
    pub(crate) fn fits(&self, algorithm: Algorithm) -> bool {
        use Algorithm::*;
        match self {
            PublicKey::Rsa { .. } => matches!(algorithm, Rs256 | Rs384 | Rs512 | Ps256 | Ps384 | Ps512),
            PublicKey::Ec { p384: false, .. } => algorithm == Es256,
            PublicKey::Ec { p384: true, .. } => algorithm == Es384,
            PublicKey::Ed25519(_) => algorithm == EdDsa,
        }
    }

    /// Whether `signature` over `signed` verifies with this key under `algorithm`.
    pub(crate) fn verifies(&self, algorithm: Algorithm, signed: &[u8], signature: &[u8]) -> bool {
        if !self.fits(algorithm) {
            return false;
        }
        match self {
            PublicKey::Rsa { n, e } => {
                let parameters: &signature::RsaParameters = match algorithm {
                    Algorithm::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    _ => &signature::RSA_PSS_2048_8192_SHA512,
                };
                signature::RsaPublicKeyComponents { n, e }.verify(parameters, signed, signature).is_ok()
            }
            PublicKey::Ec { p384, point } => {
                let curve: &dyn VerificationAlgorithm = match p384 {
                    false => &signature::ECDSA_P256_SHA256_FIXED,
                    true => &signature::ECDSA_P384_SHA384_FIXED,
                };
                UnparsedPublicKey::new(curve, point).verify(signed, signature).is_ok()
            }
            PublicKey::Ed25519(x) => UnparsedPublicKey::new(&signature::ED25519, x).verify(signed, signature).is_ok(),
        }
    }
}

/// The members of a token's header the verifier reads.
#[derive(Debug)]
pub(crate) struct Header {
    /// `alg`, as named (not necessarily an algorithm accepted here).
    pub(crate) alg: String,
    pub(crate) kid: Option<String>,
    pub(crate) typ: Option<String>,
}

/// A compact JWS taken apart: its header, what was signed, its payload and signature, all
/// decoded (nothing checked yet).
#[derive(Debug)]
pub(crate) struct Compact<'a> {
    pub(crate) header: Header,
    /// The encoded header and payload with the dot between them: what the signature covers.
    pub(crate) signed: &'a str,
    pub(crate) payload: Vec<u8>,
    pub(crate) signature: Vec<u8>,
}

impl<'a> Compact<'a> {
    /// `token` taken apart: three base64url parts, a header that is a JSON object naming its
    /// `alg`. `None` when it is not that.
    pub(crate) fn parse(token: &'a str) -> Option<Compact<'a>> {
        let (signed, signature) = token.rsplit_once('.')?;
        let (header, payload) = signed.split_once('.')?;
        if payload.contains('.') {
            return None;
        }
        let header: Map<String, Value> = serde_json::from_slice(&decode(header).ok()?).ok()?;
        let text = |name: &str| header.get(name).and_then(Value::as_str).map(str::to_owned);
        let header = Header { alg: text("alg")?, kid: text("kid"), typ: text("typ") };
        Some(Compact { header, signed, payload: decode(payload).ok()?, signature: decode(signature).ok()? })
    }
}

/// Base64url without padding, as JOSE writes every part.
fn decode(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text)
}

#[cfg(test)]
mod tests {
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair as _};
    use serde_json::json;

    use super::*;

    fn encode(bytes: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// A token of `claims` signed by `sign` under `alg`.
    fn token(alg: &str, sign: impl FnOnce(&[u8]) -> Vec<u8>) -> String {
        let signed = format!("{}.{}", encode(json!({"alg": alg}).to_string().as_bytes()), encode(b"{}"));
        let signature = sign(signed.as_bytes());
        format!("{signed}.{}", encode(&signature))
    }

    /// The JWK of an EC key pair's public point.
    fn ec_jwk(crv: &str, point: &[u8]) -> Map<String, Value> {
        let size = (point.len() - 1) / 2;
        let jwk = json!({"kty": "EC", "crv": crv, "x": encode(&point[1..=size]), "y": encode(&point[1 + size..])});
        jwk.as_object().unwrap().clone()
    }

    #[test]
    fn ecdsa_and_ed25519_signatures_verify_with_their_jwk_and_fail_when_altered() {
        let rng = SystemRandom::new();
        let mut cases = Vec::new();
        for (alg, crv, signing) in [
            ("ES256", "P-256", &signature::ECDSA_P256_SHA256_FIXED_SIGNING),
            ("ES384", "P-384", &signature::ECDSA_P384_SHA384_FIXED_SIGNING),
        ] {
            let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).unwrap();
            let pair = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &rng).unwrap();
            let jwk = ec_jwk(crv, pair.public_key().as_ref());
            cases.push((alg, jwk, token(alg, |m| pair.sign(&rng, m).unwrap().as_ref().to_vec())));
        }
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": encode(pair.public_key().as_ref())});
        cases.push(("EdDSA", jwk.as_object().unwrap().clone(), token("EdDSA", |m| pair.sign(m).as_ref().to_vec())));
        for (alg, jwk, token) in cases {
            let key = PublicKey::from_jwk(&jwk).unwrap();
            let compact = Compact::parse(&token).unwrap();
            let algorithm = Algorithm::named(&compact.header.alg).unwrap();
            assert!(key.verifies(algorithm, compact.signed.as_bytes(), &compact.signature), "{alg}");
            let mut altered = compact.signature.clone();
            altered[3] ^= 1;
            assert!(!key.verifies(algorithm, compact.signed.as_bytes(), &altered), "{alg}: altered");
            assert!(!key.verifies(algorithm, b"another message", &compact.signature), "{alg}: another message");
        }
    }

    #[test]
    fn a_key_checks_only_its_own_algorithms() {
        let rsa = PublicKey::Rsa { n: vec![1; 256], e: vec![1, 0, 1] };
        assert!(rsa.fits(Algorithm::Ps512) && !rsa.fits(Algorithm::Es256));
        let p256 = PublicKey::Ec { p384: false, point: vec![4; 65] };
        assert!(p256.fits(Algorithm::Es256) && !p256.fits(Algorithm::Es384) && !p256.fits(Algorithm::Rs256));
        assert!(!p256.verifies(Algorithm::Rs256, b"m", b"s"));
    }

    #[test]
    fn jwks_of_other_kinds_or_wrong_sizes_are_no_key() {
        let of = |v: Value| PublicKey::from_jwk(v.as_object().unwrap());
        assert_eq!(of(json!({"kty": "oct", "k": "c2VjcmV0"})), None, "a shared secret");
        assert_eq!(of(json!({"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA"})), None);
        assert_eq!(of(json!({"kty": "EC", "crv": "P-256", "x": encode(&[1; 31]), "y": encode(&[1; 32])})), None);
        assert_eq!(of(json!({"kty": "OKP", "crv": "X25519", "x": encode(&[1; 32])})), None);
        assert_eq!(
            of(json!({"kty": "RSA", "n": "AAE", "e": "AQAB"})),
            Some(PublicKey::Rsa { n: vec![1], e: vec![1, 0, 1] })
        );
        assert_eq!(of(json!({"kty": "RSA", "n": "!!", "e": "AQAB"})), None, "not base64url");
    }

    #[test]
    fn only_three_base64url_parts_with_a_json_header_naming_alg_are_a_jws() {
        let header = encode(br#"{"alg":"RS256","kid":"k","typ":"at+jwt"}"#);
        let token = format!("{header}.e30.c2ln");
        let parsed = Compact::parse(&token).unwrap();
        assert_eq!((parsed.header.alg.as_str(), parsed.header.kid.as_deref()), ("RS256", Some("k")));
        assert_eq!((parsed.payload.as_slice(), parsed.signature.as_slice()), (&b"{}"[..], &b"sig"[..]));
        assert_eq!(parsed.signed, format!("{header}.e30"));
        for bad in ["abc.def", "a.b.c.d", &format!("{header}.e30"), &format!("{}.e30.", encode(b"{}")), "e30.e30.!"] {
            assert!(Compact::parse(bad).is_none(), "{bad}");
        }
    }
}
