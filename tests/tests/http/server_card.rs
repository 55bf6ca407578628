//! The Server Card (SEP-2127) at `GET <endpoint>/server-card`: what the server knows (name,
//! version, title, description, website, the endpoint, every revision, the `Authorization`
//! header when authorization is on), its media type, a strong `ETag` that `If-None-Match`
//! turns into 304, `Cache-Control`, CORS for any origin; no card, and no route, without
//! `Server::server_card`. Each card served is written to `<target>/transcripts/server-card/`,
//! where `scripts/schema-check` validates it against the card's official schema.

use mcp_runtime::Server;
use mcp_runtime::http::{Authorization, HttpOptions, Reject};
use mcp_tests::wire::transcripts_dir;
use serde_json::Value;

use super::middleware::serving_with;

fn carded() -> Server {
    Server::builder("gift-genius", "1.4.0")
        .title("GiftGen")
        .description("Suggests gifts from a small catalog")
        .website_url("https://example.com/gifts")
        .server_card("io.github.example/gift-genius")
}

/// GETs `url` with `headers`: the status, the response's headers, the body.
async fn get(url: &str, headers: &[(&str, &str)]) -> (u16, reqwest::header::HeaderMap, String) {
    let url = url.to_owned();
    let headers: Vec<(String, String)> = headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
    tokio::task::spawn_blocking(move || {
        let mut request = reqwest::blocking::Client::new().get(&url);
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let response = request.send().expect("the GET");
        let (status, headers) = (response.status().as_u16(), response.headers().clone());
        (status, headers, response.text().expect("a body"))
    })
    .await
    .expect("the GET ran")
}

/// Keeps `card` where `scripts/schema-check` validates it.
fn keep_for_the_schema_check(name: &str, card: &str) {
    let dir = transcripts_dir().join("server-card");
    std::fs::create_dir_all(&dir).expect("the transcripts folder");
    std::fs::write(dir.join(format!("{name}.json")), card).expect("the card written");
}

fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_else(|| panic!("no {name}: {headers:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_says_who_where_and_which_revisions_cached_and_open_to_browsers() {
    let url = serving_with(carded(), HttpOptions::default()).await;
    let card_url = format!("{url}/server-card");
    let (status, headers, body) = get(&card_url, &[("accept", "application/mcp-server-card+json")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(header(&headers, "content-type"), "application/mcp-server-card+json");
    keep_for_the_schema_check("open", &body);
    let card: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(card["$schema"], "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json");
    assert_eq!(card["name"], "io.github.example/gift-genius");
    assert_eq!((card["version"].as_str(), card["title"].as_str()), (Some("1.4.0"), Some("GiftGen")));
    assert_eq!(card["description"], "Suggests gifts from a small catalog");
    assert_eq!(card["websiteUrl"], "https://example.com/gifts");
    let remote = &card["remotes"][0];
    assert_eq!((remote["type"].as_str(), remote["url"].as_str()), (Some("streamable-http"), Some(url.as_str())));
    let versions: Vec<&str> =
        remote["supportedProtocolVersions"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(versions, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    assert!(remote.get("headers").is_none(), "no authorization, no header: {card:#}");

    // Cached and validated: a strong tag, 304 for it, the same document again without it.
    let etag = header(&headers, "etag").to_owned();
    assert!(etag.starts_with('"') && !etag.starts_with("W/"), "{etag}");
    assert_eq!(header(&headers, "cache-control"), "public, max-age=3600");
    let (status, again, body) = get(&card_url, &[("if-none-match", &etag)]).await;
    assert_eq!((status, body.as_str()), (304, ""));
    assert_eq!(header(&again, "etag"), etag);
    let (status, plain, body) = get(&card_url, &[("if-none-match", "\"another\"")]).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&plain, "content-type"),
        "application/json",
        "JSON to a client that did not ask for the card's type"
    );
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), card);

    // Any page may read it, from any origin (it is public and read-only).
    let (_, cors, _) = get(&card_url, &[("origin", "https://elsewhere.example")]).await;
    assert_eq!(header(&cors, "access-control-allow-origin"), "*");
    assert_eq!(header(&cors, "access-control-expose-headers"), "ETag");
    let preflight = tokio::task::spawn_blocking(move || {
        reqwest::blocking::Client::new()
            .request(reqwest::Method::OPTIONS, &card_url)
            .header("origin", "https://elsewhere.example")
            .header("access-control-request-method", "GET")
            .send()
            .expect("the preflight")
    })
    .await
    .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(header(preflight.headers(), "access-control-allow-headers"), "Content-Type, If-None-Match");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_authorization_the_card_names_the_header_and_stays_public() {
    let authorization = Authorization::hook(|_headers: axum::http::HeaderMap| async { Err(Reject::new("no")) });
    let url = serving_with(carded(), HttpOptions::default().authorization(authorization)).await;
    let (status, _, body) = get(&format!("{url}/server-card"), &[]).await;
    assert_eq!(status, 200, "the card needs no token: {body}");
    keep_for_the_schema_check("authorized", &body);
    let card: Value = serde_json::from_str(&body).unwrap();
    let header = &card["remotes"][0]["headers"][0];
    assert_eq!(
        (header["name"].as_str(), header["isSecret"].as_bool()),
        (Some("Authorization"), Some(true)),
        "{card:#}"
    );
    assert_eq!(header["value"], "Bearer {token}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_card_name_there_is_no_card_and_a_bad_one_stops_the_start() {
    let url = serving_with(Server::builder("plain", "1.0.0"), HttpOptions::default()).await;
    let (status, ..) = get(&format!("{url}/server-card"), &[]).await;
    assert_eq!(status, 404);
    let unnamespaced = carded().server_card("gift-genius");
    let refused = unnamespaced.serve_http("127.0.0.1:0").await.expect_err("a card name the schema refuses");
    assert!(refused.to_string().contains("namespace/name"), "{refused}");
    let undescribed = Server::builder("gift-genius", "1.0.0").server_card("io.github.example/gift-genius");
    let refused = undescribed.serve_http("127.0.0.1:0").await.expect_err("a card without a description");
    assert!(refused.to_string().contains("Server::description"), "{refused}");
}
