//! The HTTP clients of the runtime's own outgoing requests (features `tls` and `client`): the
//! OAuth verifiers' metadata, keys and introspection, the OTLP exporter, and the client's
//! connections. reqwest, on rustls with the crypto provider the application installed
//! process-wide, else ring (built here, not installed, so the application's own choice is
//! left alone), verifying servers against the system's roots (`SSL_CERT_FILE` and
//! `SSL_CERT_DIR` are honoured).

// With `tls` or `client` alone, the shared clients below have no user.
#![cfg_attr(not(any(feature = "oauth", feature = "telemetry")), allow(dead_code, unused_imports))]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long one outgoing request may take, connecting included.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// The TLS settings every client of the runtime's shares.
#[cfg(feature = "tls")]
pub(crate) fn tls() -> Result<rustls::ClientConfig, String> {
    use rustls_platform_verifier::BuilderVerifierExt as _;
    let provider = match rustls::crypto::CryptoProvider::get_default() {
        Some(installed) => Arc::clone(installed),
        // rustls deprecates its ring provider for lacking post-quantum key exchange, which
        // only aws-lc-rs has here, a much heavier build. These requests go to the operator's
        // own services (the issuer, the collector); an application that wants post-quantum
        // exchange installs aws-lc-rs as the process default, used above.
        #[allow(deprecated)]
        None => Arc::new(rustls::crypto::ring::default_provider()),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_platform_verifier()
        .map_err(|e| format!("TLS: the system's certificate roots: {e}"))?
        .with_no_client_auth();
    Ok(config)
}

/// The shared asynchronous client (made on first use; a clone shares its connections).
#[cfg(feature = "tls")]
pub(crate) fn shared() -> Result<reqwest::Client, String> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .tls_backend_preconfigured(tls()?)
                .timeout(TIMEOUT)
                .connect_timeout(TIMEOUT)
                // Metadata and keys are fetched where configured, never where a redirect says.
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| format!("the HTTP client: {e}"))
        })
        .clone()
}

/// A blocking client with the same TLS settings, for the OTLP exporters (they run on
/// threads of their own, outside any runtime).
#[cfg(feature = "telemetry")]
pub(crate) fn blocking() -> Result<reqwest::blocking::Client, String> {
    reqwest::blocking::Client::builder()
        .tls_backend_preconfigured(tls()?)
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .user_agent(concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("the HTTP client: {e}"))
}

/// The client of MCP connections and their authorization (feature `client`): no overall
/// timeout (a stream lasts as long as it lasts), no redirect followed (a token goes only where
/// it was meant to, and an authorization redirect is read, not followed); HTTPS with `tls`.
#[cfg(feature = "client")]
pub(crate) fn for_streams() -> Result<reqwest::Client, String> {
    let builder = reqwest::Client::builder()
        .connect_timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")));
    #[cfg(feature = "tls")]
    let builder = builder.tls_backend_preconfigured(tls()?);
    builder.build().map_err(|e| format!("the HTTP client: {e}"))
}

/// Why an outgoing request got no usable answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FetchError(pub(crate) String);

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Sends `request` and reads a JSON object back: a 2xx status, at most `limit` bytes.
pub(crate) async fn json_object(
    request: reqwest::RequestBuilder,
    limit: usize,
) -> Result<serde_json::Map<String, serde_json::Value>, FetchError> {
    let mut response = request
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| FetchError(format!("no answer: {}", without_url(&e))))?;
    let status = response.status();
    if !status.is_success() {
        return Err(FetchError(format!("answered {status}")));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| FetchError(format!("reading: {}", without_url(&e))))? {
        if body.len() + chunk.len() > limit {
            return Err(FetchError(format!("the answer is over {limit} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    match serde_json::from_slice(&body) {
        Ok(serde_json::Value::Object(object)) => Ok(object),
        Ok(_) => Err(FetchError("the answer is not a JSON object".into())),
        Err(e) => Err(FetchError(format!("the answer is not JSON: {e}"))),
    }
}

/// An error's message without the URL reqwest adds (the caller names what it fetched).
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(&format!(" for url ({url})"), "");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
