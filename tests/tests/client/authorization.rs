//! A token goes only to the server it was obtained for: not to the authorization server's
//! endpoints (which get no `Authorization` from the client at all), and not where the MCP
//! server redirects (the client follows no redirect). An authorization server and a
//! protected MCP server of the test's own, on two loopback ports, record what they are sent.

use std::sync::{Arc, Mutex};

use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use mcp_runtime::client::{Client, ClientError, Era, OAuth};

use crate::oauth_servers::{bind, json, metadata, serve};

/// What a server was sent: (path, the `Authorization` header if any).
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

const TOKEN: &str = "secret-token-of-the-mcp-server";

fn record(seen: &Seen, path: &str, headers: &HeaderMap) {
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    seen.lock().unwrap().push((path.to_owned(), authorization));
}

#[tokio::test]
async fn a_token_is_sent_only_to_the_server_it_was_obtained_for() {
    let at_authorization_server: Seen = Arc::default();
    let at_mcp_server: Seen = Arc::default();

    // The authorization server, which is also where the MCP server redirects.
    let (listener, issuer) = bind();
    let seen = at_authorization_server.clone();
    let metadata = metadata(&issuer);
    let router = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get({
                let seen = seen.clone();
                move |headers: HeaderMap| async move {
                    record(&seen, "/.well-known/oauth-authorization-server", &headers);
                    json(StatusCode::OK, metadata)
                }
            }),
        )
        .route(
            "/register",
            post({
                let seen = seen.clone();
                move |headers: HeaderMap| async move {
                    record(&seen, "/register", &headers);
                    json(StatusCode::CREATED, serde_json::json!({"client_id": "the-client"}))
                }
            }),
        )
        .route(
            "/authorize",
            get({
                let seen = seen.clone();
                move |headers: HeaderMap, uri: Uri| async move {
                    record(&seen, "/authorize", &headers);
                    let query = uri.query().unwrap_or_default();
                    let state = query.split('&').find_map(|pair| pair.strip_prefix("state=")).unwrap_or_default();
                    let location = format!("http://localhost:1/callback?code=the-code&state={state}");
                    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
                }
            }),
        )
        .route(
            "/token",
            post({
                let seen = seen.clone();
                move |headers: HeaderMap| async move {
                    record(&seen, "/token", &headers);
                    json(StatusCode::OK, serde_json::json!({"access_token": TOKEN, "token_type": "Bearer"}))
                }
            }),
        )
        .route(
            "/mcp",
            post({
                let seen = seen.clone();
                move |headers: HeaderMap| async move {
                    record(&seen, "/mcp", &headers);
                    StatusCode::OK
                }
            }),
        );
    serve(listener, router);

    // The MCP server: a challenge without a token; with one, a redirect to the other host.
    let seen = at_mcp_server.clone();
    let (listener, server) = bind();
    let metadata = serde_json::json!({"resource": format!("{server}/mcp"), "authorization_servers": [issuer]});
    let redirect = format!("{issuer}/mcp");
    let challenge = format!(r#"Bearer resource_metadata="{server}/.well-known/oauth-protected-resource/mcp""#);
    let router = axum::Router::new()
        .route("/.well-known/oauth-protected-resource/mcp", get(move || async move { json(StatusCode::OK, metadata) }))
        .route(
            "/mcp",
            post(move |headers: HeaderMap| async move {
                record(&seen, "/mcp", &headers);
                let sent = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
                if sent == format!("Bearer {TOKEN}") {
                    (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, redirect)]).into_response()
                } else {
                    (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)]).into_response()
                }
            }),
        );
    serve(listener, router);
    let server = server + "/mcp";

    let oauth = OAuth::authorization_code("http://localhost:1/callback", OAuth::headless());
    let error = Client::builder().era(Era::Handshake).oauth(oauth).http(&server).await.expect_err("redirected");
    assert!(matches!(&error, ClientError::Transport(m) if m.contains("307")), "{error:?}");

    let at_mcp_server = at_mcp_server.lock().unwrap().clone();
    assert_eq!(
        at_mcp_server.iter().map(|(_, auth)| auth.as_deref()).collect::<Vec<_>>(),
        [None, Some(format!("Bearer {TOKEN}").as_str())],
        "the MCP server is asked without a token, then with the one obtained"
    );
    let at_authorization_server = at_authorization_server.lock().unwrap().clone();
    let paths: Vec<&str> = at_authorization_server.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["/.well-known/oauth-authorization-server", "/register", "/authorize", "/token"]);
    assert!(
        at_authorization_server.iter().all(|(_, auth)| auth.is_none()),
        "the authorization server was sent an Authorization: {at_authorization_server:?}"
    );
}
