//! The authorization row: an issuer of the driver's own (its metadata and key set, served on
//! loopback) and the JWT access tokens it signs with the test key of `tests/fixtures/oauth`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// An issuer serving `/.well-known/oauth-authorization-server` and `/jwks` on a thread of its
/// own, for as long as the driver runs.
pub struct Issuer {
    pub url: String,
    key: EncodingKey,
}

impl Issuer {
    pub fn start(bench: &Path) -> Issuer {
        let fixtures = bench.parent().expect("the repository").join("tests/fixtures/oauth");
        let keys: Value =
            serde_json::from_slice(&std::fs::read(fixtures.join("public-keys.json")).expect("the public keys"))
                .unwrap();
        let pem = std::fs::read(fixtures.join("rsa-private.pem")).expect("the test key");
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")}).to_string();
        let jwks = json!({"keys": [keys["rsa"]]}).to_string();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let body = if line.contains("/jwks") { &jwks } else { &metadata };
                // The head's other lines are not needed: the answer closes the connection.
                let mut stream = &stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Issuer { url, key: EncodingKey::from_rsa_pem(&pem).expect("an RSA key") }
    }

    /// A token for `resource`, valid for an hour.
    pub fn token(&self, resource: &str) -> String {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let claims = json!({"iss": self.url, "aud": resource, "sub": "bench", "scope": "sum", "iat": now,
            "exp": now + 3600});
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("rsa-1".to_owned());
        header.typ = Some("at+jwt".to_owned());
        jsonwebtoken::encode(&header, &claims, &self.key).expect("a signed token")
    }
}
