//! `GET <endpoint>/server-card`: the Server Card, made once at start, with what the discovery
//! notes ask of its host: its media type (or `application/json`), a strong `ETag` honoured by
//! `If-None-Match` (304), `Cache-Control: public, max-age=3600`, and CORS for any origin (the
//! card is public and read-only).

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The card's media type (`application/json` is served to a client that does not ask for it).
const MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// The card's body and its entity tag.
#[derive(Debug)]
pub(super) struct Card {
    body: String,
    etag: HeaderValue,
}

impl Card {
    pub(super) fn new(card: &serde_json::Value) -> Card {
        let body = card.to_string();
        let digest = hmac_sha256::Hash::hash(body.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        let etag = HeaderValue::from_str(&format!("\"{hex}\"")).unwrap_or(HeaderValue::from_static("\"card\""));
        Card { body, etag }
    }
}

/// The router serving `card` at `/mcp/server-card`.
pub(super) fn router(card: Card) -> axum::Router {
    let card = Arc::new(card);
    let serve = move |headers: HeaderMap| {
        let card = Arc::clone(&card);
        async move { answer(&card, &headers) }
    };
    axum::Router::new().route("/mcp/server-card", axum::routing::get(serve).options(preflight))
}

fn answer(card: &Card, headers: &HeaderMap) -> Response {
    let matches = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == "*" || tag.trim().as_bytes() == card.etag.as_bytes());
    let mut response = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let asked = headers.get(header::ACCEPT).and_then(|a| a.to_str().ok()).unwrap_or_default();
        let media = if asked.contains(MEDIA_TYPE) { MEDIA_TYPE } else { "application/json" };
        ([(header::CONTENT_TYPE, HeaderValue::from_static(media))], card.body.clone()).into_response()
    };
    let headers = response.headers_mut();
    headers.insert(header::ETAG, card.etag.clone());
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
    headers.insert(header::VARY, HeaderValue::from_static("accept"));
    cors(headers);
    response
}

async fn preflight() -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    cors(response.headers_mut());
    response
}

fn cors(headers: &mut HeaderMap) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type, If-None-Match"));
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("ETag"));
}
